import type { Kysely, Migration } from 'kysely';

// Names 2026112440_…–49_… (owner dashboard). A landed migration is never edited: add a new one.

export const dashboardMigrations: Record<string, Migration> = {
  /** The dashboard's day series read time ranges of these tables; without indexes each day would scan them whole. */
  '2026112440_dashboard_indexes': {
    async up(db: Kysely<unknown>) {
      await db.schema.createIndex('ledger_reason_created_idx').on('ledger').columns(['reason', 'created_at']).execute();
      await db.schema.createIndex('payments_status_paid_idx').on('payments').columns(['status', 'paid_at']).execute();
      await db.schema.createIndex('users_created_idx').on('users').column('created_at').execute();
      await db.schema.createIndex('deliveries_state_created_idx').on('deliveries').columns(['state', 'created_at']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropIndex('deliveries_state_created_idx').execute();
      await db.schema.dropIndex('users_created_idx').execute();
      await db.schema.dropIndex('payments_status_paid_idx').execute();
      await db.schema.dropIndex('ledger_reason_created_idx').execute();
    },
  },
};
