import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { PromoUsesTable, PurchaseKeysTable } from './purchases.tables.ts';

/** The purchases core's queries: the payer's lock, Idempotency-Keys, gift recipients and promo codes. */

/**
 * Locks the player's row until the transaction ends (PostgreSQL only; SQLite runs one write
 * transaction at a time already). FOR NO KEY UPDATE, not FOR UPDATE: the purchase key written
 * just before references the user, and that foreign key holds a KEY SHARE lock on the row; two
 * purchases of one player both holding it and both asking FOR UPDATE deadlocked (the cluster test
 * under load). NO KEY UPDATE does not conflict with KEY SHARE and still queues the player's
 * purchases one after another, as the balance UPDATE's own lock does.
 */
export async function lockPlayerRow(trx: Db, userId: number): Promise<void> {
  await trx.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().execute();
}

// --- Idempotency-Keys ---------------------------------------------------------------------------

export function findPurchaseKey(db: Db, userId: number, key: string) {
  return db
    .selectFrom('purchase_keys')
    .select(['request', 'response'])
    .where('user_id', '=', userId)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** A key the previous release kept in its own table, if it was written since `since`. */
export function findLegacyKey(db: Db, table: 'shop_idempotency' | 'privilege_idempotency', userId: number, key: string, since: number) {
  return db
    .selectFrom(table)
    .select(['request', 'response'])
    .where('user_id', '=', userId)
    .where('key', '=', key)
    .where('created_at', '>=', since)
    .executeTakeFirst();
}

/** Written first in the purchase's transaction: a concurrent request with the same key waits on it (PostgreSQL) or fails on it (SQLite). */
export async function insertPurchaseKey(trx: Db, row: Insertable<PurchaseKeysTable>): Promise<void> {
  await trx.insertInto('purchase_keys').values(row).execute();
}

export async function savePurchaseAnswer(trx: Db, userId: number, key: string, response: string): Promise<void> {
  await trx.updateTable('purchase_keys').set({ response }).where('user_id', '=', userId).where('key', '=', key).execute();
}

export async function deleteKeysBefore(db: Db, before: number): Promise<void> {
  await db.deleteFrom('purchase_keys').where('created_at', '<', before).execute();
}

// --- Gifts --------------------------------------------------------------------------------------

/** An account that is not deleted, by its lower-cased name, with its ban. */
export function activeUserByName(db: Db, nameLower: string) {
  return db
    .selectFrom('users')
    .select(['id', 'username', 'email', 'banned_at', 'ban_until', 'ban_reason', 'deleted_at'])
    .where('username_lower', '=', nameLower)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

// --- Promo codes --------------------------------------------------------------------------------

export function promoByKey(db: Db, codeKey: string) {
  return db.selectFrom('promo_codes').selectAll().where('code_key', '=', codeKey).executeTakeFirst();
}

export function promoById(db: Db, id: number) {
  return db.selectFrom('promo_codes').selectAll().where('id', '=', id).executeTakeFirst();
}

/** How many times the player has used the code. */
export async function promoUsesBy(db: Db, promoId: number, userId: number): Promise<number> {
  const row = await db
    .selectFrom('promo_uses')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('promo_id', '=', promoId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Counts one use of the code, conditionally: false once max_uses is reached (or the code was
 * disabled), so however many race for the last uses exactly that many get them.
 */
export async function takePromoUse(trx: Db, promoId: number, now: number): Promise<boolean> {
  const taken = await trx
    .updateTable('promo_codes')
    .set({ uses: sql<number>`uses + 1`, updated_at: now })
    .where('id', '=', promoId)
    .where('disabled_at', 'is', null)
    .where((eb) => eb.or([eb('max_uses', 'is', null), eb('uses', '<', eb.ref('max_uses'))]))
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

/** Who used a code for what; returns the row's id. */
export async function insertPromoUse(trx: Db, row: Insertable<PromoUsesTable>): Promise<number> {
  const use = await trx.insertInto('promo_uses').values(row).returning('id').executeTakeFirstOrThrow();
  return use.id;
}

/** Names what a use bought once the purchase's rows exist (`order:12,order:13`). */
export async function setPromoUseRef(trx: Db, useId: number, ref: string): Promise<void> {
  await trx.updateTable('promo_uses').set({ ref }).where('id', '=', useId).execute();
}

/** The buyer's name, for the purchase's announcement. */
export async function buyerName(db: Db, userId: number): Promise<string | undefined> {
  return (await db.selectFrom('users').select('username').where('id', '=', userId).executeTakeFirst())?.username;
}
