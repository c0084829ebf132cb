import type { Kysely, Migration } from 'kysely';
import { bigint, isPg, notNull } from '../../db/schema-helpers.ts';

// Names 2026112240_…; add new migrations here with later names, never edit a landed one.
export const skinsMigrations: Record<string, Migration> = {
  '2026112240_skins': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('skins')
        .addColumn('hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('png', isPg(db) ? 'bytea' : 'blob', notNull)
        .addColumn('width', 'integer', notNull)
        .addColumn('height', 'integer', notNull)
        .addColumn('model', 'varchar(8)', notNull)
        .addColumn('created_at', bigint, notNull)
        .execute();
      await db.schema
        .createTable('user_skins')
        .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('skin_hash', 'varchar(64)', (c) => c.notNull().references('skins.hash'))
        .addColumn('model', 'varchar(8)', notNull)
        .addColumn('updated_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('user_skins_hash_idx').on('user_skins').column('skin_hash').execute();
    },
  },
};
