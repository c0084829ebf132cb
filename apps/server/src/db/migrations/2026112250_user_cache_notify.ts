import { sql, type Kysely } from 'kysely';
import { isPg } from '../schema-helpers.ts';

/**
 * PostgreSQL: every committed change to users, sessions or worn skins NOTIFYs all instances, so
 * their user caches (lib/user-cache.ts) drop what they hold. NOTIFY is delivered at commit and
 * repeated payloads in one transaction collapse into one. SQLite has a single process: nothing.
 * (Channel and tables written out: a landed migration must not change with lib/user-cache.ts.)
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPg(db)) return;
  await sql`
    create function kubik_user_cache_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('kubik_user_cache', '');
      return null;
    end $$`.execute(db);
  for (const table of ['users', 'sessions', 'user_skins']) {
    await sql`
      create trigger ${sql.id(`${table}_user_cache_notify`)}
      after insert or update or delete on ${sql.table(table)}
      for each statement execute function kubik_user_cache_notify()`.execute(db);
  }
}
