import type { Kysely, Migration } from 'kysely';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';

// Names 2026112420_…–29_…; add new migrations with later names, never edit a landed one.
export const twoFactorMigrations: Record<string, Migration> = {
  '2026112420_two_factor': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('two_factor')
        .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('secret', 'varchar(255)')
        .addColumn('pending_secret', 'varchar(255)')
        .addColumn('pending_at', bigint)
        .addColumn('enabled_at', bigint)
        .addColumn('last_step', bigint)
        .execute();
      await withId(db, db.schema.createTable('two_factor_recovery'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('code_hash', 'varchar(64)', notNull)
        .addColumn('used_at', bigint)
        .execute();
      await db.schema.createIndex('two_factor_recovery_user_idx').on('two_factor_recovery').columns(['user_id', 'code_hash']).execute();
    },
  },
  '2026112421_session_activity': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('session_activity')
        .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey().references('sessions.token_hash').onDelete('cascade'))
        .addColumn('last_seen_at', bigint, notNull)
        .addColumn('ip', 'varchar(64)')
        .execute();
    },
  },
};
