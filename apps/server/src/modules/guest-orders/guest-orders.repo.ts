import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { ON_SALE } from '@kubik/contract';
import type { Db } from '../../db/index.ts';
import type { GuestOrdersTable } from './guest-orders.tables.ts';

export type GuestOrderRow = Selectable<GuestOrdersTable>;

export async function insertOrder(db: Db, values: Insertable<GuestOrdersTable>): Promise<void> {
  await db.insertInto('guest_orders').values(values).execute();
}

export function getOrder(db: Db, id: string): Promise<GuestOrderRow | undefined> {
  return db.selectFrom('guest_orders').selectAll().where('id', '=', id).executeTakeFirst();
}

export function orderOfProvider(db: Db, provider: string, providerPaymentId: string): Promise<GuestOrderRow | undefined> {
  return db
    .selectFrom('guest_orders')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_payment_id', '=', providerPaymentId)
    .executeTakeFirst();
}

export async function updateOrder(db: Db, id: string, set: Updateable<GuestOrdersTable>): Promise<void> {
  await db.updateTable('guest_orders').set(set).where('id', '=', id).execute();
}

/** pending → `to`, once; true when this call moved it. */
export async function settle(db: Db, id: string, to: 'paid' | 'canceled', set: Updateable<GuestOrdersTable>): Promise<boolean> {
  const r = await db
    .updateTable('guest_orders')
    .set({ ...set, status: to })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Pending orders to ask the provider about, those never (or longest ago) asked first. */
export function pendingOrders(db: Db, limit: number): Promise<GuestOrderRow[]> {
  return db
    .selectFrom('guest_orders')
    .selectAll()
    .where('status', '=', 'pending')
    .where('provider_payment_id', 'is not', null)
    .orderBy('checked_at', (o) => o.nullsFirst())
    .limit(limit)
    .execute();
}

/** The account with this name (any case), if there is one. */
export function accountNamed(db: Db, lower: string) {
  return db
    .selectFrom('users')
    .select(['id', 'username'])
    .where('username_lower', '=', lower)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Whether a game server ever reported this name (lower case) as playing, account or not. */
export async function playedHere(db: Db, lower: string): Promise<boolean> {
  const row = await db.selectFrom('game_names').select('name_lower').where('name_lower', '=', lower).executeTakeFirst();
  return row !== undefined;
}

/** Takes `quantity` of a counted item (never below zero); true for an unlimited one or when taken. */
export async function takeStock(db: Db, id: number, quantity: number, now: number): Promise<boolean> {
  const item = await db.selectFrom('shop_items').select('unlimited').where('id', '=', id).executeTakeFirst();
  if (!item) return false;
  if (Number(item.unlimited) === 1) return true;
  const r = await db
    .updateTable('shop_items')
    .set({ count: sql<number>`count - ${quantity}`, updated_at: now })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .where('status', '=', ON_SALE)
    .where('count', '>=', quantity)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A new account takes the guest orders and deliveries of its nickname that no account has. */
export async function attachToAccount(db: Db, userId: number, lower: string): Promise<void> {
  await db.updateTable('guest_orders').set({ user_id: userId }).where('nickname_lower', '=', lower).where('user_id', 'is', null).execute();
  await db
    .updateTable('deliveries')
    .set({ user_id: userId, player_name: null })
    .where('user_id', 'is', null)
    .where('source', '=', 'guest')
    .where(sql<boolean>`lower(player_name) = ${lower}`)
    .execute();
}

/** Paid tier orders that hold their tier for the nickname now: no account took it, not yet ended. */
function holding(db: Db, lower: string, now: number) {
  return db
    .selectFrom('guest_orders')
    .selectAll()
    .where('nickname_lower', '=', lower)
    .where('kind', '=', 'tier')
    .where('status', '=', 'paid')
    .where('privilege_id', 'is', null)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', now);
}

/** A paid tier order that holds its tier for a nickname now (no account took it), other than `exceptId`. */
export function nicknameHolding(db: Db, lower: string, now: number, exceptId = ''): Promise<GuestOrderRow | undefined> {
  return holding(db, lower, now).where('id', '!=', exceptId).executeTakeFirst();
}

/** Tier orders holding a privilege for the nickname still (the account registered with it takes them). */
export function holdingsOf(db: Db, lower: string, now: number): Promise<GuestOrderRow[]> {
  return holding(db, lower, now).execute();
}

/** Tier orders whose held privilege's end has come, the earliest first. */
export function dueHoldings(db: Db, now: number, limit: number): Promise<GuestOrderRow[]> {
  return db
    .selectFrom('guest_orders')
    .selectAll()
    .where('kind', '=', 'tier')
    .where('privilege_id', 'is', null)
    .where('ended_at', 'is', null)
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

/** Ends the order's hold of its tier, once; true when this call ended it. */
export async function endHolding(db: Db, id: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('guest_orders')
    .set({ ended_at: now })
    .where('id', '=', id)
    .where('privilege_id', 'is', null)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The account's privilege takes over the order's hold, once; true when this call moved it. */
export async function handOver(db: Db, id: string, privilegeId: number): Promise<boolean> {
  const r = await db
    .updateTable('guest_orders')
    .set({ privilege_id: privilegeId })
    .where('id', '=', id)
    .where('privilege_id', 'is', null)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
