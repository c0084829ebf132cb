import type { CustomVoteScheme, VoteKind, VoteLogEntry, VoteOutcome } from '@kubik/contract';
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db, DbKind } from '../../db/index.ts';
import type { VoteSitesTable, VotesTable } from './votes.tables.ts';

export type VoteSiteRow = Selectable<VoteSitesTable>;

/** How many callbacks of each site are kept in its recent list. */
export const RECENT_KEPT = 50;

export interface VoteSite {
  id: number;
  kind: VoteKind;
  title: string;
  url: string;
  secret: string;
  rewardAmount: number;
  rewardCommands: string[];
  serverIds: number[];
  cooldownHours: number;
  custom: CustomVoteScheme | null;
  enabled: boolean;
}

export function toSite(row: VoteSiteRow): VoteSite {
  return {
    id: row.id,
    kind: row.kind as VoteKind,
    title: row.title,
    url: row.url,
    secret: row.secret,
    rewardAmount: Number(row.reward_amount),
    rewardCommands: JSON.parse(row.reward_commands) as string[],
    serverIds: JSON.parse(row.server_ids) as number[],
    cooldownHours: Number(row.cooldown_hours),
    custom: row.custom ? (JSON.parse(row.custom) as CustomVoteScheme) : null,
    enabled: Number(row.enabled) === 1,
  };
}

/** A site by id; `lockOn: 'pg'` locks its row for the caller's transaction (SQLite's one writer needs no lock). */
export async function findSite(db: Db, id: number, lockOn?: DbKind): Promise<VoteSite | null> {
  let q = db.selectFrom('vote_sites').selectAll().where('id', '=', id);
  if (lockOn === 'pg') q = q.forUpdate();
  const row = await q.executeTakeFirst();
  return row ? toSite(row) : null;
}

export async function listSites(db: Db, onlyEnabled: boolean): Promise<VoteSite[]> {
  let q = db.selectFrom('vote_sites').selectAll().orderBy('id');
  if (onlyEnabled) q = q.where('enabled', '=', 1);
  return (await q.execute()).map(toSite);
}

