import { sql, type Kysely, type Migration } from 'kysely';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';

// Names 2026120720_…–29_…; add new migrations with later names in that range, never edit a landed one.
export const announceMigrations: Record<string, Migration> = {
  '2026120720_announce_outbox': {
    async up(db: Kysely<unknown>) {
      await withId(db, db.schema.createTable('announce_outbox'))
        .addColumn('channel', 'varchar(16)', notNull)
        .addColumn('event', 'varchar(32)', notNull)
        .addColumn('dedupe_key', 'varchar(120)', notNull)
        .addColumn('text', 'text', notNull)
        .addColumn('state', 'varchar(8)', notNull)
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', bigint, notNull)
        .addColumn('last_error', 'varchar(500)')
        .addColumn('created_at', bigint, notNull)
        .addColumn('sent_at', bigint)
        .addColumn('lock_token', 'varchar(64)')
        .addColumn('locked_until', bigint)
        .execute();
      // Each event once per channel, whoever queues it twice.
      await db.schema.createIndex('announce_outbox_once').on('announce_outbox').columns(['channel', 'dedupe_key']).unique().execute();
      // The job reads the queued ones, oldest first.
      await sql`create index announce_outbox_due on announce_outbox (next_attempt_at, id) where state = 'queued'`.execute(db);
    },
  },
};
