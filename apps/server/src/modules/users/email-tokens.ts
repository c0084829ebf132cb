import type { Db } from '../../db/index.ts';
import { hashToken } from '../../lib/tokens.ts';

/** Links sent by e-mail that prove the address: confirming it ('verify') and setting a new password ('reset'). Stored as hashes. */

export async function createEmailToken(db: Db, userId: number, kind: 'verify' | 'reset', token: string, ttlMs: number): Promise<void> {
  const now = Date.now();
  await db
    .insertInto('email_tokens')
    .values({ user_id: userId, kind, token_hash: hashToken(token), created_at: now, expires_at: now + ttlMs, used_at: null })
    .execute();
}

/** The user of a valid, unused token of this kind, without using it up; null when there is none. */
export async function findEmailTokenUser(db: Db, kind: 'verify' | 'reset', token: string, now = Date.now()): Promise<number | null> {
  const row = await db
    .selectFrom('email_tokens')
    .select('user_id')
    .where('token_hash', '=', hashToken(token))
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.user_id ?? null;
}

/**
 * Marks a valid, unused token of this kind as used and returns its user id. The conditional
 * update makes a link single-use even when it is opened twice at the same moment.
 */
export async function consumeEmailToken(db: Db, kind: 'verify' | 'reset', token: string, now = Date.now()): Promise<number | null> {
  const row = await db
    .selectFrom('email_tokens')
    .select(['id', 'user_id'])
    .where('token_hash', '=', hashToken(token))
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return null;
  const res = await db
    .updateTable('email_tokens')
    .set({ used_at: now })
    .where('id', '=', row.id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1 ? row.user_id : null;
}

export async function lastTokenAt(db: Db, userId: number, kind: 'verify' | 'reset'): Promise<number | null> {
  const row = await db
    .selectFrom('email_tokens')
    .select((eb) => eb.fn.max('created_at').as('at'))
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .executeTakeFirst();
  return row?.at == null ? null : Number(row.at);
}

/** Older unused links of this kind stop working when a new one is sent. */
export async function expireEmailTokens(db: Db, userId: number, kind: 'verify' | 'reset', now = Date.now()): Promise<void> {
  await db
    .updateTable('email_tokens')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .execute();
}

export async function deleteEmailTokensOf(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('email_tokens').where('user_id', '=', userId).execute();
}
