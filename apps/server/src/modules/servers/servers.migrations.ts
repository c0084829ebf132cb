import type { Kysely, Migration } from 'kysely';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';

// Names 20261122_2x…; add new migrations here with later names, never edit a landed one.
export const serversMigrations: Record<string, Migration> = {
  '2026112220_servers': {
    async up(db: Kysely<unknown>) {
      await withId(db, db.schema.createTable('servers'))
        .addColumn('name', 'varchar(100)', notNull)
        .addColumn('description', 'text', notNull)
        .addColumn('image_url', 'varchar(2048)', (c) => c.notNull().defaultTo(''))
        .addColumn('ip_address', 'varchar(255)', (c) => c.notNull().defaultTo(''))
        .addColumn('port', 'integer', (c) => c.notNull().defaultTo(25565))
        .addColumn('max_online', 'integer', (c) => c.notNull().defaultTo(100))
        .addColumn('online', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('offline'))
        .addColumn('version', 'varchar(255)')
        .addColumn('motd', 'text')
        .addColumn('fail_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_checked_at', bigint)
        .addColumn('rcon_host', 'varchar(255)')
        .addColumn('rcon_port', 'integer')
        .addColumn('rcon_password', 'varchar(255)')
        .addColumn('command_template', 'varchar(500)')
        .addColumn('sort_order', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', bigint, notNull)
        .addColumn('updated_at', bigint, notNull)
        .execute();
    },
  },
  '2026112221_servers_monitor': {
    async up(db: Kysely<unknown>) {
      // SQLite adds one column per statement.
      await db.schema.alterTable('servers').addColumn('favicon', 'text').execute();
      await db.schema.alterTable('servers').addColumn('last_error', 'varchar(255)').execute();
      await withId(db, db.schema.createTable('server_online_history'))
        .addColumn('server_id', 'integer', (c) => c.notNull().references('servers.id').onDelete('cascade'))
        .addColumn('at', bigint, notNull)
        // null: the check failed.
        .addColumn('online', 'integer')
        .execute();
      await db.schema.createIndex('server_online_history_server_at_idx').on('server_online_history').columns(['server_id', 'at']).execute();
      await db.schema.createIndex('server_online_history_at_idx').on('server_online_history').column('at').execute();
    },
  },
  '2026112222_servers_check_claim': {
    async up(db: Kysely<unknown>) {
      // Set while a check runs (until its deadline): another instance leaves the server alone.
      await db.schema.alterTable('servers').addColumn('checking_until', bigint).execute();
    },
  },
  '2026112672_servers_reported_max': {
    async up(db: Kysely<unknown>) {
      // The player limit the server itself reports in its status answer; null until a check succeeds.
      await db.schema.alterTable('servers').addColumn('reported_max', 'integer').execute();
    },
  },
  '2026112700_servers_players_sample': {
    async up(db: Kysely<unknown>) {
      // The names of the last status reply's player sample, as a JSON array (home page cards).
      await db.schema.alterTable('servers').addColumn('players_sample', 'text').execute();
    },
  },
  '2026120660_servers_rcon_password_dropped_at': {
    async up(db: Kysely<unknown>) {
      // When the stored RCON password was dropped because the RCON address changed (the admin says why it is gone).
      await db.schema.alterTable('servers').addColumn('rcon_password_dropped_at', bigint).execute();
    },
  },
  '2026120700_servers_azlink': {
    async up(db: Kysely<unknown>) {
      // The AzLink plugin's link: the token's sha256 (the token itself is shown once), its calls,
      // what it reported of the game server, and which way deliveries go when RCON exists too.
      // SQLite adds one column per statement.
      const servers = () => db.schema.alterTable('servers');
      await servers().addColumn('link_token_hash', 'varchar(64)').execute();
      await servers().addColumn('link_created_at', bigint).execute();
      await servers().addColumn('link_seen_at', bigint).execute();
      await servers().addColumn('link_data_at', bigint).execute();
      await servers().addColumn('link_platform', 'varchar(32)').execute();
      await servers().addColumn('link_platform_name', 'varchar(100)').execute();
      await servers().addColumn('link_platform_version', 'varchar(100)').execute();
      await servers().addColumn('link_plugin_version', 'varchar(32)').execute();
      await servers().addColumn('link_players', 'text').execute();
      await servers().addColumn('link_tps', 'double precision').execute();
      await servers().addColumn('link_ram', 'double precision').execute();
      await servers().addColumn('link_cpu', 'double precision').execute();
      await servers()
        .addColumn('delivery_channel', 'varchar(8)', (c) => c.notNull().defaultTo('rcon'))
        .execute();
      await servers()
        .addColumn('link_ping', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await servers().addColumn('link_ping_port', 'integer').execute();
      await db.schema.createIndex('servers_link_token_idx').on('servers').column('link_token_hash').unique().execute();
      const history = () => db.schema.alterTable('server_online_history');
      await history().addColumn('tps', 'double precision').execute();
      await history().addColumn('ram', 'double precision').execute();
      await history().addColumn('cpu', 'double precision').execute();
    },
  },
  '2026120702_servers_azlink_accounts': {
    async up(db: Kysely<unknown>) {
      // The owner's switch: the plugin's in-game registrations and changes make or update site accounts.
      await db.schema
        .alterTable('servers')
        .addColumn('link_accounts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
};
