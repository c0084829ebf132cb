/** Tables of the AuthMe link (docs/authme.md); db/types.ts merges them. */
import type { Generated } from 'kysely';

/**
 * A site account joined to a row of AuthMe's table: one each way. `hash`/`salt` are the player's
 * password as AuthMe holds it when the two were last in step (a login, a write, the import); a
 * row that differs at the next login was changed in the game. `site_hash` is the site's own hash
 * of that moment: a different one means the site changed the password and AuthMe has not heard.
 */
export interface AuthMeLinksTable {
  user_id: number;
  /** AuthMe's `username` column: the name in lower case. */
  authme_name: string;
  /** The algorithm `hash` was read with (AuthMe's settings.security.passwordHash or a legacy one). */
  algorithm: string;
  hash: string;
  salt: string | null;
  /** users.password_hash when last in step; '!authme' (no password of the site's own yet) for an imported account. */
  site_hash: string;
  /** 1: the account came without a usable address; the first login asks for one. */
  needs_email: number;
  /** While a ban locks the game login: what the site wrote into AuthMe's password column instead (the player's stays in `hash`). */
  lock_hash: string | null;
  import_id: number | null;
  linked_at: number;
}

/**
 * Writes to AuthMe's table waiting to be made (a queue table for lib/jobs' ClaimQueue): a new
 * password (the hash already made for AuthMe, never the password) or a ban's lock to set or lift.
 * A write is tried at once; while AuthMe is unreachable it waits here and is retried.
 */
export interface AuthMeOutboxTable {
  id: Generated<number>;
  user_id: number;
  /** 'password' | 'ban'. */
  op: string;
  hash: string | null;
  salt: string | null;
  algorithm: string | null;
  /** users.password_hash the new password was stored with on the site. */
  site_hash: string | null;
  created_at: number;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  lock_token: string | null;
  locked_until: number | null;
}

/** Warnings for the owner, one row per kind, counted (a flood of broken logins takes no space). */
export interface AuthMeWarningsTable {
  kind: string;
  count: number;
  first_at: number;
  last_at: number;
  /** The latest case (a name, the database's complaint); never the address or its password. */
  detail: string | null;
}

/**
 * An import or a dry run of AuthMe's table, worked through in batches by the import job: the
 * cursor is AuthMe's last name done, committed with each batch, so a restart goes on from there.
 */
export interface AuthMeImportsTable {
  id: Generated<number>;
  /** 'dry' | 'import'. */
  mode: string;
  /** 'queued' | 'running' | 'done' | 'failed' | 'cancelled'. */
  state: string;
  created_by: number | null;
  created_at: number;
  finished_at: number | null;
  cursor: string | null;
  total: number;
  processed: number;
  created: number;
  linked: number;
  name_collisions: number;
  without_email: number;
  refused: number;
  broken_hashes: number;
  error: string | null;
  lock_token: string | null;
  locked_until: number | null;
}

/** Names of one run the site's rules refused (kept for the owner; a long one cut). */
export interface AuthMeRefusalsTable {
  id: Generated<number>;
  import_id: number;
  name: string;
  reason: string;
}

export interface AuthMeTables {
  authme_links: AuthMeLinksTable;
  authme_outbox: AuthMeOutboxTable;
  authme_warnings: AuthMeWarningsTable;
  authme_imports: AuthMeImportsTable;
  authme_refusals: AuthMeRefusalsTable;
}
