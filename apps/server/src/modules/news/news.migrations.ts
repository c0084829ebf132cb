import type { Kysely, Migration } from 'kysely';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';

// Names 2026112210_…. Migrations of the news feature, merged by db/migrations/index.ts and run in order of name.
export const newsMigrations: Record<string, Migration> = {
  '2026112210_news': {
    async up(db: Kysely<unknown>) {
      await withId(db, db.schema.createTable('news'))
        .addColumn('title', 'varchar(200)', notNull)
        .addColumn('content', 'text', notNull)
        .addColumn('image_url', 'varchar(2048)')
        .addColumn('author_id', 'integer')
        .addColumn('created_at', bigint, notNull)
        .addColumn('updated_at', bigint, notNull)
        .execute();
      // The feed reads newest first: created_at desc, id desc walks this index backwards.
      await db.schema.createIndex('news_created_idx').on('news').columns(['created_at', 'id']).execute();
    },
  },
};
