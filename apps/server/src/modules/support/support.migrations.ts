import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type Migration } from 'kysely';
import { bigint, isPg, notNull, withId } from '../../db/schema-helpers.ts';

// Names 2026120680_…–2026120689_…. Migrations of the support feature, merged by db/migrations/index.ts and run in order of name.
export const supportMigrations: Record<string, Migration> = {
  '2026120680_support': {
    async up(db: Kysely<unknown>) {
      await withId(db, db.schema.createTable('support_categories'))
        .addColumn('name', 'varchar(60)', notNull)
        .addColumn('description', 'text', notNull)
        .addColumn('icon', 'varchar(100)')
        .addColumn('fields_json', 'text', notNull)
        .addColumn('position', 'integer', notNull)
        .addColumn('enabled', 'integer', notNull)
        .addColumn('created_at', bigint, notNull)
        .addColumn('updated_at', bigint, notNull)
        .addColumn('deleted_at', bigint)
        .execute();

      await withId(db, db.schema.createTable('support_tickets'))
        .addColumn('user_id', 'integer', notNull)
        .addColumn('kind', 'varchar(16)', notNull)
        .addColumn('category_id', 'integer')
        .addColumn('subject', 'varchar(200)', notNull)
        .addColumn('state', 'varchar(16)', notNull)
        .addColumn('assignee_id', 'integer')
        .addColumn('fields_json', 'text', notNull)
        .addColumn('link_kind', 'varchar(16)')
        .addColumn('link_id', 'varchar(64)')
        .addColumn('link_label', 'varchar(300)')
        .addColumn('ban_id', 'integer')
        .addColumn('last_author', 'varchar(8)', notNull)
        .addColumn('created_at', bigint, notNull)
        .addColumn('updated_at', bigint, notNull)
        .addColumn('closed_at', bigint)
        .addColumn('player_mailed_at', bigint)
        .addColumn('staff_mailed_at', bigint)
        .execute();
      // A player's list and the cap on open tickets; the staff's lists by state, by assignee.
      await db.schema.createIndex('support_tickets_user_idx').on('support_tickets').columns(['user_id', 'state']).execute();
      await db.schema.createIndex('support_tickets_state_idx').on('support_tickets').columns(['state', 'updated_at']).execute();
      await db.schema.createIndex('support_tickets_assignee_idx').on('support_tickets').columns(['assignee_id', 'state']).execute();
      // One appeal per ban, whatever races.
      await sql`create unique index support_tickets_appeal_uq on support_tickets (ban_id) where kind = 'appeal'`.execute(db);

      await withId(db, db.schema.createTable('support_messages'))
        .addColumn('ticket_id', 'integer', notNull)
        .addColumn('author_id', 'integer', notNull)
        .addColumn('staff', 'integer', notNull)
        .addColumn('internal', 'integer', notNull)
        .addColumn('text', 'text', notNull)
        .addColumn('created_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('support_messages_ticket_idx').on('support_messages').columns(['ticket_id', 'id']).execute();

      await withId(db, db.schema.createTable('support_attachments'))
        .addColumn('uploader_id', 'integer', notNull)
        .addColumn('ticket_id', 'integer')
        .addColumn('message_id', 'integer')
        .addColumn('name', 'varchar(255)', notNull)
        .addColumn('type', 'varchar(8)', notNull)
        .addColumn('bytes', isPg(db) ? 'bytea' : 'blob', notNull)
        .addColumn('size', 'integer', notNull)
        .addColumn('width', 'integer', notNull)
        .addColumn('height', 'integer', notNull)
        .addColumn('created_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('support_attachments_message_idx').on('support_attachments').column('message_id').execute();
      await db.schema
        .createIndex('support_attachments_uploader_idx')
        .on('support_attachments')
        .columns(['uploader_id', 'message_id'])
        .execute();

      await withId(db, db.schema.createTable('support_canned'))
        .addColumn('title', 'varchar(80)', notNull)
        .addColumn('text', 'text', notNull)
        .addColumn('created_at', bigint, notNull)
        .addColumn('updated_at', bigint, notNull)
        .execute();

      // The key that signs ban appeal links, one per database so every instance knows it.
      await (db as Kysely<{ shared_secrets: { name: string; value: string; created_at: number } }>)
        .insertInto('shared_secrets')
        .values({ name: 'support_appeals', value: randomBytes(32).toString('base64'), created_at: Date.now() })
        .execute();
    },
  },
};
