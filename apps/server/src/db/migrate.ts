import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import type { DbHandle } from './index.ts';
import { migrations } from './migrations/index.ts';

const MIGRATION_LOCK_ID = 4_242_001;

/** Names of the migrations this build knows and the database has not run yet (readiness, `npm run migrate`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
export async function pendingMigrations(db: Kysely<any>): Promise<string[]> {
  return (await migratorFor(db).getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
function migratorFor(db: Kysely<any>, list: Record<string, Migration> = migrations): Migrator {
  // Features keep name ranges of their own, so a migration can land in main after one with a later
  // name; a database migrated in between must still take it (Kysely refuses that by default).
  return new Migrator({ db, provider: { getMigrations: async () => list }, allowUnorderedMigrations: true });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
export async function runMigrations(db: Kysely<any>, list?: Record<string, Migration>): Promise<void> {
  const migrator = migratorFor(db, list);
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
