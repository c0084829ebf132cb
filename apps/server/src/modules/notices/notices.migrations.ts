import type { Kysely, Migration } from 'kysely';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';

export const noticesMigrations: Record<string, Migration> = {
  '2026112640_notices': {
    async up(db: Kysely<unknown>) {
      await withId(db, db.schema.createTable('notices'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('kind', 'varchar(32)', notNull)
        .addColumn('title', 'varchar(200)', notNull)
        .addColumn('body', 'text')
        .addColumn('link', 'varchar(300)')
        .addColumn('data_json', 'text')
        .addColumn('created_at', bigint, notNull)
        .addColumn('read_at', bigint)
        .execute();
      // The bell's page (newest first) and its unread count both start from the player.
      await db.schema.createIndex('notices_user_idx').on('notices').columns(['user_id', 'id']).execute();
      await db.schema.createIndex('notices_unread_idx').on('notices').columns(['user_id', 'read_at']).execute();
    },
  },
};
