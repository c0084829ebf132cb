import { sql, type Kysely, type Migration } from 'kysely';
import { bigint, isPg, notNull, withId } from '../../db/schema-helpers.ts';

// Game auth's range (2026112340_…–49_…); never edit a landed migration.
export const capesMigrations: Record<string, Migration> = {
  '2026112341_capes': {
    async up(db: Kysely<unknown>) {
      await withId(db, db.schema.createTable('capes'))
        .addColumn('title', 'varchar(64)', notNull)
        .addColumn('hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('png', isPg(db) ? 'bytea' : 'blob', notNull)
        .addColumn('width', 'integer', notNull)
        .addColumn('height', 'integer', notNull)
        .addColumn('created_at', bigint, notNull)
        .execute();
      await withId(db, db.schema.createTable('cape_grants'))
        .addColumn('cape_id', 'integer', (c) => c.notNull().references('capes.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('tier_id', 'integer', (c) => c.references('donate_tiers.id').onDelete('cascade'))
        .addColumn('created_at', bigint, notNull)
        .addCheckConstraint('cape_grants_one_holder', sql`(user_id is null) <> (tier_id is null)`)
        .execute();
      await db.schema.createIndex('cape_grants_user_uq').on('cape_grants').columns(['cape_id', 'user_id']).unique().execute();
      await db.schema.createIndex('cape_grants_tier_uq').on('cape_grants').columns(['cape_id', 'tier_id']).unique().execute();
      await db.schema.createIndex('cape_grants_user_idx').on('cape_grants').column('user_id').execute();
      await db.schema.createIndex('cape_grants_tier_idx').on('cape_grants').column('tier_id').execute();
      await db.schema
        .createTable('user_capes')
        .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('cape_id', 'integer', (c) => c.notNull().references('capes.id').onDelete('cascade'))
        .addColumn('updated_at', bigint, notNull)
        .execute();
    },
  },
};
