import type { Kysely, Migration } from 'kysely';
import { bigint } from '../../db/schema-helpers.ts';

// Names 2026112701_…, 2026120771_…; never edit a landed migration.
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
  '2026120771_game_names': {
    async up(db: Kysely<unknown>) {
      // Every name a game server reported, with or without an account: a guest buying for a
      // nickname is told whether anyone by that name has played here.
      await db.schema
        .createTable('game_names')
        .addColumn('name_lower', 'varchar(16)', (c) => c.primaryKey())
        .addColumn('name', 'varchar(16)', (c) => c.notNull())
        .addColumn('last_seen_at', bigint, (c) => c.notNull())
        .execute();
    },
  },
};
