import { DEFAULT_MIGRATION_TABLE, Migrator, sql, SqliteAdapter, type Kysely, type Migration } from 'kysely';
import { backoffMs } from '../base/backoff.ts';
import { isConnectionError, type DbHandle } from './index.ts';
import { migrations } from './migrations/index.ts';

const MIGRATION_LOCK_ID = 4_242_001;

/** Names of the migrations this build knows and the database has not run yet (readiness, `npm run migrate`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
export async function pendingMigrations(db: Kysely<any>): Promise<string[]> {
  const executed = await executedMigrations(db);
  if (executed)
    return Object.keys(migrations)
      .filter((name) => !executed.has(name))
      .sort();
  return (await migratorFor(db).getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name);
}

/**
 * The names of the migrations the database has run, or null before its first (no migration table).
 * Two small queries: Kysely's Migrator finds its table by reading every table's columns (twice in a
 * run, once more for its list), about a tenth of a site's start on one core with this many tables.
 * The Migrator itself runs only when there is something to do, or something it must refuse.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
async function executedMigrations(db: Kysely<any>): Promise<Set<string> | null> {
  const table = DEFAULT_MIGRATION_TABLE;
  const present =
    db.getExecutor().adapter instanceof SqliteAdapter
      ? sql<{ present: number }>`select count(*) as present from sqlite_master where type = 'table' and name = ${table}`
      : sql<{ present: boolean }>`select to_regclass(${table}) is not null as present`;
  const { rows } = await present.execute(db);
  if (!rows[0]?.present) return null;
  const names = await sql<{ name: string }>`select name from ${sql.table(table)}`.execute(db);
  return new Set(names.rows.map((r) => r.name));
}

/** True when the database has run exactly the migrations in the list: nothing to do, nothing to refuse. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
async function upToDate(db: Kysely<any>, list: Record<string, Migration>): Promise<boolean> {
  const executed = await executedMigrations(db);
  if (!executed) return false;
  const known = Object.keys(list);
  return executed.size === known.length && known.every((name) => executed.has(name));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
function migratorFor(db: Kysely<any>, list: Record<string, Migration> = migrations): Migrator {
  // Features keep name ranges of their own, so a migration can land in main after one with a later
  // name; a database migrated in between must still take it (Kysely refuses that by default).
  return new Migrator({ db, provider: { getMigrations: async () => list }, allowUnorderedMigrations: true });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
export async function runMigrations(db: Kysely<any>, list: Record<string, Migration> = migrations): Promise<void> {
  if (await upToDate(db, list)) return;
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
  // Instances that start together and find nothing to do need not queue for the lock one by one.
  if (await upToDate(handle.db, migrations)) return;
  await handle.db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_ID})`.execute(conn);
    try {
      await runMigrations(conn);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`.execute(conn);
    }
  });
}

/** The one line a site started while its database is down prints (Russian, then English). */
export const DB_DOWN_LINE = (reason: string, wait: boolean) =>
  wait
    ? `База данных недоступна (${reason}): сайт ждёт её и повторяет попытки. / Database unreachable (${reason}): waiting and retrying.`
    : `База данных недоступна (${reason}): выход, DATABASE_WAIT=off. / Database unreachable (${reason}): exiting, DATABASE_WAIT=off.`;

/**
 * migrateToLatest for a starting site: while the database cannot be reached it says so once (one
 * line, DB_DOWN_LINE) and tries again, 1 s doubling to 10 s, until it can; with wait false it
 * throws DatabaseDownAtStart after that line instead (systemd restarts the unit). Any other
 * error (a migration that fails) is thrown as it is.
 */
export async function migrateWhenReachable(
  handle: DbHandle,
  opts: { wait: boolean; say: (line: string) => void; sleep?: (ms: number) => Promise<void> },
): Promise<void> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let failures = 0;
  let said = '';
  for (;;) {
    try {
      await migrateToLatest(handle);
      if (said) opts.say('База данных доступна: сайт запускается. / Database reachable: starting.');
      return;
    } catch (err) {
      if (!isConnectionError(err)) throw err;
      const reason = connectionReason(err);
      if (!opts.wait) {
        opts.say(DB_DOWN_LINE(reason, false));
        throw new DatabaseDownAtStart(reason);
      }
      if (reason !== said) opts.say(DB_DOWN_LINE(reason, true));
      said = reason;
      failures += 1;
      await sleep(backoffMs(failures, { baseMs: 1000, capMs: 10_000 }));
    }
  }
}

export class DatabaseDownAtStart extends Error {}

/** A short reason: the error's code and message, without a stack. */
function connectionReason(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; errors?: unknown };
  // Node reports a refused dual-stack connect as an AggregateError with an empty message.
  const inner = Array.isArray(e.errors) && e.errors[0] ? (e.errors[0] as { message?: unknown }) : undefined;
  const message = String(e.message || inner?.message || e.code || 'нет соединения');
  return typeof e.code === 'string' && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}
