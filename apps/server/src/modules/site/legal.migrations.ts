import type { Kysely, Migration } from 'kysely';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';

// Names 2026120710_… – 2026120719_…: the seller's legal side and receipts, merged by
// db/migrations/index.ts (the receipts table of the payments feature lives in this range too).
export const legalMigrations: Record<string, Migration> = {
  '2026120710_legal': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('fiscal_items')
        .addColumn('kind', 'varchar(16)', notNull)
        .addColumn('item_id', 'integer', notNull)
        .addColumn('vat_code', 'integer')
        .addColumn('payment_subject', 'varchar(32)')
        .addColumn('updated_at', bigint, notNull)
        .addPrimaryKeyConstraint('fiscal_items_pk', ['kind', 'item_id'])
        .execute();
      await db.schema
        .createTable('legal_documents')
        .addColumn('kind', 'varchar(16)', notNull)
        .addColumn('version', 'integer', notNull)
        .addColumn('title', 'varchar(200)', notNull)
        .addColumn('body', 'text', notNull)
        .addColumn('published_at', bigint, notNull)
        .addColumn('published_by', 'integer')
        // Two owners publishing at once cannot both take the same number.
        .addPrimaryKeyConstraint('legal_documents_pk', ['kind', 'version'])
        .execute();
      await withId(db, db.schema.createTable('legal_consents'))
        .addColumn('user_id', 'integer')
        .addColumn('kind', 'varchar(16)', notNull)
        .addColumn('version', 'integer', notNull)
        .addColumn('accepted_at', bigint, notNull)
        .addColumn('ip', 'varchar(64)')
        .addColumn('user_agent', 'varchar(300)')
        .addColumn('source', 'varchar(16)', notNull)
        .execute();
      await db.schema.createIndex('legal_consents_user_idx').on('legal_consents').columns(['user_id', 'kind', 'version']).execute();
    },
  },
  '2026120712_social_consents': {
    async up(db: Kysely<unknown>) {
      // A registration through VK, Telegram or Discord keeps the consents ticked at its step
      // until the letter's link makes the account.
      await db.schema.alterTable('social_tickets').addColumn('consents', 'text').execute();
    },
  },
  '2026120713_guest_consents': {
    async up(db: Kysely<unknown>) {
      // A guest paying for a nickname has no account: the consent names the order and the nickname.
      await db.schema.alterTable('legal_consents').addColumn('guest_order_id', 'varchar(36)').execute();
      await db.schema.alterTable('legal_consents').addColumn('guest_nickname', 'varchar(32)').execute();
    },
  },
};
