import type { Kysely, Migration } from 'kysely';
import { addSignedTokens, bigint, notNull } from '../../db/schema-helpers.ts';
import * as textureHashes from './texture-hashes.migration.ts';
import { profileKeysMigration } from './profile-keys.migrations.ts';

// Names 2026112340_…–49_…; add new migrations with later names, never edit a landed one.
export const gameAuthMigrations: Record<string, Migration> = {
  '2026112340_game_auth': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('game_tokens')
        .addColumn('access_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('refresh_hash', 'varchar(64)', (c) => c.unique())
        .addColumn('kind', 'varchar(16)', notNull)
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('client_token', 'varchar(255)')
        .addColumn('profile_name', 'varchar(16)', notNull)
        .addColumn('created_at', bigint, notNull)
        .addColumn('expires_at', bigint, notNull)
        .addColumn('refresh_until', bigint, notNull)
        .execute();
      await db.schema.createIndex('game_tokens_user_idx').on('game_tokens').columns(['user_id', 'created_at']).execute();

      await db.schema
        .createTable('game_joins')
        .addColumn('server_id', 'varchar(128)', notNull)
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('kind', 'varchar(16)', notNull)
        .addColumn('ip', 'varchar(64)')
        .addColumn('expires_at', bigint, notNull)
        .addPrimaryKeyConstraint('game_joins_pk', ['server_id', 'user_id'])
        .execute();
      await db.schema.createIndex('game_joins_expiry_idx').on('game_joins').column('expires_at').execute();

      await db.schema
        .createTable('site_keys')
        .addColumn('name', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('private_pem', 'text', notNull)
        .addColumn('public_pem', 'text', notNull)
        .addColumn('created_at', bigint, notNull)
        .execute();
    },
  },
  // Named after every other module's migrations of their time.
  '2026112627_texture_hashes': textureHashes,
  '2026112628_profile_keys': profileKeysMigration,
  // The launchers' tokens are signed (game-tokens.ts). Tokens made before, and those an
  // instance of an older version makes while several run, are unsigned (0) and kept until they end.
  '2026112820_signed_game_tokens': {
    up: (db: Kysely<unknown>) => addSignedTokens(db, 'game_tokens', 'game_tokens'),
  },
};
