import { AZLINK_ONLINE_MS } from '@kubik/contract';
import { sql, type ExpressionBuilder, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db, DbKind } from '../../db/index.ts';
import type { Database } from '../../db/types.ts';
import type { ServerStatus } from '../../lib/minecraft/status.ts';
import type { ServersTable } from './servers.tables.ts';

export type ServerRow = Selectable<ServersTable>;

/** What a status check needs of a server: where to ask. */
export type CheckTarget = Pick<ServerRow, 'id' | 'ip_address' | 'port'>;

// --- The list and the admin's form ----------------------------------------------------------

/** Every server in the admin's order. */
export function serversInOrder(db: Db): Promise<ServerRow[]> {
  return db.selectFrom('servers').selectAll().orderBy('sort_order').orderBy('id').execute();
}

/** A server's row; `lockOn: 'pg'` locks it for the caller's transaction (SQLite's one writer needs no lock). */
export function findServerRow(db: Db, id: number, lockOn?: DbKind): Promise<ServerRow | undefined> {
  let q = db.selectFrom('servers').selectAll().where('id', '=', id);
  if (lockOn === 'pg') q = q.forUpdate();
  return q.executeTakeFirst();
}

export function insertServerRow(db: Db, values: Insertable<ServersTable>): Promise<ServerRow> {
  return db.insertInto('servers').values(values).returningAll().executeTakeFirstOrThrow();
}

export function saveServer(db: Db, id: number, change: Updateable<ServersTable>): Promise<ServerRow> {
  return db.updateTable('servers').set(change).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Deletes the server with its online history; a foreign key elsewhere that still names it fails the delete. */
export async function deleteServerRow(db: Db, id: number): Promise<void> {
  await db.deleteFrom('server_online_history').where('server_id', '=', id).execute();
  await db.deleteFrom('servers').where('id', '=', id).execute();
}

export function faviconOf(db: Db, id: number) {
  return db.selectFrom('servers').select('favicon').where('id', '=', id).executeTakeFirst();
}

// --- Online history -------------------------------------------------------------------------

// Bucket bounds are inlined as integer literals: SQLite binds JS numbers as REAL, which would make
// the division fractional.

/** Peak players online per `step` since `start`, for every server at once: bucket n starts at start + n·step. */
export function peaksOfAll(db: Db, start: number, step: number) {
  return db
    .selectFrom(
      db
        .selectFrom('server_online_history')
        .select(['server_id', 'online', sql<number>`(at - ${sql.lit(start)}) / ${sql.lit(step)}`.as('bucket')])
        .where('at', '>=', start)
        .as('h'),
    )
    .select(['server_id', 'bucket', (eb) => eb.fn.max('online').as('peak')])
    .groupBy(['server_id', 'bucket'])
    .execute();
}

/** Peak players online of one server per `step` since `from`, oldest first: bucket n starts at from + n·step. */
export function peaksOf(db: Db, id: number, from: number, step: number) {
  return db
    .selectFrom(
      db
        .selectFrom('server_online_history')
        .select(['online', sql<number>`(at - ${sql.lit(from)}) / ${sql.lit(step)}`.as('bucket')])
        .where('server_id', '=', id)
        .where('at', '>=', from)
        .as('h'),
    )
    .select(['bucket', (eb) => eb.fn.max('online').as('peak')])
    .groupBy('bucket')
    .orderBy('bucket')
    .execute();
}

/** One check's reading (with the plugin's TPS, RAM and CPU when it sent them); fails when the server was deleted while it was being checked. */
export async function addHistoryPoint(
  db: Db,
  serverId: number,
  at: number,
  online: number | null,
  load?: { tps: number | null; ram: number | null; cpu: number | null },
): Promise<void> {
  await db
    .insertInto('server_online_history')
    .values({ server_id: serverId, at, online, ...(load && { tps: load.tps, ram: load.ram, cpu: load.cpu }) })
    .execute();
}

/** Drops every reading older than `before`; returns how many. */
export async function dropHistoryBefore(db: Db, before: number): Promise<number> {
  const dropped = await db.deleteFrom('server_online_history').where('at', '<', before).executeTakeFirst();
  return Number(dropped.numDeletedRows);
}

/** Keeps, of the readings older than `cutoff`, only each server's peak of each hour; returns how many went. */
export async function thinHistoryBefore(db: Db, cutoff: number): Promise<number> {
  const thinned = await sql`
    delete from server_online_history
    where at < ${cutoff}
      and id not in (
        select id from (
          select id, row_number() over (partition by server_id, at / 3600000 order by coalesce(online, -1) desc, id) as rn
          from server_online_history
          where at < ${cutoff}
        ) ranked
        where rn = 1
      )`.execute(db);
  return Number(thinned.numAffectedRows ?? 0);
}

// --- The monitor's claims and readings ------------------------------------------------------

export async function countServers(db: Db): Promise<number> {
  const total = await db
    .selectFrom('servers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(total.n);
}

/** How many servers there are and how many of them are online. */
export async function onlineCounts(db: Db): Promise<{ total: number; online: number }> {
  const counts = await db
    .selectFrom('servers')
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      eb.fn.sum<number>(sql`case when status = 'online' then 1 else 0 end`).as('online'),
    ])
    .executeTakeFirstOrThrow();
  return { total: Number(counts.total), online: Number(counts.online ?? 0) };
}

