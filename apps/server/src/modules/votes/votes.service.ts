import type { VoteSiteBody, AdminVoteSite, PlayerVoteSite, VoteOutcome, VoteTopResponse, VotesResponse } from '@kubik/contract';
import type { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { badRequest, forbidden, isUniqueViolation, notFound } from '../../lib/errors.ts';
import { toKopecks, toRoubles } from '../../lib/money.ts';
import { isOwner, ownerOnly } from '../../lib/owner-only.ts';
import { addressKey } from '../../lib/rate-limit.ts';
import { zonedDate, zonedMidnight } from '../../lib/zoned-days.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { enqueueDelivery, kickDeliveries } from '../deliveries/deliveries.queue.ts';
import { postLedger } from '../ledger/ledger.service.ts';
import { notify } from '../notices/notices.service.ts';
import type { User } from '../users/users.repo.ts';
import { hiddenPlayers } from '../users/users.ports.ts';
import {
  countVotes,
  existingServerIds,
  findLivePlayer,
  findSite,
  insertSite,
  insertVote,
  listSites,
  logCallback,
  prizesPaid,
  runningCooldowns,
  saveSite,
  siteLog,
  switchSiteOff,
  takeCooldown,
  topVoters,
  type VoteSite,
} from './votes.repo.ts';
import { okText, verifyVote } from './votes.signatures.ts';
import { VotePrizeSettings } from './votes.settings.ts';

export const VOTE_TEXTS = {
  siteNotFound: 'Такого топа нет',
  secretRequired: 'Введите секретный ключ, который выдал топ',
  disabled: 'Топ выключен',
  badSignature: 'Подпись не совпадает с секретным ключом топа',
  badRequest: 'В запросе топа нет ника, времени или подписи',
  stale: 'Время голоса слишком далеко от текущего: колбэк устарел',
  ownerOnly: 'Это меняет только владелец сайта: от этого зависит, чьим голосам сайт верит и сколько за них начисляет',
  ownerOnlyEnable: 'Включить топ может только владелец сайта (выключить может и сотрудник)',
} as const;

/** A callback's time may differ from ours by this much; older ones are refused as stale (a replay). */
export const MAX_CLOCK_SKEW_MS = 15 * 60_000;
/** Callbacks from one address per rate-limit window. */
export const CALLBACKS_PER_IP = 300;

type SiteInput = z.output<typeof VoteSiteBody>;

// --- Months ---------------------------------------------------------------------------------

/** YYYY-MM of `ms` in the zone. */
export function monthOf(ms: number, timeZone: string): string {
  return zonedDate(ms, timeZone).slice(0, 7);
}

/** The month's first millisecond and the next month's first, in the zone. */
export function monthRange(month: string, timeZone: string): { start: number; end: number } {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const next = m === 12 ? [y + 1, 1] : [y, m + 1];
  return { start: zonedMidnight(y, m, 1, timeZone), end: zonedMidnight(next[0]!, next[1]!, 1, timeZone) };
}

export function previousMonth(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
}

// --- The owner's side -----------------------------------------------------------------------

function callbackUrl(ctx: AppContext, id: number): string {
  return `${ctx.config.publicUrl}/api/votes/callback/${id}`;
}

/**
 * The secret's end, for the owner to recognise it. Staff see none of it: whoever knows a top's
 * secret signs votes for any account, and four characters of a short secret are most of it.
 */
function hint(secret: string, viewer: { is_admin: number }): string {
  if (!isOwner(viewer)) return '';
  return secret.length <= 4 ? '•'.repeat(secret.length) : `••••${secret.slice(-4)}`;
}

export async function adminList(ctx: AppContext, viewer: { is_admin: number }): Promise<AdminVoteSite[]> {
  const sites = await listSites(ctx.db, false);
  const logs = await siteLog(
    ctx.db,
    sites.map((s) => s.id),
  );
  return sites.map((s) => adminView(ctx, s, viewer, logs.get(s.id)!));
}

function adminView(
  ctx: AppContext,
  s: VoteSite,
  viewer: { is_admin: number },
  log: Pick<AdminVoteSite, 'counts' | 'recent'> = { counts: {}, recent: [] },
): AdminVoteSite {
  return {
    id: s.id,
    kind: s.kind,
    title: s.title,
    url: s.url,
    secret_hint: hint(s.secret, viewer),
    reward_amount: toRoubles(s.rewardAmount),
    reward_commands: s.rewardCommands,
    server_ids: s.serverIds,
    cooldown_hours: s.cooldownHours,
    custom: s.custom,
    enabled: s.enabled,
    callback_url: callbackUrl(ctx, s.id),
    ...log,
  };
}

function columns(input: SiteInput) {
  return {
    kind: input.kind,
    title: input.title,
    url: input.url,
    reward_amount: toKopecks(input.reward_amount),
    reward_commands: JSON.stringify(input.reward_commands),
    server_ids: JSON.stringify([...new Set(input.server_ids ?? [])]),
    cooldown_hours: input.cooldown_hours,
    custom: input.kind === 'custom' && input.custom ? JSON.stringify(input.custom) : null,
    enabled: input.enabled ? 1 : 0,
  };
}

async function checkServers(ctx: AppContext, ids: number[] | undefined): Promise<void> {
  if (!ids || ids.length === 0) return;
  const found = await existingServerIds(ctx.db, ids);
  if (found.length !== new Set(ids).size) throw badRequest('Такого сервера нет', { code: 'invalid', field: 'server_ids' });
}

function auditView(s: VoteSite) {
  return {
    kind: s.kind,
    title: s.title,
    url: s.url,
    secret: s.secret,
    reward_amount: toRoubles(s.rewardAmount),
    reward_commands: s.rewardCommands,
    cooldown_hours: s.cooldownHours,
    enabled: s.enabled,
  };
}

export async function createSite(ctx: AppContext, actor: User, input: SiteInput): Promise<AdminVoteSite> {
  if (!input.secret) throw badRequest(VOTE_TEXTS.secretRequired, { code: 'invalid', field: 'secret' });
  await checkServers(ctx, input.server_ids);
  const now = Date.now();
  const id = await ctx.db.transaction().execute(async (trx) => {
    const siteId = await insertSite(trx, { ...columns(input), secret: input.secret, created_at: now, updated_at: now });
    const site = (await findSite(trx, siteId))!;
    await recordAudit(trx, {
      actorId: actor.id,
      action: 'vote_site.create',
      entity: 'vote_site',
      entityId: siteId,
      after: auditView(site),
    });
    return siteId;
  });
  return adminView(ctx, (await findSite(ctx.db, id))!, actor);
}

/**
 * Refuses a staff member's change of what decides whose votes are believed and what they pay:
 * the secret, the kind and the custom signature scheme, the reward on the balance, the cooldown
 * (how often it is paid), and switching a top on. A staff member who knew a top's secret could sign
 * votes for any number of accounts; one who set the reward could pay a single vote a million.
 * The title, the link, the in-game commands, the servers and switching a top off pay no money.
 */
function assertStaffMayEdit(before: VoteSite, input: SiteInput): void {
  const cols = columns(input);
  const refusals: [boolean, keyof SiteInput][] = [
    [!!input.secret, 'secret'],
    [input.kind !== before.kind, 'kind'],
    [cols.custom !== (before.custom ? JSON.stringify(before.custom) : null), 'custom'],
    [cols.reward_amount !== before.rewardAmount, 'reward_amount'],
    [input.cooldown_hours !== before.cooldownHours, 'cooldown_hours'],
  ];
  for (const [refused, field] of refusals) if (refused) throw ownerOnly(VOTE_TEXTS.ownerOnly, field);
  if (input.enabled && !before.enabled) throw ownerOnly(VOTE_TEXTS.ownerOnlyEnable, 'enabled');
}

export async function updateSite(ctx: AppContext, actor: User, id: number, input: SiteInput): Promise<AdminVoteSite> {
  if (!(await findSite(ctx.db, id))) throw notFound(VOTE_TEXTS.siteNotFound, { code: 'vote_site_not_found' });
  await checkServers(ctx, input.server_ids);
  await ctx.db.transaction().execute(async (trx) => {
    const before = await findSite(trx, id, ctx.dbKind);
    if (!before) throw notFound(VOTE_TEXTS.siteNotFound, { code: 'vote_site_not_found' });
    if (!isOwner(actor)) assertStaffMayEdit(before, input);
    await saveSite(trx, id, { ...columns(input), ...(input.secret ? { secret: input.secret } : {}), updated_at: Date.now() });
    const after = (await findSite(trx, id))!;
    await recordAudit(trx, {
      actorId: actor.id,
      action: 'vote_site.update',
      entity: 'vote_site',
      entityId: id,
      before: auditView(before),
      after: auditView(after),
    });
  });
  return (await adminList(ctx, actor)).find((s) => s.id === id)!;
}

/** Switches a top off: its callbacks are refused from now on; its votes and log stay. */
export async function disableSite(ctx: AppContext, actor: User, id: number): Promise<void> {
  const before = await findSite(ctx.db, id);
  if (!before) throw notFound(VOTE_TEXTS.siteNotFound, { code: 'vote_site_not_found' });
  await ctx.db.transaction().execute(async (trx) => {
    await switchSiteOff(trx, id, Date.now());
    await recordAudit(trx, {
      actorId: actor.id,
      action: 'vote_site.disable',
      entity: 'vote_site',
      entityId: id,
      before: { enabled: before.enabled },
      after: { enabled: false },
    });
  });
}

// --- The callback ---------------------------------------------------------------------------

export interface CallbackAnswer {
  text: string;
  outcome: VoteOutcome;
}

/** Strings of a form, query or JSON object (one level; other values are left out). */
export function fieldsOf(...sources: unknown[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const source of sources) {
    if (!source || typeof source !== 'object' || Array.isArray(source)) continue;
    for (const [k, v] of Object.entries(source as Record<string, unknown>)) {
      if (typeof v === 'string') out[k] = v;
      else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    }
  }
  return out;
}

class Cooldown extends Error {}

/** The limiter key a callback's address is counted under: an IPv6 client by its /64, like every per-address limit. */
export const callbackKey = (ip: string) => `vote:callback:ip:${addressKey(ip)}`;

/**
 * One callback of a top: rate-limited by address, checked by the top's rule before anything is
 * written, then a known player is rewarded once per cooldown. Every outcome is logged for the owner.
 */
export async function handleCallback(
  ctx: AppContext,
  siteId: number,
  fields: Record<string, string>,
  authorization: string | undefined,
  ip: string,
): Promise<CallbackAnswer> {
  await ctx.limiter.hit(callbackKey(ip), CALLBACKS_PER_IP);
  const site = await findSite(ctx.db, siteId);
  if (!site || !site.enabled) throw notFound(VOTE_TEXTS.siteNotFound, { code: 'vote_site_not_found' });
  const now = Date.now();
  const log = (outcome: VoteOutcome, username: string | null, db = ctx.db) => logCallback(db, { siteId, outcome, username, ip, now });

  const verdict = verifyVote(site, fields, authorization);
  if (!verdict.ok) {
    await log(verdict.outcome, verdict.username);
    throw verdict.outcome === 'bad_signature'
      ? forbidden(VOTE_TEXTS.badSignature, { code: 'vote_bad_signature' })
      : badRequest(VOTE_TEXTS.badRequest, { code: 'invalid' });
  }
  const { claim } = verdict;
  if (claim.test) {
    await log('test', claim.username);
    return { text: okText(site.kind), outcome: 'test' };
  }
  if (claim.at !== null && Math.abs(now - claim.at) > MAX_CLOCK_SKEW_MS) {
    await log('stale', claim.username);
    throw badRequest(VOTE_TEXTS.stale, { code: 'vote_stale' });
  }
  const user = await findLivePlayer(ctx.db, claim.username);
  if (!user) {
    await log('unknown_name', claim.username);
    return { text: okText(site.kind), outcome: 'unknown_name' };
  }

  const dedupe = `${claim.username.toLowerCase()}:${claim.rawTime ?? `@${now}`}`.slice(0, 200);
  let delivered: boolean;
  try {
    delivered = await ctx.db.transaction().execute(async (trx) => {
      const voteId = await insertVote(trx, { site_id: site.id, user_id: user.id, dedupe, created_at: now });
      if (!(await takeCooldown(trx, site.id, user.id, now, now + site.cooldownHours * 3_600_000))) throw new Cooldown();
      if (site.rewardAmount > 0)
        await postLedger(trx, {
          userId: user.id,
          amount: site.rewardAmount,
          reason: 'vote_reward',
          authorId: null,
          ref: `vote:${voteId}`,
          note: `Голос за сервер: ${site.title}`,
        });
      if (site.rewardCommands.length > 0)
        await enqueueDelivery(trx, {
          source: 'vote',
          sourceId: voteId,
          userId: user.id,
          label: `Награда за голос: ${site.title}`.slice(0, 200),
          server: site.serverIds.length > 0 ? site.serverIds : 'all',
          commands: site.rewardCommands,
        });
      await notify(trx, user.id, {
        kind: 'vote_reward',
        title: `Спасибо за голос в «${site.title}»!`.slice(0, 120),
        body:
          [
            site.rewardAmount > 0 ? `На баланс: +${formatRoubles(site.rewardAmount)}` : null,
            site.rewardCommands.length > 0 ? 'Подарок выдадим в игре' : null,
          ]
            .filter(Boolean)
            .join('. ') || null,
        link: '/vote',
      });
      await log('accepted', user.username, trx);
      return site.rewardCommands.length > 0;
    });
  } catch (err) {
    if (err instanceof Cooldown) {
      await log('cooldown', user.username);
      return { text: okText(site.kind), outcome: 'cooldown' };
    }
    if (isUniqueViolation(err)) {
      await log('replay', user.username);
      return { text: okText(site.kind), outcome: 'replay' };
    }
    throw err;
  }
  if (delivered) kickDeliveries(ctx);
  return { text: okText(site.kind), outcome: 'accepted' };
}

// --- The player's side ----------------------------------------------------------------------

/** A player's rewarded votes in a month (YYYY-MM in the zone); also the votesThisMonth port's answer. */
export async function votesInMonth(db: Db, userId: number, month: string, timeZone: string): Promise<number> {
  const { start, end } = monthRange(month, timeZone);
  return countVotes(db, userId, start, end);
}

export async function playerView(ctx: AppContext, user: User | null, now = Date.now()): Promise<VotesResponse> {
  const sites = await listSites(ctx.db, true);
  const month = monthOf(now, ctx.config.timeZone);
  const cooldowns = new Map<number, number>();
  let myVotes: number | null = null;
  if (user) {
    const rows = await runningCooldowns(ctx.db, user.id, now);
    for (const r of rows) cooldowns.set(r.site_id, Number(r.next_at));
    myVotes = await votesInMonth(ctx.db, user.id, month, ctx.config.timeZone);
  }
  const { prizes } = await ctx.settings.get(VotePrizeSettings);
  return {
    sites: sites.map((s): PlayerVoteSite => ({
      id: s.id,
      kind: s.kind,
      title: s.title,
      url: s.url,
      reward_amount: toRoubles(s.rewardAmount),
      has_commands: s.rewardCommands.length > 0,
      next_vote_at: cooldowns.has(s.id) ? new Date(cooldowns.get(s.id)!).toISOString() : null,
    })),
    month,
    my_votes: myVotes,
    prizes,
  };
}

export const TOP_SIZE = 10;

export async function monthTop(ctx: AppContext, month: string | undefined, now = Date.now()): Promise<VoteTopResponse> {
  const m = month ?? monthOf(now, ctx.config.timeZone);
  const { start, end } = monthRange(m, ctx.config.timeZone);
  const paid = await prizesPaid(ctx.db, m);
  const { prizes } = await ctx.settings.get(VotePrizeSettings);
  const top = await topVoters(ctx.db, start, end, Math.max(TOP_SIZE, prizes.length));
  // A player who hid their profile keeps their place, votes and prize, without the name: nobody
  // below moves up into a place they did not win.
  const hidden = await hiddenPlayers.ask().ids(
    ctx.db,
    top.map((t) => t.userId),
  );
  return {
    month: m,
    top: top.map((t, i) => ({
      place: i + 1,
      username: hidden.has(t.userId) ? null : t.username,
      votes: t.votes,
      prize: prizes[i] ?? null,
    })),
    paid,
  };
}

/** «1 250 ₽», «35,50 ₽». */
export function formatRoubles(kopecks: number): string {
  const whole = String(Math.trunc(kopecks / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, '\u00a0');
  const rest = Math.abs(kopecks % 100);
  return `${whole}${rest ? `,${String(rest).padStart(2, '0')}` : ''}\u00a0₽`;
}