export async function insertSite(db: Db, values: Insertable<VoteSitesTable>): Promise<number> {
  const row = await db.insertInto('vote_sites').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function saveSite(db: Db, id: number, change: Updateable<VoteSitesTable>): Promise<void> {
  await db.updateTable('vote_sites').set(change).where('id', '=', id).execute();
}

export async function switchSiteOff(db: Db, id: number, now: number): Promise<void> {
  await db.updateTable('vote_sites').set({ enabled: 0, updated_at: now }).where('id', '=', id).execute();
}

/** Which of these server ids exist. */
export function existingServerIds(db: Db, ids: number[]) {
  return db.selectFrom('servers').select('id').where('id', 'in', ids).execute();
}

/** A live account by name, ignoring case: whom a top's callback names. */
export function findLivePlayer(db: Db, username: string) {
  return db
    .selectFrom('users')
    .select(['id', 'username'])
    .where('username_lower', '=', username.toLowerCase())
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Records a rewarded vote; a repeated (site, dedupe) fails as a unique violation: a replay. */
export async function insertVote(db: Db, values: Insertable<VotesTable>): Promise<number> {
  const row = await db.insertInto('votes').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** A player's rewarded votes in [start, end). */
export async function countVotes(db: Db, userId: number, start: number, end: number): Promise<number> {
  const count = await db
    .selectFrom('votes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('created_at', '>=', start)
    .where('created_at', '<', end)
    .executeTakeFirst();
  return Number(count?.n ?? 0);
}

/** The sites where the player's cooldown still runs at `now`, with its end. */
export function runningCooldowns(db: Db, userId: number, now: number) {
  return db.selectFrom('vote_cooldowns').select(['site_id', 'next_at']).where('user_id', '=', userId).where('next_at', '>', now).execute();
}

/** Counts the callback and keeps it in the site's recent list, dropping what falls past RECENT_KEPT. */
export async function logCallback(
  db: Db,
  entry: { siteId: number; outcome: VoteOutcome; username: string | null; ip: string | null; now: number },
): Promise<void> {
  await db
    .insertInto('vote_log_counts')
    .values({ site_id: entry.siteId, outcome: entry.outcome, count: 1 })
    .onConflict((oc) => oc.columns(['site_id', 'outcome']).doUpdateSet({ count: sql`vote_log_counts.count + 1` }))
    .execute();
  await db
    .insertInto('vote_log')
    .values({
      site_id: entry.siteId,
      outcome: entry.outcome,
      username: entry.username?.slice(0, 64) ?? null,
      ip: entry.ip?.slice(0, 64) ?? null,
      created_at: entry.now,
    })
    .execute();
  const edge = await db
    .selectFrom('vote_log')
    .select('id')
    .where('site_id', '=', entry.siteId)
    .orderBy('id', 'desc')
    .limit(1)
    .offset(RECENT_KEPT)
    .executeTakeFirst();
  if (edge) await db.deleteFrom('vote_log').where('site_id', '=', entry.siteId).where('id', '<=', edge.id).execute();
}

export async function siteLog(
  db: Db,
  siteIds: number[],
): Promise<Map<number, { counts: Partial<Record<VoteOutcome, number>>; recent: VoteLogEntry[] }>> {
  const out = new Map<number, { counts: Partial<Record<VoteOutcome, number>>; recent: VoteLogEntry[] }>();
  for (const id of siteIds) out.set(id, { counts: {}, recent: [] });
  if (siteIds.length === 0) return out;
  const counts = await db.selectFrom('vote_log_counts').selectAll().where('site_id', 'in', siteIds).execute();
  for (const c of counts) out.get(c.site_id)!.counts[c.outcome as VoteOutcome] = Number(c.count);
  const recent = await db.selectFrom('vote_log').selectAll().where('site_id', 'in', siteIds).orderBy('id', 'desc').execute();
  for (const r of recent)
    out.get(r.site_id)!.recent.push({
      outcome: r.outcome as VoteOutcome,
      username: r.username,
      ip: r.ip,
      at: new Date(Number(r.created_at)).toISOString(),
    });
  return out;
}

/**
 * Takes the player's reward slot on a site: true when the cooldown had passed (or never began),
 * and then the next one starts. One conditional upsert, so of two instances racing one wins.
 */
export async function takeCooldown(trx: Db, siteId: number, userId: number, now: number, nextAt: number): Promise<boolean> {
  const row = await trx
    .insertInto('vote_cooldowns')
    .values({ site_id: siteId, user_id: userId, next_at: nextAt })
    .onConflict((oc) => oc.columns(['site_id', 'user_id']).doUpdateSet({ next_at: nextAt }).where('vote_cooldowns.next_at', '<=', now))
    .returning('next_at')
    .executeTakeFirst();
  return row !== undefined;
}

/** Rewarded votes per player in [start, end), most first; ties go to whoever got there first. */
export async function topVoters(
  db: Db,
  start: number,
  end: number,
  limit: number,
): Promise<{ userId: number; username: string; votes: number }[]> {
  const rows = await db
    .selectFrom('votes')
    .innerJoin('users', 'users.id', 'votes.user_id')
    .select(['votes.user_id', 'users.username', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.max('votes.id').as('last_id')])
    .where('votes.created_at', '>=', start)
    .where('votes.created_at', '<', end)
    .where('users.deleted_at', 'is', null)
    .groupBy(['votes.user_id', 'users.username'])
    .orderBy('n', 'desc')
    .orderBy('last_id', 'asc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ userId: r.user_id, username: r.username, votes: Number(r.n) }));
}

/** Whether the month's (YYYY-MM) prizes were paid. */
export async function prizesPaid(db: Db, month: string): Promise<boolean> {
  const row = await db.selectFrom('vote_prize_payouts').select('month').where('month', '=', month).executeTakeFirst();
  return row !== undefined;
}

/**
 * Claims the month's payout before anything is paid: the month is the primary key, so a second
 * pass or instance fails here with a unique violation and pays nothing.
 */
export async function startPrizePayout(db: Db, month: string, now: number): Promise<void> {
  await db.insertInto('vote_prize_payouts').values({ month, paid_at: now, winners: '[]' }).execute();
}

export async function recordPrizeWinners(
  db: Db,
  month: string,
  winners: { place: number; userId: number; amount: number }[],
): Promise<void> {
  await db
    .updateTable('vote_prize_payouts')
    .set({ winners: JSON.stringify(winners) })
    .where('month', '=', month)
    .execute();
}
