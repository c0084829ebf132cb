import { sql } from 'kysely';
import type { Updateable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { UsersTable } from '../../db/types.ts';
import type { User } from '../users/users.repo.ts';

export function listActiveUsers(db: Db): Promise<User[]> {
  return db.selectFrom('users').selectAll().where('deleted_at', 'is', null).orderBy('id').execute();
}

/** Which of the name and address another account (deleted ones included) already uses. */
export async function takenByOther(
  db: Db,
  id: number,
  username: string | undefined,
  email: string | undefined,
): Promise<'email' | 'username' | null> {
  const name = username?.toLowerCase();
  const mail = email?.toLowerCase();
  if (!name && !mail) return null;
  const rows = await db
    .selectFrom('users')
    .select(['username_lower', 'email_lower'])
    .where('id', '!=', id)
    .where((eb) => eb.or([...(mail ? [eb('email_lower', '=', mail)] : []), ...(name ? [eb('username_lower', '=', name)] : [])]))
    .execute();
  if (mail && rows.some((r) => r.email_lower === mail)) return 'email';
  if (rows.length > 0) return 'username';
  return null;
}

export async function updateUser(db: Db, id: number, values: Updateable<UsersTable>): Promise<void> {
  await db.updateTable('users').set(values).where('id', '=', id).execute();
}

/** `%text%` for LIKE, with the wildcards of the text itself escaped (both databases take ESCAPE '\'). */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * One page of active users, newest first, matching `q` in the name or address (case-insensitive,
 * on the lower-cased columns) or, when `q` is a number, the id; and how many match in all.
 */
export async function searchActiveUsers(db: Db, q: string, page: number, perPage: number): Promise<{ rows: User[]; total: number }> {
  let query = db.selectFrom('users').where('deleted_at', 'is', null);
  if (q) {
    const pattern = containing(q.toLowerCase());
    const id = /^\d{1,9}$/.test(q) ? Number(q) : null;
    query = query.where((eb) =>
      eb.or([
        eb(sql`username_lower`, 'like', sql`${pattern} escape '\\'`),
        eb(sql`email_lower`, 'like', sql`${pattern} escape '\\'`),
        ...(id !== null ? [eb('id', '=', id)] : []),
      ]),
    );
  }
  const [rows, count] = await Promise.all([
    query
      .selectAll()
      .orderBy('id', 'desc')
      .limit(perPage)
      .offset((page - 1) * perPage)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export function ordersOf(db: Db, userId: number, limit: number) {
  return db
    .selectFrom('shop_orders')
    .select(['id', 'item_name', 'quantity', 'total', 'created_at'])
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The deliveries of these shop orders: the card shows the worst state of each order's. */
export async function deliveryStatesOf(db: Db, orderIds: number[]): Promise<{ source_id: number | null; state: string }[]> {
  if (orderIds.length === 0) return [];
  return db
    .selectFrom('deliveries')
    .select(['source_id', 'state'])
    .where('source', '=', 'shop')
    .where('source_id', 'in', orderIds)
    .execute();
}

export function ledgerOf(db: Db, userId: number, limit: number) {
  return db
    .selectFrom('ledger')
    .leftJoin('users as author', 'author.id', 'ledger.author_id')
    .select(['ledger.id', 'ledger.amount', 'ledger.reason', 'ledger.note', 'ledger.created_at', 'author.username as author'])
    .where('ledger.user_id', '=', userId)
    .orderBy('ledger.id', 'desc')
    .limit(limit)
    .execute();
}

export function sessionsOf(db: Db, userId: number, now: number) {
  return db
    .selectFrom('sessions')
    .select(['created_at', 'expires_at', 'user_agent', 'ip'])
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .limit(20)
    .execute();
}

export function privilegesOf(db: Db, userId: number) {
  return db
    .selectFrom('privileges')
    .select(['tier_title', 'expires_at', 'ended_at'])
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .limit(20)
    .execute();
}
