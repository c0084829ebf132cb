import {
  ANNOUNCE_CHANNELS,
  type AnnounceChannel,
  type AnnounceEvent,
  type AnnounceSettingsView,
  type AnnounceTestResult,
} from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { backoffMs, type Backoff } from '../../base/backoff.ts';
import { ClaimQueue, type ClaimOwner, type Job } from '../../lib/jobs/index.ts';
import { rubles } from '../notices/notices.service.ts';
import { siteName } from '../site/site.settings.ts';
import type { SiteEvent } from '../users/users.ports.ts';
import { send } from './announce.providers.ts';
import { render } from './announce.render.ts';
import * as repo from './announce.repo.ts';
import { announceConfig, storedAnnounce, type AnnounceConfig } from './announce.settings.ts';

export const ANNOUNCE_JOB = 'announce.outbox';
/** A message not sent after this many tries (network errors, 5xx) is given up. */
const MAX_ATTEMPTS = 12;
const LEASE_MS = 60_000;
const RETRY: Backoff = { baseMs: 30_000, capMs: 3_600_000 };
/** A wait a provider asks for is kept, but never shorter than this (a 0 s retry_after spins). */
const MIN_WAIT_MS = 250;

const short = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The placeholders' values of an event. */
function valuesOf(event: SiteEvent, cfg: AnnounceConfig, site: string, publicUrl: string): Record<string, string> {
  switch (event.kind) {
    case 'news':
      return { title: event.title, text: short(event.text.replace(/\s+/g, ' ').trim(), 300), url: `${publicUrl}/news/${event.id}`, site };
    case 'purchase':
      return {
        player: event.player,
        item: event.item,
        amount: cfg.purchaseAmount === 'shown' && event.amount > 0 ? ` за ${rubles(event.amount)}` : '',
        site,
      };
    case 'ticket':
      return {
        id: String(event.id),
        subject: event.subject,
        player: event.player,
        category: event.category ?? '',
        url: `${publicUrl}/admin/support/${event.id}`,
        site,
      };
    case 'server_down':
      return { server: event.server, site };
    case 'server_up':
      return { server: event.server, online: String(event.online), site };
  }
}

function dedupeKey(event: SiteEvent): string {
  switch (event.kind) {
    case 'news':
    case 'ticket':
      return `${event.kind}:${event.id}`;
    case 'purchase':
      return `purchase:${event.id.slice(0, 100)}`;
    case 'server_down':
    case 'server_up':
      return `${event.kind}:${event.id}:${event.at}`;
  }
}

function channelsOf(cfg: AnnounceConfig): AnnounceChannel[] {
  return ANNOUNCE_CHANNELS.filter((c) => cfg[c] !== null);
}

/** The outbox row of an event not yet made into messages (the job does it, out of the event's transaction). */
const EVENT_ROW = 'event';

/**
 * The siteEvent reaction, in the event's transaction: the event itself is written down; the job
 * then makes one message per set-up channel if the owner announces this kind of event. Nothing
 * else is read here: the settings are read by the job, never inside another feature's transaction.
 */
export async function recordEvent(db: Db, event: SiteEvent, now = Date.now()): Promise<void> {
  await repo.queueMessage(db, {
    channel: EVENT_ROW,
    event: event.kind,
    dedupe_key: dedupeKey(event),
    text: JSON.stringify(event),
    state: 'queued',
    attempts: 0,
    next_attempt_at: now,
    last_error: null,
    created_at: now,
    sent_at: null,
    lock_token: null,
    locked_until: null,
  });
}

/** The messages of one event, one per set-up channel (each event once per channel). Returns how many were queued. */
export async function queueEvent(ctx: AppContext, cfg: AnnounceConfig, event: SiteEvent, now = Date.now()): Promise<number> {
  if (!cfg.events.includes(event.kind)) return 0;
  const channels = channelsOf(cfg);
  if (channels.length === 0) return 0;
  const values = valuesOf(event, cfg, await siteName(ctx), ctx.config.publicUrl);
  let queued = 0;
  for (const channel of channels) {
    const text = render(channel, cfg.templates[event.kind], values);
    if (!text) continue;
    if (
      await repo.queueMessage(ctx.db, {
        channel,
        event: event.kind,
        dedupe_key: dedupeKey(event),
        text,
        state: 'queued',
        attempts: 0,
        next_attempt_at: now,
        last_error: null,
        created_at: now,
        sent_at: null,
        lock_token: null,
        locked_until: null,
      })
    )
      queued++;
  }
  return queued;
}

/** Makes the recorded events into messages; the event rows go once done. */
async function expandEvents(ctx: AppContext, queue: ClaimQueue<'announce_outbox'>, signal?: AbortSignal): Promise<void> {
  let cfg: AnnounceConfig | null = null;
  while (!signal?.aborted) {
    const { token, rows } = await queue.claim(50, ['text'], { where: (eb) => eb('channel', '=', EVENT_ROW) });
    if (rows.length === 0) return;
    cfg ??= await announceConfig(ctx);
    for (const row of rows) {
      let event: SiteEvent | null;
      try {
        event = JSON.parse(row.text) as SiteEvent;
      } catch {
        event = null;
      }
      if (event) await queueEvent(ctx, cfg, event);
      await queue.complete(token, row.id, { state: 'sent', sent_at: Date.now() });
      await repo.dropMessage(ctx.db, row.id);
    }
  }
}

const queues = new WeakMap<Db, ClaimQueue<'announce_outbox'>>();
function outbox(db: Db, owner?: ClaimOwner): ClaimQueue<'announce_outbox'> {
  let q = queues.get(db);
  if (!q) {
    q = new ClaimQueue(
      db,
      {
        table: 'announce_outbox',
        leaseMs: LEASE_MS,
        due: (eb, now) => eb.and([eb('state', '=', 'queued'), eb('next_attempt_at', '<=', now)]),
      },
      owner,
    );
    queues.set(db, q);
  }
  return q;
}

