import { Migrator, sql, type Kysely } from 'kysely';
import type { DbHandle } from './index.ts';
import { migrations } from './migrations/index.ts';

const MIGRATION_LOCK_ID = 4_242_001;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
async function runMigrations(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
}

/**
 * Runs every pending migration. On PostgreSQL a session-level advisory lock, held on one
 * connection for the whole run, serialises instances that start together: the second waits,
 * then finds nothing to do.
 */
export async function migrateToLatest(handle: DbHandle): Promise<void> {
  if (handle.kind !== 'pg') return runMigrations(handle.db);
  await handle.db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_ID})`.execute(conn);
    try {
      await runMigrations(conn);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`.execute(conn);
    }
  });
}
