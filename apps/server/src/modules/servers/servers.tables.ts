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
  /** Last known players online (from the monitor). */
  online: number;
  /** 'online' | 'offline' */
  status: string;
  version: string | null;
  motd: string | null;
  /** Consecutive failed checks; the server turns offline at two. */
  fail_count: number;
  last_checked_at: number | null;
  // Delivery into the game (shop): admin only, never in a public answer, never logged.
  rcon_host: string | null;
  rcon_port: number | null;
  rcon_password: string | null;
  command_template: string | null;
  sort_order: number;
  created_at: number;
  updated_at: number;
}

export interface ServersTables {
  servers: ServersTable;
}
