import type { Generated } from 'kysely';

/** Tables of two-factor login and session activity; db/types.ts merges them. */

/**
 * A player's authenticator (TOTP, RFC 6238). `secret` is the confirmed one, `pending_secret` the
 * one being set up (shown once, until a code from it confirms it). Both are sealed with
 * TWO_FACTOR_KEY when the owner set one (two-factor.crypto.ts).
 */
export interface TwoFactorTable {
  user_id: number;
  secret: string | null;
  pending_secret: string | null;
  pending_at: number | null;
  /** Null while only a setup is pending: login needs a code only once this is set. */
  enabled_at: number | null;
  /** The 30-second step of the last accepted code: a code of that step or an earlier one is refused (no replay). */
  last_step: number | null;
}

/** Single-use recovery codes, stored as sha256 hashes only. */
export interface TwoFactorRecoveryTable {
  id: Generated<number>;
  user_id: number;
  code_hash: string;
  used_at: number | null;
}

/**
 * When a session was last used and from where. Kept apart from `sessions` on purpose: every write
 * to `sessions` drops every instance's user cache, and this one is written as players browse.
 */
export interface SessionActivityTable {
  token_hash: string;
  last_seen_at: number;
  ip: string | null;
}

export interface TwoFactorTables {
  two_factor: TwoFactorTable;
  two_factor_recovery: TwoFactorRecoveryTable;
  session_activity: SessionActivityTable;
}
