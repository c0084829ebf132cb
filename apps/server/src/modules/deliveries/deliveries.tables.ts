import type { Generated } from 'kysely';

/** Tables of the delivery queue; db/types.ts merges them into the Database type. */
export interface DeliveriesTables {
  deliveries: DeliveriesTable;
}

/**
 * One thing to run in the game: the commands of a shop purchase (one row per stack when the
 * server's template applies), of a privilege's start or end, of a kit, of a ban. Rows are claimed
 * by one worker at a time and move pending → sent → done | failed | unknown (or back to pending
 * while the server or the player is unreachable); refunded is the shop's.
 */
export interface DeliveriesTable {
  id: Generated<number>;
  /** shop | privilege_grant | privilege_revoke | kit | ban | unban */
  source: string;
  /** The source's row: the shop order, the privilege, the kit claim, the ban. */
  source_id: number | null;
  /** The player: {player} and {uuid} are read from this account when the command is sent. */
  user_id: number | null;
  /** A nickname without an account (a guest's purchase): {player} is this name while user_id is null. */
  player_name: Generated<string | null>;
  /** What it is, for the admin and the player («Алмаз», «VIP на 30 дней»). */
  label: string;
  /** Where to send it; null until resolved (see server_scope). No foreign key: servers are deleted freely. */
  server_id: number | null;
  /** server: server_id; only: the only server with RCON, resolved when sent; all: one row per server with RCON. */
  server_scope: string;
  /** JSON array of command templates; null: the server's command template (shop items without commands of their own). */
  commands: string | null;
  /** JSON object of placeholder values other than {player} and {uuid}: {item}, {quantity}, {order}, {tier}, … */
  params: string;
  /** Index of the next command to run: a delivery of several commands resumes where it stopped. */
  step: number;
  /** Units of the source this row carries (the shop: pieces bought); null for other sources. */
  quantity: number | null;
  /** pending | sent | done | failed | unknown | refunded */
  state: string;
  /** Why a pending row waits: player_offline | server_down | no_server; null otherwise. */
  waiting: string | null;
  /** Commands sent for this row. */
  attempts: number;
  /** Consecutive waits (server unreachable, player not in the game); drives the backoff. */
  retries: number;
  next_attempt_at: number;
  /** Claim of one worker: set by a conditional update, so two instances never send the same row. */
  lock_token: string | null;
  locked_until: number | null;
  /** The last command sent, as sent. */
  command: string | null;
  reply: string | null;
  last_error: string | null;
  sent_at: number | null;
  done_at: number | null;
  refunded_at: number | null;
  /** plugin: handed to the AzLink plugin (done means handed over, not confirmed); null: RCON. */
  channel: string | null;
  created_at: number;
  updated_at: number;
}
