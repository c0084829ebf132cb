import { sql, type Kysely } from 'kysely';
import { isPg } from '../schema-helpers.ts';

/**
 * PostgreSQL: a new session no longer NOTIFYs every instance to drop its user cache:
 * each login emptied every instance's cache, and every signed-in player's next request cost a
 * query. Caches hold found sessions by their own token, which an insert cannot change; updates
 * and deletes (logouts, ended logins, the sweep of expired sessions) still notify.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPg(db)) return;
  await sql`drop trigger if exists sessions_user_cache_notify on sessions`.execute(db);
  await sql`
    create trigger sessions_user_cache_notify
    after update or delete on sessions
    for each statement execute function kubik_user_cache_notify()`.execute(db);
}

export async function down(): Promise<void> {
  // Migrations are frozen once landed; no downgrades.
}
