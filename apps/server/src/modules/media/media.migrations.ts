import type { Kysely, Migration } from 'kysely';
import { bigint, isPg, notNull } from '../../db/schema-helpers.ts';

// Names 2026112365_…–2026112369_… (owner-admin); add later names, never edit a landed one.
export const mediaMigrations: Record<string, Migration> = {
  '2026112365_media': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('media')
        .addColumn('hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('type', 'varchar(8)', notNull)
        .addColumn('bytes', isPg(db) ? 'bytea' : 'blob', notNull)
        .addColumn('size', 'integer', notNull)
        .addColumn('width', 'integer', notNull)
        .addColumn('height', 'integer', notNull)
        .addColumn('name', 'varchar(255)', notNull)
        .addColumn('created_by', 'integer')
        .addColumn('created_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('media_created_idx').on('media').column('created_at').execute();
    },
  },
};
