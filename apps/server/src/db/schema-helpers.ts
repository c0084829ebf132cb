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
