import { randomBytes } from 'node:crypto';
import { PostgresAdapter, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely';

// Helpers for migrations, so one migration file serves SQLite and PostgreSQL.

export function isPg(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

export function withId<T extends string>(db: Kysely<unknown>, table: CreateTableBuilder<T>): CreateTableBuilder<T, 'id'> {
  return isPg(db)
    ? table.addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

/** Epoch-millisecond and kopeck columns need 64 bits on PostgreSQL; SQLite integers already are. */
export const bigint = 'bigint' as const;

export const notNull = (c: ColumnDefinitionBuilder) => c.notNull();

/**
 * For tokens that start being signed (lib/signed-tokens.ts): a `signed` mark on `table`, 0 for the
 * rows already there and for those an instance of an older version still adds, and the key that
 * signs them, made once per database (shared_secrets `secretName`).
 */
export async function addSignedTokens(db: Kysely<unknown>, table: string, secretName: string): Promise<void> {
  await db.schema
    .alterTable(table)
    .addColumn('signed', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await (db as Kysely<{ shared_secrets: { name: string; value: string; created_at: number } }>)
    .insertInto('shared_secrets')
    .values({ name: secretName, value: randomBytes(32).toString('base64'), created_at: Date.now() })
    .execute();
}
