import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { UsersTable } from '../../db/types.ts';
import { newProfileUuid } from '../../lib/offline-uuid.ts';
import { hashToken } from '../../lib/tokens.ts';

export type UserRow = Selectable<UsersTable>;

export function findUserByLogin(db: Db, login: string): Promise<UserRow | undefined> {
  const key = login.toLowerCase();
  return db
    .selectFrom('users')
    .selectAll()
    .where(login.includes('@') ? 'email_lower' : 'username_lower', '=', key)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('email_lower', '=', email.toLowerCase())
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function nameOrEmailTaken(db: Db, username: string, email: string): Promise<'email' | 'username' | null> {
  const rows = await db
    .selectFrom('users')
    .select(['username_lower', 'email_lower'])
    .where((eb) => eb.or([eb('email_lower', '=', email.toLowerCase()), eb('username_lower', '=', username.toLowerCase())]))
    .execute();
  if (rows.some((r) => r.email_lower === email.toLowerCase())) return 'email';
  if (rows.length > 0) return 'username';
  return null;
}

/** The game profile UUID for a new account (lib/offline-uuid.ts): the name's offline UUID unless another account has it. */
export function profileUuidFor(db: Db, username: string): Promise<string> {
  return newProfileUuid(
    username,
    async (uuid) => (await db.selectFrom('users').select('id').where('uuid', '=', uuid).executeTakeFirst()) !== undefined,
  );
}

/** The live session's user and when the session ends. */
export async function findSessionUser(db: Db, token: string, now = Date.now()): Promise<{ user: UserRow; expiresAt: number } | undefined> {
  const row = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .selectAll('users')
    .select('sessions.expires_at as session_expires_at')
    .where('sessions.token_hash', '=', hashToken(token))
    .where('sessions.expires_at', '>', now)
    .where('users.deleted_at', 'is', null)
    // A ban ends the sessions; this also refuses one a login racing the ban created.
    .where((eb) =>
      eb.or([eb('users.banned_at', 'is', null), eb.and([eb('users.ban_until', 'is not', null), eb('users.ban_until', '<=', now)])]),
    )
    .executeTakeFirst();
  if (!row) return undefined;
  const { session_expires_at: expiresAt, ...user } = row;
  return { user, expiresAt };
}

export async function createSession(
  db: Db,
  userId: number,
  token: string,
  ttlMs: number,
  meta: { ip?: string; userAgent?: string },
): Promise<void> {
  const now = Date.now();
  await db
    .insertInto('sessions')
    .values({
      token_hash: hashToken(token),
      user_id: userId,
      created_at: now,
      expires_at: now + ttlMs,
      ip: meta.ip?.slice(0, 64) ?? null,
      user_agent: meta.userAgent?.slice(0, 255) ?? null,
    })
    .execute();
  // Expired sessions of this user are swept here rather than by a separate job.
  await db.deleteFrom('sessions').where('user_id', '=', userId).where('expires_at', '<=', now).execute();
}

export async function deleteSession(db: Db, token: string): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', hashToken(token)).execute();
}

export async function deleteSessionsOf(db: Db, userId: number, exceptToken?: string): Promise<void> {
  let q = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (exceptToken) q = q.where('token_hash', '!=', hashToken(exceptToken));
  await q.execute();
}

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