/** The server's name and status before a check records its result: whether it went down or came back. */
export function statusBefore(db: Db, id: number) {
  return db.selectFrom('servers').select(['name', 'status', 'fail_count']).where('id', '=', id).executeTakeFirst();
}

export function checkTarget(db: Db, id: number): Promise<CheckTarget | undefined> {
  return db.selectFrom('servers').select(['id', 'ip_address', 'port']).where('id', '=', id).executeTakeFirst();
}

/**
 * Not being checked by anyone (an expired claim counts as none), not reported on by its AzLink
 * plugin lately (that report is the server's status) and, when `staleBefore` is given, due.
 */
function claimable(now: number, staleBefore: number | null) {
  return (eb: ExpressionBuilder<Database, 'servers'>) =>
    eb.and([
      eb.or([eb('checking_until', 'is', null), eb('checking_until', '<', now)]),
      eb.or([eb('link_data_at', 'is', null), eb('link_data_at', '<=', now - AZLINK_ONLINE_MS)]),
      ...(staleBefore === null ? [] : [eb.or([eb('last_checked_at', 'is', null), eb('last_checked_at', '<=', staleBefore)])]),
    ]);
}

/**
 * Claims every claimable server until `until` in one statement, so that all checks of a sweep
 * start together instead of each waiting for its own claim behind the others' writes.
 */
export function claimDueServers(db: Db, now: number, staleBefore: number | null, until: number): Promise<CheckTarget[]> {
  return db
    .updateTable('servers')
    .set({ checking_until: until })
    .where(claimable(now, staleBefore))
    .returning(['id', 'ip_address', 'port'])
    .execute();
}

