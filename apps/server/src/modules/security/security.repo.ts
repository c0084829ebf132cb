import type { Db } from '../../db/index.ts';

/** The player's own view of their logins: sessions with their last use, and the browsers they logged in from. */

/** The user's live sessions, each with when and from where it was last used (session_activity). */
export function liveSessionsOf(db: Db, userId: number, now: number) {
  return db
    .selectFrom('sessions')
    .leftJoin('session_activity', 'session_activity.token_hash', 'sessions.token_hash')
    .select([
      'sessions.token_hash',
      'sessions.created_at',
      'sessions.ip',
      'sessions.user_agent',
      'session_activity.last_seen_at',
      'session_activity.ip as last_ip',
    ])
    .where('sessions.user_id', '=', userId)
    .where('sessions.expires_at', '>', now)
    .execute();
}

/** The token hashes of every session of the user (expired ones too, until the sweep). */
export async function sessionHashesOf(db: Db, userId: number): Promise<string[]> {
  const rows = await db.selectFrom('sessions').select('token_hash').where('user_id', '=', userId).execute();
  return rows.map((r) => r.token_hash);
}

/** Ends one session, only if it is the user's. */
export async function deleteSessionOf(db: Db, userId: number, tokenHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).where('user_id', '=', userId).execute();
}

/** Whether the account knows a browser other than this one. */
export async function knowsOtherDevice(db: Db, userId: number, deviceHash: string): Promise<boolean> {
  const other = await db
    .selectFrom('known_devices')
    .select('user_id')
    .where('user_id', '=', userId)
    .where('device_hash', '!=', deviceHash)
    .limit(1)
    .executeTakeFirst();
  return other !== undefined;
}
