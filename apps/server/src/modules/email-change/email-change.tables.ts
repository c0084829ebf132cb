import type { Generated } from 'kysely';

/** E-mail changes of players; db/types.ts merges them. */
export interface EmailChangeTables {
  email_changes: EmailChangesTable;
}

/**
 * One requested change of a player's address. The address changes only when the link sent to
 * the new one is opened (confirmed_at); the old address gets a cancel link that undoes the
 * change, pending or done, until cancel_until. Tokens are kept only as SHA-256 hashes.
 */
export interface EmailChangesTable {
  id: Generated<number>;
  user_id: number;
  old_email: string;
  new_email: string;
  confirm_hash: string;
  cancel_hash: string;
  created_at: number;
  /** The confirmation link works until then. */
  expires_at: number;
  /** The cancel link works until then (after a confirmation too). */
  cancel_until: number;
  confirmed_at: number | null;
  /** Cancelled from the old address, replaced by a newer request, or withdrawn in the settings. */
  cancelled_at: number | null;
}
