import type { Kysely, Migration } from 'kysely';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';

// Names 2026120670_…–2026120679_…; add later names, never edit a landed one.
export const authmeMigrations: Record<string, Migration> = {
  '2026120670_authme': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('authme_links')
        .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('authme_name', 'varchar(255)', (c) => c.notNull().unique())
        .addColumn('algorithm', 'varchar(32)', notNull)
        .addColumn('hash', 'varchar(1024)', notNull)
        .addColumn('salt', 'varchar(1024)')
        .addColumn('site_hash', 'varchar(255)', notNull)
        .addColumn('needs_email', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('lock_hash', 'varchar(1024)')
        .addColumn('import_id', 'integer')
        .addColumn('linked_at', bigint, notNull)
        .execute();
      await withId(db, db.schema.createTable('authme_outbox'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('op', 'varchar(16)', notNull)
        .addColumn('hash', 'varchar(1024)')
        .addColumn('salt', 'varchar(1024)')
        .addColumn('algorithm', 'varchar(32)')
        .addColumn('site_hash', 'varchar(255)')
        .addColumn('created_at', bigint, notNull)
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', bigint, notNull)
        .addColumn('last_error', 'varchar(500)')
        .addColumn('lock_token', 'varchar(64)')
        .addColumn('locked_until', bigint)
        .execute();
      await db.schema.createIndex('authme_outbox_due').on('authme_outbox').columns(['next_attempt_at', 'id']).execute();
      await db.schema.createIndex('authme_outbox_user').on('authme_outbox').column('user_id').execute();
      await db.schema
        .createTable('authme_warnings')
        .addColumn('kind', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('count', bigint, notNull)
        .addColumn('first_at', bigint, notNull)
        .addColumn('last_at', bigint, notNull)
        .addColumn('detail', 'varchar(500)')
        .execute();
      await withId(db, db.schema.createTable('authme_imports'))
        .addColumn('mode', 'varchar(8)', notNull)
        .addColumn('state', 'varchar(16)', notNull)
        .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('created_at', bigint, notNull)
        .addColumn('finished_at', bigint)
        .addColumn('cursor', 'varchar(1024)')
        .addColumn('total', 'integer', notNull)
        .addColumn('processed', 'integer', notNull)
        .addColumn('created', 'integer', notNull)
        .addColumn('linked', 'integer', notNull)
        .addColumn('name_collisions', 'integer', notNull)
        .addColumn('without_email', 'integer', notNull)
        .addColumn('refused', 'integer', notNull)
        .addColumn('broken_hashes', 'integer', notNull)
        .addColumn('error', 'varchar(500)')
        .addColumn('lock_token', 'varchar(64)')
        .addColumn('locked_until', bigint)
        .execute();
      await db.schema.createIndex('authme_imports_state').on('authme_imports').columns(['state', 'id']).execute();
      await withId(db, db.schema.createTable('authme_refusals'))
        .addColumn('import_id', 'integer', (c) => c.notNull().references('authme_imports.id').onDelete('cascade'))
        .addColumn('name', 'varchar(100)', notNull)
        .addColumn('reason', 'varchar(200)', notNull)
        .execute();
      await db.schema.createIndex('authme_refusals_import').on('authme_refusals').columns(['import_id', 'id']).execute();
    },
  },
};
