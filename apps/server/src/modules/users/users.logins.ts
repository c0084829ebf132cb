import type { Db } from '../../db/index.ts';
import type { ScheduledJobSpec } from '../../lib/jobs/index.ts';
import { hashToken } from '../../lib/tokens.ts';
import { sessionCacheKey, type UserCache } from '../../lib/user-cache.ts';
import { deleteExpiredSessions, deleteSessionByHash, deleteSessionsOf, findLiveSession, insertSession, type User } from './users.repo.ts';
import { loginsEnded } from './users.ports.ts';
import { rightsOf, type StaffRights } from './staff.ts';
import { SessionTokens } from './session-tokens.ts';

/**
 * A user's logins: site sessions (rows in `sessions`, the cookie or Bearer token stored as its
 * hash) and whatever a feature keeps as a login of its own (game-auth: the launchers' tokens),
 * which ends with them through the loginsEnded hook.
 */

/**
 * The live session's user, their staff rights (the role is joined here, so checking a route's
 * permission costs no query of its own) and when the session ends. A token the site did not sign
 * is refused without a query (session-tokens.ts).
 */
export async function findSessionUser(
  db: Db,
  token: string,
  now = Date.now(),
): Promise<{ user: User; rights: StaffRights; expiresAt: number } | undefined> {
  if (!(await (await SessionTokens.load(db)).mayBeLive(token, now))) return undefined;
  const row = await findLiveSession(db, hashToken(token), now);
  if (!row) return undefined;
  const { session_expires_at: expiresAt, role_name, role_permissions, ...user } = row;
  return { user, rights: rightsOf(user, { name: role_name, permissions: role_permissions }), expiresAt };
}

export type LiveSession = NonNullable<Awaited<ReturnType<typeof findSessionUser>>>;

/**
 * The live session behind a token, from the per-instance cache (lib/user-cache.ts) or the
 * database: the one way to it, so every entry under the key holds the same shape. (The events
 * stream once cached the user without the rights, and an owner's next /me read no permissions.)
 */
export function cachedSession(ctx: { db: Db; userCache: UserCache }, token: string): Promise<LiveSession | undefined> {
  return ctx.userCache.get(
    sessionCacheKey(hashToken(token)),
    async () => {
      const session = await findSessionUser(ctx.db, token);
      // Shared by every request of this session while cached: nobody may change it in place.
      return session && Object.freeze({ user: Object.freeze(session.user), rights: session.rights, expiresAt: session.expiresAt });
    },
    (s) => s.expiresAt,
  );
}

/** A new session of the user; returns its (signed) token. */
export async function createSession(db: Db, userId: number, ttlMs: number, meta: { ip?: string; userAgent?: string }): Promise<string> {
  const token = (await SessionTokens.load(db)).issue();
  const now = Date.now();
  await insertSession(db, {
    token_hash: hashToken(token),
    signed: 1,
    user_id: userId,
    created_at: now,
    expires_at: now + ttlMs,
    ip: meta.ip?.slice(0, 64) ?? null,
    user_agent: meta.userAgent?.slice(0, 255) ?? null,
  });
  return token;
}

/**
 * Expired sessions are swept by an hourly job (on one instance at a time), not at each login: a
 * delete from `sessions` clears every instance's user cache, and a login then cost every signed-in
 * player's next request a query. An expired session is refused by its expires_at anyway.
 */
export function sessionSweepJob(db: Db): ScheduledJobSpec {
  return {
    name: 'users.session-sweep',
    everyMs: 3_600_000,
    run: () => deleteExpiredSessions(db, Date.now()),
  };
}

export async function deleteSession(db: Db, token: string): Promise<void> {
  await deleteSessionByHash(db, hashToken(token));
}

/**
 * Ends every login of a user in the caller's transaction: all site sessions but `keep` (the
 * caller's own token, so a player who changes the password stays signed in where they did it)
 * and every login a feature keeps (loginsEnded). A new password, a reset, a changed address, a
 * ban, an administrator's edit or 2FA reset, «выйти на всех устройствах», a deleted account.
 * Returns how many site sessions ended.
 */
export async function endLogins(trx: Db, userId: number, options: { keep?: string | null } = {}): Promise<number> {
  const ended = await deleteSessionsOf(trx, userId, options.keep ? hashToken(options.keep) : null);
  await loginsEnded.run(trx, userId);
  return ended;
}
