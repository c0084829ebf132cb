import type { Kysely, Migration } from 'kysely';
import { bigint } from '../../db/schema-helpers.ts';

// Names 2026112701_…; never edit a landed migration.
export const playersMigrations: Record<string, Migration> = {
  '2026112701_player_profiles': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('player_profiles')
        .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('hidden', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_seen_at', bigint)
        .execute();
    },
  },
};
