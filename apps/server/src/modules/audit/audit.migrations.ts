import type { Kysely, Migration } from 'kysely';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';

export const auditMigrations: Record<string, Migration> = {
  '2026112202_audit': {
    async up(db: Kysely<unknown>) {
      await withId(db, db.schema.createTable('audit_log'))
        .addColumn('actor_id', 'integer')
        .addColumn('action', 'varchar(64)', notNull)
        .addColumn('entity', 'varchar(32)', notNull)
        .addColumn('entity_id', 'varchar(64)')
        .addColumn('before_json', 'text')
        .addColumn('after_json', 'text')
        .addColumn('created_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('audit_log_entity_idx').on('audit_log').columns(['entity', 'entity_id']).execute();
    },
  },
};