/** Claims one server until `until`; false when another check holds it (or, with `staleBefore`, it is not due). */
export async function claimServer(db: Db, id: number, now: number, staleBefore: number | null, until: number): Promise<boolean> {
  const res = await db
    .updateTable('servers')
    .set({ checking_until: until })
    .where('id', '=', id)
    .where(claimable(now, staleBefore))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function releaseClaims(db: Db, ids: number[]): Promise<void> {
  await db.updateTable('servers').set({ checking_until: null }).where('id', 'in', ids).execute();
}

export async function releaseClaim(db: Db, id: number): Promise<void> {
  await db.updateTable('servers').set({ checking_until: null }).where('id', '=', id).execute();
}

/** Only if the address is still the one checked: an edit in between resets the readings. */
const sameAddress = (db: Db, target: CheckTarget) =>
  db.updateTable('servers').where('id', '=', target.id).where('ip_address', '=', target.ip_address).where('port', '=', target.port);

/** Stores a successful check and frees the claim; false when the server's address changed or it is gone. */
export async function recordOnline(db: Db, target: CheckTarget, status: ServerStatus, at: number): Promise<boolean> {
  const res = await sameAddress(db, target)
    .set({
      status: 'online',
      online: status.online,
      reported_max: status.max > 0 ? status.max : null,
      fail_count: 0,
      version: status.version,
      motd: status.motd || null,
      favicon: status.favicon,
      players_sample: JSON.stringify(status.sample),
      last_error: null,
      last_checked_at: at,
      checking_until: null,
    })
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * Counts a failed check and frees the claim; the server turns offline at `failsToOffline` failures
 * in a row. False when the server's address changed or it is gone.
 */
export async function recordFailedCheck(db: Db, target: CheckTarget, error: string, at: number, failsToOffline: number): Promise<boolean> {
  const res = await sameAddress(db, target)
    .set({
      fail_count: sql<number>`fail_count + 1`,
      // SET reads the row as it was, so fail_count here is the count before this failure.
      status: sql<string>`case when fail_count + 1 >= ${sql.lit(failsToOffline)} then 'offline' else status end`,
      online: sql<number>`case when fail_count + 1 >= ${sql.lit(failsToOffline)} then 0 else online end`,
      last_error: error,
      last_checked_at: at,
      checking_until: null,
    })
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

// --- The AzLink plugin's link ---------------------------------------------------------------

/** The linked server whose token has this hash. */
/** What a call of the plugin needs of its server: not the favicon, the players' list or RCON's settings. */
export const LINK_CALLER_COLUMNS = [
  'id',
  'status',
  'online',
  'players_sample',
  'link_data_at',
  'link_token_hash',
  'link_accounts',
  'delivery_channel',
  'command_template',
] as const;
export type LinkCaller = Pick<ServerRow, (typeof LINK_CALLER_COLUMNS)[number]>;

export function serverByLinkHash(db: Db, hash: string): Promise<LinkCaller | undefined> {
  return db.selectFrom('servers').select(LINK_CALLER_COLUMNS).where('link_token_hash', '=', hash).executeTakeFirst();
}

/** Writes what the plugin's call says, without reading the row back. */
export async function updateServerRow(db: Db, id: number, change: Updateable<ServersTable>): Promise<void> {
  await db.updateTable('servers').set(change).where('id', '=', id).execute();
}

/**
 * What the plugin's fetch reports: the server's row and, when `point` is given, a history point.
 * On PostgreSQL both are one statement (the update in a WITH), one round trip.
 */
export async function recordReport(
  db: Db,
  kind: DbKind,
  id: number,
  change: Updateable<ServersTable>,
  point: { at: number; online: number; load?: { tps: number | null; ram: number | null; cpu: number | null } } | null,
): Promise<void> {
  if (!point || kind !== 'pg') {
    await updateServerRow(db, id, change);
    if (point) await addHistoryPoint(db, id, point.at, point.online, point.load);
    return;
  }
  const real = (v: number | null | undefined) => sql<number | null>`cast(${v ?? null} as double precision)`;
  await db
    .with('s', (qb) => qb.updateTable('servers').set(change).where('id', '=', id).returning('id'))
    .insertInto('server_online_history')
    .columns(['server_id', 'at', 'online', 'tps', 'ram', 'cpu'])
    .expression((eb) =>
      eb
        .selectFrom('s')
        .select([
          's.id',
          sql<number>`cast(${point.at} as bigint)`.as('at'),
          sql<number>`cast(${point.online} as integer)`.as('online'),
          real(point.load?.tps).as('tps'),
          real(point.load?.ram).as('ram'),
          real(point.load?.cpu).as('cpu'),
        ]),
    )
    .execute();
}

// --- Accounts from the game (AzLink's register/email/password) ------------------------------

const accountColumns = ['id', 'username', 'email', 'uuid', 'is_admin', 'role_id'] as const;

export function accountByUuid(db: Db, uuid: string) {
  return db.selectFrom('users').select(accountColumns).where('uuid', '=', uuid).where('deleted_at', 'is', null).executeTakeFirst();
}

export function accountByName(db: Db, nameLower: string) {
  return db.selectFrom('users').select(accountColumns).where('username_lower', '=', nameLower).executeTakeFirst();
}

export function accountByEmail(db: Db, emailLower: string) {
  return db.selectFrom('users').select(accountColumns).where('email_lower', '=', emailLower).executeTakeFirst();
}

export async function insertAccount(db: Db, values: Insertable<Database['users']>): Promise<number> {
  return (await db.insertInto('users').values(values).returning('id').executeTakeFirstOrThrow()).id;
}

export async function setAccountPassword(db: Db, id: number, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', id).execute();
}

export async function setAccountEmail(db: Db, id: number, email: string): Promise<void> {
  await db.updateTable('users').set({ email, email_lower: email.toLowerCase(), email_verified_at: null }).where('id', '=', id).execute();
}
