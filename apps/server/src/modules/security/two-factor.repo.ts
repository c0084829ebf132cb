import type { Db } from '../../db/index.ts';

/** An account's authenticator (two_factor) and its recovery codes (two_factor_recovery). */

export function twoFactorOf(db: Db, userId: number) {
  return db.selectFrom('two_factor').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

export async function isTwoFactorOn(db: Db, userId: number): Promise<boolean> {
  const row = await db
    .selectFrom('two_factor')
    .select('user_id')
    .where('user_id', '=', userId)
    .where('enabled_at', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Accepts a code of `step`, once: only a step later than the last accepted one moves it, so of
 * two logins with one code at the same moment one gets false.
 */
export async function acceptStep(db: Db, userId: number, step: number): Promise<boolean> {
  const res = await db
    .updateTable('two_factor')
    .set({ last_step: step })
    .where('user_id', '=', userId)
    .where('enabled_at', 'is not', null)
    .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Uses up a recovery code by its hash, once: false when there is no such unused code. */
export async function useRecoveryCode(db: Db, userId: number, codeHash: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('two_factor_recovery')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function recoveryCodesLeft(db: Db, userId: number): Promise<number> {
  const row = await db
    .selectFrom('two_factor_recovery')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** A new secret waiting for its first code; replaces an earlier pending one (the confirmed one stays). */
export async function savePendingSecret(db: Db, userId: number, sealed: string, now: number): Promise<void> {
  await db
    .insertInto('two_factor')
    .values({ user_id: userId, secret: null, pending_secret: sealed, pending_at: now, enabled_at: null, last_step: null })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ pending_secret: sealed, pending_at: now }))
    .execute();
}

/**
 * The pending secret becomes the one in force, with the step of the code that confirmed it; only
 * if it is still the one read and two-factor is still off (another tab may have moved either).
 */
export async function confirmPendingSecret(trx: Db, userId: number, pendingSecret: string, now: number, step: number): Promise<boolean> {
  const res = await trx
    .updateTable('two_factor')
    .set({ secret: pendingSecret, pending_secret: null, pending_at: null, enabled_at: now, last_step: step })
    .where('user_id', '=', userId)
    .where('enabled_at', 'is', null)
    .where('pending_secret', '=', pendingSecret)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** The account's recovery codes become these (by their hashes). */
export async function replaceRecoveryCodes(trx: Db, userId: number, codeHashes: string[]): Promise<void> {
  await trx.deleteFrom('two_factor_recovery').where('user_id', '=', userId).execute();
  await trx
    .insertInto('two_factor_recovery')
    .values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash, used_at: null })))
    .execute();
}

/** Removes the player's authenticator and recovery codes (turned off, reset by an administrator, account deleted: userErased). */
export async function forgetTwoFactor(trx: Db, userId: number): Promise<void> {
  await trx.deleteFrom('two_factor_recovery').where('user_id', '=', userId).execute();
  await trx.deleteFrom('two_factor').where('user_id', '=', userId).execute();
}

/** The account an administrator resets, not deleted, with what the owner-only rule needs. */
export function accountToReset(db: Db, userId: number) {
  return db
    .selectFrom('users')
    .select(['id', 'username', 'email', 'is_admin', 'role_id'])
    .where('id', '=', userId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}
