import type { Generated } from 'kysely';

/** A game server: shown in the list, pinged by the monitor, and the target of shop deliveries. */
export interface ServersTable {
  id: Generated<number>;
  name: string;
  description: string;
  image_url: string;
  ip_address: string;
  port: number;
  max_online: number;
  /** The player limit the server reported at its last successful check; shown instead of max_online when known. */
  reported_max: number | null;
  /** Last known players online (from the monitor). */
  online: number;
  /** 'online' | 'offline' */
  status: string;
  version: string | null;
  motd: string | null;
  /** Consecutive failed checks; the server turns offline at two. */
  fail_count: number;
  last_checked_at: number | null;
  /** A check of this server is running until then (claimed by one instance). */
  checking_until: number | null;
  // Delivery into the game (shop): admin only, never in a public answer, never logged.
  rcon_host: string | null;
  rcon_port: number | null;
  rcon_password: string | null;
  /** When the password was dropped because the RCON address changed; null once one is typed (or removed) again. */
  rcon_password_dropped_at: number | null;
  command_template: string | null;
  sort_order: number;
  /** The server's icon from its status reply, `data:image/png;base64,…`. */
  favicon: string | null;
  /** JSON array of the names in the last status reply's player sample (at most 12); null before. */
  players_sample: string | null;
  /** Why the last check failed, for the admin list. */
  last_error: string | null;
  /** sha256 (hex) of the AzLink plugin's token; null: not linked. The token itself is shown once and never kept. */
  link_token_hash: string | null;
  link_created_at: number | null;
  /** The plugin's last call of any kind (its status check too). */
  link_seen_at: number | null;
  /** The plugin's last report of the players (POST /api/azlink): within two minutes the server counts as online. */
  link_data_at: number | null;
  /** What the plugin runs on, as it reports it: BUKKIT, BUNGEE, VELOCITY… and the platform's own name and version. */
  link_platform: string | null;
  link_platform_name: string | null;
  link_platform_version: string | null;
  link_plugin_version: string | null;
  /** JSON array of the names of every player online at the plugin's last report. */
  link_players: string | null;
  /** Readings of the plugin's last full report (every 15 minutes): TPS, RAM used (MB), CPU (%). */
  link_tps: number | null;
  link_ram: number | null;
  link_cpu: number | null;
  /** rcon | plugin: which way deliveries go (plugin only while linked). */
  delivery_channel: Generated<string>;
  /** 1: after a purchase the site asks the plugin to fetch at once (AzLink's instant commands). */
  link_ping: Generated<number>;
  /** 1: the plugin's in-game registrations, address and password changes make or update site accounts (the owner's switch). */
  link_accounts: Generated<number>;
  /** The port the plugin's instant-commands listener has; null: AzLink's default. */
  link_ping_port: number | null;
  created_at: number;
  updated_at: number;
}

/** One row per check: the players online, or null when the check failed. Thinned to hourly peaks after 7 days. */
export interface ServerOnlineHistoryTable {
  id: Generated<number>;
  server_id: number;
  at: number;
  online: number | null;
  /** From the AzLink plugin's full reports only: TPS, RAM used (MB), CPU (%). */
  tps?: number | null;
  ram?: number | null;
  cpu?: number | null;
}

export interface ServersTables {
  servers: ServersTable;
  server_online_history: ServerOnlineHistoryTable;
}
