import type { Kysely } from 'kysely';
import { bigint, notNull, withId } from '../schema-helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('users'))
    .addColumn('username', 'varchar(16)', notNull)
    .addColumn('username_lower', 'varchar(16)', (c) => c.notNull().unique())
    .addColumn('email', 'varchar(254)', notNull)
    .addColumn('email_lower', 'varchar(254)', (c) => c.notNull().unique())
    .addColumn('password_hash', 'varchar(255)', notNull)
    .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('balance', bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('email_verified_at', bigint)
    .addColumn('created_at', bigint, notNull)
    .addColumn('deleted_at', bigint)
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', bigint, notNull)
    .addColumn('expires_at', bigint, notNull)
    .addColumn('user_agent', 'varchar(255)')
    .addColumn('ip', 'varchar(64)')
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

  await withId(db, db.schema.createTable('email_tokens'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'varchar(16)', notNull)
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('created_at', bigint, notNull)
    .addColumn('expires_at', bigint, notNull)
    .addColumn('used_at', bigint)
    .execute();
  await db.schema.createIndex('email_tokens_user_idx').on('email_tokens').columns(['user_id', 'kind']).execute();

  await withId(db, db.schema.createTable('ledger'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('amount', bigint, notNull)
    .addColumn('reason', 'varchar(32)', notNull)
    .addColumn('author_id', 'integer')
    .addColumn('ref', 'varchar(128)')
    .addColumn('note', 'varchar(500)')
    .addColumn('created_at', bigint, notNull)
    .execute();
  await db.schema.createIndex('ledger_user_idx').on('ledger').columns(['user_id', 'id']).execute();

  await withId(db, db.schema.createTable('mail_outbox'))
    .addColumn('to_address', 'varchar(254)', notNull)
    .addColumn('subject', 'varchar(255)', notNull)
    .addColumn('text_body', 'text', notNull)
    .addColumn('html_body', 'text', notNull)
    .addColumn('link', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', bigint, notNull)
    .addColumn('locked_until', bigint)
    .addColumn('sent_at', bigint)
    .addColumn('failed_at', bigint)
    .addColumn('last_error', 'text')
    .addColumn('created_at', bigint, notNull)
    .execute();
  await db.schema.createIndex('mail_outbox_due_idx').on('mail_outbox').columns(['sent_at', 'next_attempt_at']).execute();
}

export async function down(): Promise<void> {
  // Migrations are frozen once landed; no downgrades.
}
