import type { Kysely, Migration } from 'kysely';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';

// Names 2026112215_…. Migrations of the donate feature, merged by db/migrations/index.ts and run in order of name.
export const donateMigrations: Record<string, Migration> = {
  '2026112215_donate': {
    async up(db: Kysely<unknown>) {
      await withId(db, db.schema.createTable('donate_tiers'))
        .addColumn('title', 'varchar(100)', notNull)
        .addColumn('content', 'text', notNull)
        .addColumn('amount_minor', bigint, notNull)
        .addColumn('currency', 'varchar(16)', notNull)
        .addColumn('image_url', 'varchar(2048)')
        .addColumn('is_best', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('kits_json', 'text', notNull)
        .addColumn('features_json', 'text', notNull)
        .addColumn('created_at', bigint, notNull)
        .addColumn('updated_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('donate_tiers_position_idx').on('donate_tiers').columns(['position', 'id']).execute();
    },
  },
  '2026112632_tier_sales': {
    async up(db: Kysely<unknown>) {
      // A sale price per month with its end.
      await db.schema.alterTable('donate_tiers').addColumn('sale_amount_minor', bigint).execute();
      await db.schema.alterTable('donate_tiers').addColumn('sale_ends_at', bigint).execute();
    },
  },
  '2026120730_tier_subscription': {
    async up(db: Kysely<unknown>) {
      // Offered by subscription, charged every subscription_months months.
      await db.schema
        .alterTable('donate_tiers')
        .addColumn('subscription', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('donate_tiers')
        .addColumn('subscription_months', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
    },
  },
};
