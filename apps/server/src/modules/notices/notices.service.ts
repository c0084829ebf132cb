/**
 * Notices — the core every feature tells a player something through (docs/notices.md).
 *
 *   notify(trx, userId, { kind, title, body?, link?, data? })  one player's notice
 *   notifyAll(trx, { kind, title, body?, link?, data? })         the same notice to every account
 *   balanceMoved(trx, userId)                                   the balance changed (ledger calls it)
 *
 * Call them inside your own transaction: the notice is a row of `notices` and exists only if the
 * transaction commits. It reaches the bell on the next GET /api/user/notifications and, live,
 * every open GET /api/user/events stream of the player on every instance. On PostgreSQL the
 * signal is a pg_notify in the same transaction (sent at commit, dropped with a rollback); on
 * SQLite (one process) an in-process bus whose listeners read after the writer's transaction, since
 * SQLite has one connection. Signals carry ids only — the streams read the rows — so a rolled-back
 * notice is never shown and nothing private goes through the channel.
 * Titles and bodies are plain Russian text (never HTML); `link` is a site path.
 */
import type { NoticeKind } from '@kubik/contract';
import type { Db } from '../../db/index.ts';
import { isPg } from '../../db/schema-helpers.ts';
import { insertNotice, insertNoticeForEveryone, insertNotices, insertNoticesAndNotify, pgNotify } from './notices.repo.ts';

export interface NoticeInput {
  kind: NoticeKind;
  title: string;
  body?: string | null;
  link?: string | null;
  data?: Record<string, unknown> | null;
}

/** The channel of live signals (lib/notify-channel.ts on PostgreSQL). */
export const USER_EVENTS_CHANNEL = 'kubik_user_events';

/** A live signal: `u` the player (null: everyone), `e` what changed. */
export interface UserSignal {
  u: number | null;
  e: 'balance' | 'notice' | 'read';
}

const TITLE_MAX = 200;
const LINK_MAX = 300;

function row(userId: number, notice: NoticeInput, now: number) {
  return {
    user_id: userId,
    kind: notice.kind,
    title: notice.title.slice(0, TITLE_MAX),
    body: notice.body ?? null,
    link: notice.link && notice.link.startsWith('/') ? notice.link.slice(0, LINK_MAX) : null,
    data_json: notice.data ? JSON.stringify(notice.data) : null,
    created_at: now,
  };
}

const RUB = new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 2 });
const RUB_KOPECKS = new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Kopecks as a notice writes them: «1 250 ₽», «35,50 ₽» (no sign). */
export function rubles(kopecks: number): string {
  const abs = Math.abs(kopecks);
  return `${(abs % 100 === 0 ? RUB : RUB_KOPECKS).format(abs / 100)}\u00a0₽`;
}

/** One player's notice, in the caller's transaction. Returns its id. */
export async function notify(trx: Db, userId: number, notice: NoticeInput, now = Date.now()): Promise<number> {
  const id = await insertNotice(trx, row(userId, notice, now));
  await signal(trx, { u: userId, e: 'notice' });
  return id;
}

/**
 * Several notices in one insert (a batch of deliveries given at once), and one signal per player
 * rather than one per notice: one statement on PostgreSQL whatever the batch.
 */
export async function notifyMany(trx: Db, notices: readonly { userId: number; notice: NoticeInput }[], now = Date.now()): Promise<void> {
  if (notices.length === 0) return;
  const rows = notices.map((n) => row(n.userId, n.notice, now));
  const signals = [...new Set(notices.map((n) => n.userId))].map((u): UserSignal => ({ u, e: 'notice' }));
  // PostgreSQL: the insert and the signals are one statement, one round trip.
  if (isPg(trx as never)) {
    await insertNoticesAndNotify(
      trx,
      rows,
      USER_EVENTS_CHANNEL,
      signals.map((s) => JSON.stringify(s)),
    );
    return;
  }
  await insertNotices(trx, rows);
  await signalAll(trx, signals);
}

/** The same notice to every account that is not deleted (one row each). Returns how many got it. */
export async function notifyAll(trx: Db, notice: NoticeInput, now = Date.now()): Promise<number> {
  const { user_id: _everyone, ...r } = row(0, notice, now);
  const sent = await insertNoticeForEveryone(trx, r);
  await signal(trx, { u: null, e: 'notice' });
  return sent;
}

/** Tells the player's open event streams that the balance changed; the streams read it after commit. */
export async function balanceMoved(trx: Db, userId: number): Promise<void> {
  await signal(trx, { u: userId, e: 'balance' });
}

/** The player read notices (on one tab): their other streams learn the new unread count. */
export async function signalRead(db: Db, userId: number): Promise<void> {
  await signal(db, { u: userId, e: 'read' });
}

// --- The signal -----------------------------------------------------------------------------

type Listener = (signal: UserSignal) => void;
/** SQLite's bus: one process holds every connection to the file. */
const local = new Set<Listener>();

async function signal(trx: Db, s: UserSignal): Promise<void> {
  await signalAll(trx, [s]);
}

/** Several signals: one statement on PostgreSQL (a round trip per player was most of a big batch's time). */
async function signalAll(trx: Db, signals: readonly UserSignal[]): Promise<void> {
  if (signals.length === 0) return;
  if (isPg(trx as never)) {
    await pgNotify(
      trx,
      USER_EVENTS_CHANNEL,
      signals.map((s) => JSON.stringify(s)),
    );
    return;
  }
  // Heard after this call returns; a listener's read waits for the writer's transaction to end.
  setImmediate(() => {
    for (const s of signals) for (const l of local) l(s);
  });
}

/** Parses a signal from the channel; null for anything else. */
export function parseSignal(payload: string): UserSignal | null {
  try {
    const s = JSON.parse(payload) as Partial<UserSignal>;
    if ((s.u === null || Number.isSafeInteger(s.u)) && (s.e === 'balance' || s.e === 'notice' || s.e === 'read'))
      return { u: s.u ?? null, e: s.e };
  } catch {
    /* not ours */
  }
  return null;
}

/** SQLite only: hear this process's signals (the event streams). Returns an unsubscribe function. */
export function onLocalSignal(listener: Listener): () => void {
  local.add(listener);
  return () => local.delete(listener);
}
