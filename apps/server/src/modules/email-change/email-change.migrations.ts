import type { Kysely, Migration } from 'kysely';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';

// Names 2026112435_…–37_… (account-security range); add new migrations with later names, never edit a landed one.
export const emailChangeMigrations: Record<string, Migration> = {
  '2026112435_email_changes': {
    async up(db: Kysely<unknown>) {
      await withId(db, db.schema.createTable('email_changes'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('old_email', 'varchar(254)', notNull)
        .addColumn('new_email', 'varchar(254)', notNull)
        .addColumn('confirm_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('cancel_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('created_at', bigint, notNull)
        .addColumn('expires_at', bigint, notNull)
        .addColumn('cancel_until', bigint, notNull)
        .addColumn('confirmed_at', bigint)
        .addColumn('cancelled_at', bigint)
        .execute();
      await db.schema.createIndex('email_changes_user_idx').on('email_changes').columns(['user_id', 'created_at']).execute();
    },
  },
};
