import type { Kysely, Migration } from 'kysely';
import { bigint, notNull } from '../../db/schema-helpers.ts';

// Names 2026112720_…–2026112729_… (owner); add later names, never edit a landed one.
export const launcherMigrations: Record<string, Migration> = {
  '2026112720_launcher_builds': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('launcher_builds')
        .addColumn('platform', 'varchar(16)', (c) => c.primaryKey())
        .addColumn('kind', 'varchar(8)', notNull)
        .addColumn('version', 'varchar(32)', notNull)
        .addColumn('url', 'varchar(2048)')
        .addColumn('file_name', 'varchar(255)')
        .addColumn('size', bigint)
        .addColumn('sha256', 'varchar(64)')
        .addColumn('updated_by', 'integer')
        .addColumn('updated_at', bigint, notNull)
        .execute();
    },
  },
};
