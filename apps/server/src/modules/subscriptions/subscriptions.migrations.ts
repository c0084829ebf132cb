import type { Kysely, Migration } from 'kysely';
import { bigint, notNull } from '../../db/schema-helpers.ts';

// Names 2026120731_…. Migrations of the subscriptions feature, merged by db/migrations/index.ts and run in order of name.
export const subscriptionsMigrations: Record<string, Migration> = {
  '2026120731_subscriptions': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('subscriptions')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('tier_id', 'integer', notNull)
        .addColumn('title', 'varchar(100)', notNull)
        .addColumn('provider', 'varchar(16)', notNull)
        .addColumn('state', 'varchar(16)', notNull)
        .addColumn('live_key', 'varchar(40)')
        .addColumn('amount', bigint, notNull)
        .addColumn('months', 'integer', notNull)
        .addColumn('method_id', 'varchar(100)')
        .addColumn('card_last4', 'varchar(4)')
        .addColumn('periods', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('paid_until', bigint)
        .addColumn('next_charge_at', bigint)
        .addColumn('reminded_period', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('failing_since', bigint)
        .addColumn('created_at', bigint, notNull)
        .addColumn('updated_at', bigint, notNull)
        .addColumn('canceled_at', bigint)
        .addColumn('ended_at', bigint)
        .execute();
      // One live subscription per player and tier (NULLs are distinct on both databases).
      await db.schema.createIndex('subscriptions_live_idx').on('subscriptions').column('live_key').unique().execute();
      await db.schema.createIndex('subscriptions_user_idx').on('subscriptions').columns(['user_id', 'created_at']).execute();
      await db.schema.createIndex('subscriptions_due_idx').on('subscriptions').columns(['state', 'next_charge_at']).execute();
      await db.schema
        .createTable('subscription_charges')
        .addColumn('payment_id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('subscription_id', 'varchar(36)', (c) => c.notNull().references('subscriptions.id').onDelete('cascade'))
        .addColumn('period', 'integer', notNull)
        .addColumn('attempt', 'integer', notNull)
        .addColumn('amount', bigint, notNull)
        .addColumn('status', 'varchar(16)', notNull)
        .addColumn('failure', 'varchar(200)')
        .addColumn('created_at', bigint, notNull)
        .addColumn('paid_at', bigint)
        .execute();
      // A period's attempt is made once, whoever runs the clock.
      await db.schema
        .createIndex('subscription_charges_attempt_idx')
        .on('subscription_charges')
        .columns(['subscription_id', 'period', 'attempt'])
        .unique()
        .execute();
      await db.schema.createIndex('subscription_charges_paid_idx').on('subscription_charges').columns(['status', 'paid_at']).execute();
    },
  },
};
