import type { DeliverySource, DeliveryState } from '@kubik/contract';
import { sql, type Insertable, type Selectable, type UpdateObject } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { Database } from '../../db/types.ts';
import type { DeliveriesTable } from './deliveries.tables.ts';

/**
 * The delivery queue's reads and the admin's and player's lists. Claiming rows and writing what
 * became of them are use cases of their own: deliveries.claims.ts and deliveries.outcomes.ts.
 */

/** A game server as deliveries see it (the servers feature owns the table). */
export type ServerRow = Selectable<Database['servers']>;

/**
 * Servers with an RCON password or delivering through the AzLink plugin, in the owner's order
 * (whether an RCON server also has an address is the caller's check).
 */
export function serversWithRconPassword(db: Db) {
  return db
    .selectFrom('servers')
    .select(['id', 'rcon_password', 'rcon_host', 'ip_address', 'delivery_channel', 'link_token_hash'])
    .where((eb) =>
      eb.or([eb('rcon_password', 'is not', null), eb.and([eb('delivery_channel', '=', 'plugin'), eb('link_token_hash', 'is not', null)])]),
    )
    .orderBy('sort_order')
    .orderBy('id')
    .execute();
}

/** What a worker needs to send to one server. */
export function serverForDelivery(db: Db, id: number) {
  return db
    .selectFrom('servers')
    .select([
      'id',
      'name',
      'ip_address',
      'rcon_host',
      'rcon_port',
      'rcon_password',
      'command_template',
      'delivery_channel',
      'link_token_hash',
    ])
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function serverExists(db: Db, id: number): Promise<boolean> {
  return (await db.selectFrom('servers').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** Several rows in one insert; returns their ids in order. */
export async function insertDeliveries(trx: Db, rows: Insertable<DeliveriesTable>[]): Promise<number[]> {
  const inserted = await trx.insertInto('deliveries').values(rows).returning('id').execute();
  return inserted.map((r) => r.id);
}

/** How many rows are in each state (the metrics). */
export function countByState(db: Db) {
  return db
    .selectFrom('deliveries')
    .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('state')
    .execute();
}

// --- The admin's list ---------------------------------------------------------------------------

/** A row with its player, server and (for the shop) order, as the admin's list shows it. */
function adminRows(db: Db) {
  return db
    .selectFrom('deliveries as d')
    .leftJoin('users as u', 'u.id', 'd.user_id')
    .leftJoin('servers as s', 's.id', 'd.server_id')
    .leftJoin('shop_orders as o', (j) => j.onRef('o.id', '=', 'd.source_id').on('d.source', '=', 'shop'))
    .select([
      'd.id',
      'd.source',
      'd.source_id',
      'd.user_id',
      'u.username',
      'd.label',
      'o.item_name',
      'o.item_id_minecraft',
      'd.quantity',
      sql<number | null>`o.price * d.quantity`.as('amount'),
      'd.server_id',
      's.name as server_name',
      'd.server_scope',
      'd.state',
      'd.waiting',
      'd.commands',
      'd.step',
      'd.attempts',
      'd.command',
      'd.reply',
      'd.last_error',
      'd.next_attempt_at',
      'd.sent_at',
      'd.done_at',
      'd.channel',
      'd.created_at',
      'd.updated_at',
    ]);
}

export type AdminDeliveryRow = Awaited<ReturnType<ReturnType<typeof adminRows>['executeTakeFirstOrThrow']>>;

/** Newest first, `limit` at most, of one state or source when given. */
export function listAdminRows(
  db: Db,
  filter: { state?: DeliveryState | undefined; source?: DeliverySource | undefined; limit: number },
): Promise<AdminDeliveryRow[]> {
  let q = adminRows(db).orderBy('d.id', 'desc').limit(filter.limit);
  if (filter.state) q = q.where('d.state', '=', filter.state);
  if (filter.source) q = q.where('d.source', '=', filter.source);
  return q.execute();
}

export function findAdminRow(db: Db, id: number): Promise<AdminDeliveryRow | undefined> {
  return adminRows(db).where('d.id', '=', id).executeTakeFirst();
}

// --- «Выдать повторно» --------------------------------------------------------------------------

/** What a resend changes, as it was before (the audit's «before»). */
export function resendState(trx: Db, id: number) {
  return trx
    .selectFrom('deliveries')
    .select(['state', 'server_id', 'server_scope', 'attempts', 'reply', 'last_error'])
    .where('id', '=', id)
    .executeTakeFirst();
}

type ServerMove = Pick<UpdateObject<Database, 'deliveries'>, 'server_id' | 'server_scope'>;

/**
 * A failed or unknown row, or one handed to the AzLink plugin (which never confirms), goes back to
 * the queue, due now and unclaimed; false in any other state.
 */
export async function requeue(trx: Db, id: number, server: ServerMove, now: number): Promise<boolean> {
  const res = await trx
    .updateTable('deliveries')
    .set({
      ...server,
      state: 'pending',
      waiting: null,
      retries: 0,
      next_attempt_at: now,
      lock_token: null,
      locked_until: null,
      last_error: null,
      channel: null,
      updated_at: now,
    })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('state', 'in', ['failed', 'unknown']), eb.and([eb('state', '=', 'done'), eb('channel', '=', 'plugin')])]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * A pending row becomes due now (and moves to `server`); its claim is left alone, since a worker
 * may hold the row at this moment. False when the row is not pending.
 */
export async function hurry(trx: Db, id: number, server: ServerMove, now: number): Promise<boolean> {
  const res = await trx
    .updateTable('deliveries')
    .set({ ...server, retries: 0, next_attempt_at: now, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

// --- The player's view --------------------------------------------------------------------------

function playerRows(db: Db) {
  return db
    .selectFrom('deliveries as d')
    .leftJoin('servers as s', 's.id', 'd.server_id')
    .select([
      'd.id',
      'd.source',
      'd.source_id',
      'd.label',
      'd.quantity',
      's.name as server_name',
      'd.state',
      'd.waiting',
      'd.created_at',
      'd.updated_at',
    ]);
}

export type PlayerDeliveryRow = Awaited<ReturnType<ReturnType<typeof playerRows>['executeTakeFirstOrThrow']>>;

/** A player's rows of every source, newest first. */
export function playerRowsOf(db: Db, userId: number, limit: number): Promise<PlayerDeliveryRow[]> {
  return playerRows(db).where('d.user_id', '=', userId).orderBy('d.id', 'desc').limit(limit).execute();
}

/** The rows of some source rows (a shop's orders, a player's privileges), oldest first. */
export function playerRowsOfSources(db: Db, source: DeliverySource, sourceIds: number[]): Promise<PlayerDeliveryRow[]> {
  return playerRows(db).where('d.source', '=', source).where('d.source_id', 'in', sourceIds).orderBy('d.id').execute();
}

export function playerRowsById(db: Db, ids: number[]): Promise<PlayerDeliveryRow[]> {
  return playerRows(db).where('d.id', 'in', ids).execute();
}
