import { sql, type Kysely } from 'kysely';
import { isPg } from '../schema-helpers.ts';

/**
 * Rate-limit counters shared by the instances on one PostgreSQL database (lib/rate-limit.ts).
 * UNLOGGED: counters are worth less than the write-ahead log they would cost; after a crash
 * PostgreSQL empties the table, which only forgives the attempts of the current window.
 * SQLite gets the same table for one schema on both databases; its counters stay in memory.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPg(db)) {
    await sql`create unlogged table rate_limits (key varchar(200) primary key, count integer not null, reset_at bigint not null)`.execute(
      db,
    );
  } else {
    await db.schema
      .createTable('rate_limits')
      .addColumn('key', 'varchar(200)', (c) => c.primaryKey())
      .addColumn('count', 'integer', (c) => c.notNull())
      .addColumn('reset_at', 'bigint', (c) => c.notNull())
      .execute();
  }
  await db.schema.createIndex('rate_limits_reset_at').on('rate_limits').column('reset_at').execute();
}

export async function down(): Promise<void> {
  // Migrations are frozen once landed; no downgrades.
}
