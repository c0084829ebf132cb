import { sql, type Kysely, type Migration } from 'kysely';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';

// Names 2026120711_… – 2026120719_… and 2026120750_… – 2026120759_… (with site/legal.migrations.ts's 2026120710_…): 54-ФЗ
// receipts of the payments feature, merged by db/migrations/index.ts.
export const receiptsMigrations: Record<string, Migration> = {
  '2026120711_receipts': {
    async up(db: Kysely<unknown>) {
      await withId(db, db.schema.createTable('receipts'))
        .addColumn('payment_id', 'varchar(36)', notNull)
        .addColumn('user_id', 'integer', notNull)
        .addColumn('provider', 'varchar(16)', notNull)
        .addColumn('kind', 'varchar(16)', notNull)
        .addColumn('state', 'varchar(16)', notNull)
        .addColumn('reason', 'varchar(300)')
        .addColumn('amount', bigint, notNull)
        .addColumn('lines', 'text', notNull)
        .addColumn('email', 'varchar(254)', notNull)
        .addColumn('ref', 'varchar(100)')
        .addColumn('idempotence_key', 'varchar(64)', notNull)
        .addColumn('provider_receipt_id', 'varchar(64)')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_at', bigint)
        .addColumn('created_at', bigint, notNull)
        .addColumn('updated_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('receipts_key_idx').on('receipts').column('idempotence_key').unique().execute();
      await db.schema.createIndex('receipts_payment_idx').on('receipts').columns(['payment_id', 'id']).execute();
      await db.schema.createIndex('receipts_state_idx').on('receipts').columns(['state', 'next_at']).execute();
      await withId(db, db.schema.createTable('balance_spends'))
        .addColumn('user_id', 'integer', notNull)
        .addColumn('payment_id', 'varchar(36)', notNull)
        .addColumn('amount', bigint, notNull)
        .addColumn('ref', 'varchar(100)', notNull)
        .addColumn('created_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('balance_spends_payment_idx').on('balance_spends').column('payment_id').execute();
      await db.schema.createIndex('balance_spends_user_idx').on('balance_spends').column('user_id').execute();
    },
  },
  // 2026120750_… – 2026120759_…: which payments are top-ups, the advance fixed at creation, and
  // reversed completions.
  '2026120750_payment_purpose': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('payments')
        .addColumn('purpose', 'varchar(16)', (c) => c.notNull().defaultTo('topup'))
        .execute();
      await db.schema.alterTable('payments').addColumn('receipt', 'text').execute();
      await db.schema.alterTable('receipts').addColumn('parent_id', 'integer').execute();
      // A subscription's payments bought a period: they were never top-ups.
      await sql`update payments set purpose = 'goods' where id in (select payment_id from subscription_charges)`.execute(db);
    },
  },
};
