import type { Kysely, Migration } from 'kysely';
import { bigint, notNull } from '../../db/schema-helpers.ts';

// Names 2026112671_…. First-run setup.
export const setupMigrations: Record<string, Migration> = {
  '2026112671_setup_state': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('setup_state')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('code', 'varchar(64)', notNull)
        .addColumn('created_at', bigint, notNull)
        .addColumn('done_at', bigint)
        .addColumn('owner_id', 'integer')
        .execute();
    },
  },
};
