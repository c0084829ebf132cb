import type { Kysely } from 'kysely';
import { bigint, notNull } from '../schema-helpers.ts';

/** Site settings the owner edits (lib/settings.ts): one JSON document per key, only what was set. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('settings')
    .addColumn('key', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('value', 'text', notNull)
    .addColumn('updated_at', bigint, notNull)
    .execute();
}

export async function down(): Promise<void> {
  // Migrations are frozen once landed; no downgrades.
}
