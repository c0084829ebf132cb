import type { Generated } from 'kysely';
import type { PrivilegeEndReason } from '@kubik/contract';

/** Tables of the privileges feature; db/types.ts merges them into the Database type. */
export interface PrivilegesTables {
  privileges: PrivilegesTable;
  privilege_purchases: PrivilegePurchasesTable;
  kit_claims: KitClaimsTable;
  donate_kit_ids: DonateKitIdsTable;
}

/**
 * A tier held by a player. At most one row per player has ended_at null (a partial unique
 * index); it runs while expires_at is ahead, and the expiry job ends it (ended_at, its revoke
 * commands queued in the same transaction) once it is not.
 */
export interface PrivilegesTable {
  id: Generated<number>;
  user_id: number;
  /** No foreign key: a deleted tier's privileges run to their end. */
  tier_id: number;
  /** The tier's title when it was last bought or granted. */
  tier_title: string;
  starts_at: number;
  expires_at: number;
  ended_at: number | null;
  end_reason: PrivilegeEndReason | null;
  /** When the «ends in 3 days» letter was queued for the current end; cleared when the end moves. */
  reminded_at: number | null;
  /** The admin who granted it by hand; null when bought. */
  granted_by: number | null;
  created_at: number;
  updated_at: number;
}

export interface PrivilegePurchasesTable {
  id: Generated<number>;
  privilege_id: number;
  user_id: number;
  tier_id: number;
  months: number;
  /** Kopecks: the period's price, the lower tier's unused days counted toward it, and what was debited. */
  price: number;
  credit: number;
  total: number;
  /** The lower tier's privilege this purchase ended (an upgrade). */
  replaced_id: number | null;
  created_at: number;
  /** A gift: the player who paid (user_id holds the privilege); null when bought for oneself. */
  paid_by: number | null;
}

export interface KitClaimsTable {
  id: Generated<number>;
  user_id: number;
  kit_id: number;
  tier_id: number;
  privilege_id: number;
  kit_name: string;
  claimed_at: number;
}

/** Hands out kit ids; kits themselves live in their tier's kits_json. */
export interface DonateKitIdsTable {
  id: Generated<number>;
  tier_id: number;
  created_at: number;
}
