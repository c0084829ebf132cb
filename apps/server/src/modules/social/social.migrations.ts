import type { Kysely, Migration } from 'kysely';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';

// Names 2026112710_…–19_…; add new migrations with later names, never edit a landed one.
export const socialMigrations: Record<string, Migration> = {
  '2026112710_social_login': {
    async up(db: Kysely<unknown>) {
      await withId(db, db.schema.createTable('social_links'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('provider', 'varchar(16)', notNull)
        .addColumn('provider_user_id', 'varchar(64)', notNull)
        .addColumn('display_name', 'varchar(255)', notNull)
        .addColumn('created_at', bigint, notNull)
        .addUniqueConstraint('social_links_account', ['provider', 'provider_user_id'])
        .addUniqueConstraint('social_links_user_provider', ['user_id', 'provider'])
        .execute();
      await db.schema
        .createTable('social_flows')
        .addColumn('state_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('browser_hash', 'varchar(64)', notNull)
        .addColumn('provider', 'varchar(16)', notNull)
        .addColumn('mode', 'varchar(8)', notNull)
        .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('code_verifier', 'varchar(128)', notNull)
        .addColumn('expires_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('social_flows_expires').on('social_flows').column('expires_at').execute();
      await db.schema
        .createTable('social_tickets')
        .addColumn('ticket_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('kind', 'varchar(16)', notNull)
        .addColumn('provider', 'varchar(16)', notNull)
        .addColumn('provider_user_id', 'varchar(64)', notNull)
        .addColumn('display_name', 'varchar(255)', notNull)
        .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('attempts', 'integer', notNull)
        .addColumn('username', 'varchar(32)')
        .addColumn('email', 'varchar(254)')
        .addColumn('confirm_hash', 'varchar(64)', (c) => c.unique())
        .addColumn('expires_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('social_tickets_expires').on('social_tickets').column('expires_at').execute();
    },
  },
};