/**
 * Sends what is due, each channel's messages oldest first, one at a time per channel: a claim
 * takes a channel's oldest due message, so several instances never send one twice and a
 * provider's wait (429, flood control) holds back every message of that channel, not just the
 * one that met it. Returns how many were sent.
 */
export async function drainAnnouncements(ctx: AppContext, signal?: AbortSignal): Promise<number> {
  const db = ctx.db;
  const queue = outbox(db);
  await expandEvents(ctx, queue, signal);
  let sent = 0;
  let cfg: AnnounceConfig | null = null;
  const idle = new Set<AnnounceChannel>();
  while (!signal?.aborted && idle.size < ANNOUNCE_CHANNELS.length) {
    for (const channel of ANNOUNCE_CHANNELS) {
      if (idle.has(channel) || signal?.aborted) continue;
      const now = Date.now();
      const { token, rows } = await repo.claimChannelMessage(queue, channel, now);
      const row = rows[0];
      if (!row) {
        idle.add(channel);
        continue;
      }
      cfg ??= await announceConfig(ctx);
      const outcome = await send(channel, cfg, row.text, row.id);
      const at = Date.now();
      if (outcome.kind === 'sent') {
        await queue.complete(token, row.id, { state: 'sent', sent_at: at, last_error: null });
        sent++;
        if (outcome.pauseMs) await repo.holdChannel(db, channel, at + outcome.pauseMs);
      } else if (outcome.kind === 'wait') {
        // The provider's own wait: this try does not count against the message.
        await queue.complete(token, row.id, { attempts: Math.max(0, row.attempts - 1), last_error: outcome.error });
        await repo.holdChannel(db, channel, at + Math.max(MIN_WAIT_MS, outcome.ms));
        idle.add(channel);
      } else if (outcome.kind === 'retry' && row.attempts < MAX_ATTEMPTS) {
        await queue.complete(token, row.id, { last_error: outcome.error, next_attempt_at: at + backoffMs(row.attempts, RETRY) });
        idle.add(channel);
      } else {
        // Kept with its reason for the owner (Админ-панель → Объявления, «Последние сообщения»).
        await queue.complete(token, row.id, { state: 'failed', last_error: outcome.error });
      }
    }
  }
  return sent;
}

/** The outbox as a background job: every 5 s, and at once when kicked. */
export function announceJob(ctx: AppContext): Job {
  const queue = outbox(ctx.db, ctx.claims);
  return {
    name: ANNOUNCE_JOB,
    intervalMs: 5000,
    recover: () => queue.takeBack(),
    run: (signal) => drainAnnouncements(ctx, signal),
    release: async () => void (await queue.release()),
  };
}

const SAMPLE: Record<AnnounceEvent, SiteEvent> = {
  news: { kind: 'news', id: 1, title: 'Пример новости', text: 'Так будет выглядеть объявление о новости.' },
  purchase: { kind: 'purchase', id: 'test', player: 'Steve', item: 'Алмаз × 2', amount: 125_000 },
  ticket: { kind: 'ticket', id: 1, subject: 'Не пришла покупка', player: 'Steve', category: 'Покупки' },
  server_down: { kind: 'server_down', id: 1, server: 'Выживание', at: 0 },
  server_up: { kind: 'server_up', id: 1, server: 'Выживание', online: 12, at: 0 },
};

/** «Проверить»: a sample of the event's template sent to one channel now, through the same send as the queue. */
export async function sendTest(ctx: AppContext, channel: AnnounceChannel, event: AnnounceEvent): Promise<AnnounceTestResult> {
  const cfg = await announceConfig(ctx);
  if (!cfg[channel]) return { ok: false, message: 'Канал не настроен: укажите адрес или токен и сохраните' };
  const values = valuesOf(SAMPLE[event], cfg, await siteName(ctx), ctx.config.publicUrl);
  const text = `[Проверка] ${render(channel, cfg.templates[event], values)}`;
  const outcome = await send(channel, cfg, text, Number(String(Date.now()).slice(-9)));
  if (outcome.kind === 'sent') return { ok: true, message: 'Отправлено: проверьте канал' };
  return { ok: false, message: outcome.error };
}

export async function settingsView(ctx: AppContext): Promise<AnnounceSettingsView> {
  const s = await storedAnnounce(ctx);
  const cfg = await announceConfig(ctx);
  const hook = cfg.discord?.webhook;
  return {
    // Only where it leads, never its key (the last part).
    discord: { set: cfg.discord !== null, display: hook ? hook.replace(/\/[^/]+\/?$/, '/•••') : null },
    telegram: { set: cfg.telegram !== null || Boolean(s.telegram_token_secret_sealed), chat_id: s.telegram_chat_id ?? '' },
    vk: {
      set: cfg.vk !== null || Boolean(s.vk_token_secret_sealed),
      group_id: s.vk_group_id ?? '',
      mode: s.vk_mode ?? 'wall',
      peer_id: s.vk_peer_id ?? '',
    },
    events: cfg.events,
    purchase_amount: cfg.purchaseAmount,
    templates: cfg.templates,
    recent: (await repo.recentMessages(ctx.db, 30)).map((r) => ({
      id: r.id,
      channel: r.channel as AnnounceChannel,
      event: r.event,
      text: r.text,
      state: r.state as 'queued' | 'sent' | 'failed',
      attempts: Number(r.attempts),
      last_error: r.last_error,
      created_at: Number(r.created_at),
      sent_at: r.sent_at === null ? null : Number(r.sent_at),
    })),
  };
}
