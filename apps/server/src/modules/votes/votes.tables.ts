import type { Generated } from 'kysely';

/** Tables of the votes feature; db/types.ts merges them into the Database type. */
export interface VoteSitesTable {
  id: Generated<number>;
  kind: string;
  title: string;
  url: string;
  /** The top's secret key, as the owner entered it (the signatures are made with it). */
  secret: string;
  /** Kopecks. */
  reward_amount: number;
  /** JSON array of console commands ({player}, {uuid}). */
  reward_commands: string;
  /** JSON array of server ids; [] — every server with RCON. */
  server_ids: string;
  cooldown_hours: number;
  /** JSON CustomVoteScheme for kind 'custom', else null. */
  custom: string | null;
  enabled: number;
  created_at: number;
  updated_at: number;
}

/** A rewarded vote; (site_id, dedupe) is unique, so a repeated callback is a replay. */
export interface VotesTable {
  id: Generated<number>;
  site_id: number;
  user_id: number;
  /** lower-case name + ':' + the top's timestamp (or the time of arrival when the top sends none). */
  dedupe: string;
  created_at: number;
}

/** When a player may next be rewarded for a vote on a site: one conditional upsert takes the slot. */
export interface VoteCooldownsTable {
  site_id: number;
  user_id: number;
  next_at: number;
}

/** The latest callbacks of each site (kept to 50 each). */
export interface VoteLogTable {
  id: Generated<number>;
  site_id: number;
  outcome: string;
  username: string | null;
  ip: string | null;
  created_at: number;
}

/** Callbacks of each site counted by outcome. */
export interface VoteLogCountsTable {
  site_id: number;
  outcome: string;
  count: number;
}

/** A month whose prizes were paid (YYYY-MM in TIME_ZONE); the primary key makes it once. */
export interface VotePrizePayoutsTable {
  month: string;
  paid_at: number;
  /** JSON [{place, user_id, amount}] */
  winners: string;
}

export interface VotesTables {
  vote_sites: VoteSitesTable;
  votes: VotesTable;
  vote_cooldowns: VoteCooldownsTable;
  vote_log: VoteLogTable;
  vote_log_counts: VoteLogCountsTable;
  vote_prize_payouts: VotePrizePayoutsTable;
}
