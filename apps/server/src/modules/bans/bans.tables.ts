import type { Generated } from 'kysely';

/**
 * Tables of bans; db/types.ts merges them. The ban in force is also on the user's row
 * (users.banned_at, ban_until, ban_reason — the public reason; the note is only here).
 */
export interface BansTables {
  bans: BansTable;
  ban_server_commands: BanServerCommandsTable;
}

/** Every ban ever given: the one in force has lifted_at null (at most one per player). */
export interface BansTable {
  id: Generated<number>;
  user_id: number;
  /** The public reason: the player sees it at login, in the notice and in game, anyone in the profile; '' when none. */
  reason: string;
  /** The internal note: only staff with the `bans` permission see it (the history, the audit log). */
  note: string;
  /** The end (epoch ms); null: forever. */
  until: number | null;
  created_at: number;
  /** The administrator who banned; null when that account is gone. */
  created_by: number | null;
  lifted_at: number | null;
  /** The administrator who lifted it early; null when it ran out (or the account was deleted). */
  lifted_by: number | null;
  /** admin | expired | deleted */
  lift_reason: string | null;
}

/** Optional console commands a server runs on a ban and on its end ({player}, {uuid}, {reason}, {until}, {duration}). */
export interface BanServerCommandsTable {
  /** servers.id; no foreign key: a deleted server's row is simply never read again. */
  server_id: number;
  ban_command: string | null;
  unban_command: string | null;
  updated_at: number;
}
