import type { Insertable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { EmailChangesTable } from './email-change.tables.ts';

/** Address changes (email_changes) and the account rows they change. */

/** Whether another account, deleted ones included, has the address. */
export async function addressTaken(db: Db, email: string, exceptUserId: number): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('email_lower', '=', email.toLowerCase())
    .where('id', '!=', exceptUserId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The player's newest request that still waits for its link. */
export function pendingChangeOf(db: Db, userId: number, now: number) {
  return db
    .selectFrom('email_changes')
    .selectAll()
    .where('user_id', '=', userId)
    .where('confirmed_at', 'is', null)
    .where('cancelled_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** Cancels the player's unconfirmed requests (expired ones too); returns how many. */
export async function cancelUnconfirmed(db: Db, userId: number, now: number): Promise<number> {
  const res = await db
    .updateTable('email_changes')
    .set({ cancelled_at: now })
    .where('user_id', '=', userId)
    .where('confirmed_at', 'is', null)
    .where('cancelled_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

export async function insertChange(trx: Db, row: Insertable<EmailChangesTable>): Promise<void> {
  await trx.insertInto('email_changes').values(row).execute();
}

export function changeByConfirmHash(db: Db, hash: string) {
  return db.selectFrom('email_changes').selectAll().where('confirm_hash', '=', hash).executeTakeFirst();
}

export function changeByCancelHash(db: Db, hash: string) {
  return db.selectFrom('email_changes').selectAll().where('cancel_hash', '=', hash).executeTakeFirst();
}

/** A change's confirmation, as it is now (one may land between a first look and a transaction). */
export async function confirmedAt(trx: Db, id: number): Promise<number | null> {
  const row = await trx.selectFrom('email_changes').select('confirmed_at').where('id', '=', id).executeTakeFirstOrThrow();
  return row.confirmed_at;
}

/** pending → confirmed, once: false when it was confirmed or cancelled meanwhile. */
export async function markConfirmed(trx: Db, id: number, now: number): Promise<boolean> {
  const res = await trx
    .updateTable('email_changes')
    .set({ confirmed_at: now })
    .where('id', '=', id)
    .where('confirmed_at', 'is', null)
    .where('cancelled_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** → cancelled, once (a confirmed change too): false when it was cancelled meanwhile. */
export async function markCancelled(trx: Db, id: number, now: number): Promise<boolean> {
  const res = await trx
    .updateTable('email_changes')
    .set({ cancelled_at: now })
    .where('id', '=', id)
    .where('cancelled_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** The account a change is for, as it is now (deleted ones too). */
export function accountOf(trx: Db, userId: number) {
  return trx
    .selectFrom('users')
    .select(['id', 'username', 'email', 'email_lower', 'deleted_at'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

export async function setAccountEmail(trx: Db, userId: number, email: string): Promise<void> {
  await trx.updateTable('users').set({ email, email_lower: email.toLowerCase() }).where('id', '=', userId).execute();
}

/** Marks the address proven, unless it was already. */
export async function markEmailVerified(trx: Db, userId: number, now: number): Promise<void> {
  await trx.updateTable('users').set({ email_verified_at: now }).where('id', '=', userId).where('email_verified_at', 'is', null).execute();
}

/** A deleted account's pending address change is personal data too (users core: userErased). */
export async function forgetEmailChanges(trx: Db, userId: number): Promise<void> {
  await trx.deleteFrom('email_changes').where('user_id', '=', userId).execute();
}
