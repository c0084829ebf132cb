/** Tables of the purchases core; db/types.ts merges them into the Database type. */
export interface PurchasesTables {
  purchase_keys: PurchaseKeysTable;
  shop_idempotency: LegacyKeysTable;
  privilege_idempotency: LegacyKeysTable;
}

/**
 * The first answer to a purchase sent with an Idempotency-Key, per player: every way to spend the
 * balance keeps its keys here. Kept a week (purchases.keys.ts, keyCleanupJob).
 */
export interface PurchaseKeysTable {
  user_id: number;
  key: string;
  /** What was bought: 'shop', 'tier' (PurchaseKind). */
  kind: string;
  /** SHA-256 (hex) of the kind and the request; the same key with another request is refused. */
  request: string;
  /** JSON of the answer; written in the purchase's own transaction, so a committed key has one. */
  response: string | null;
  created_at: number;
}

/**
 * The keys of the release before purchase_keys (`shop_id:quantity` in shop_idempotency,
 * `tier:months` in privilege_idempotency). Read only, for a retry of a purchase that an instance
 * of that release made during the rolling restart; the next release drops both tables.
 */
export interface LegacyKeysTable {
  user_id: number;
  key: string;
  request: string;
  response: string | null;
  created_at: number;
}
