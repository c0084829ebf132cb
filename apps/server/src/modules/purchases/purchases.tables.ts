import type { Generated } from 'kysely';

/** Tables of the purchases core; db/types.ts merges them into the Database type. */
export interface PurchasesTables {
  purchase_keys: PurchaseKeysTable;
  shop_idempotency: LegacyKeysTable;
  privilege_idempotency: LegacyKeysTable;
  promo_codes: PromoCodesTable;
  promo_uses: PromoUsesTable;
}

/** A promo code (Админ-панель → Промокоды); applied by purchases.promo.ts. */
export interface PromoCodesTable {
  id: Generated<number>;
  /** As the owner wrote it, and lower-cased (unique): codes are compared without case. */
  code: string;
  code_key: string;
  /** 'percent' | 'fixed' | 'topup_bonus' */
  kind: string;
  /** Percent for 'percent' and 'topup_bonus'; kopecks for 'fixed'. */
  value: number;
  /** 'shop' | 'donate' | 'all' */
  applies_to: string;
  /** JSON array of shop item ids it is limited to; null: any. */
  item_ids: string | null;
  category: string | null;
  max_uses: number | null;
  per_player: number;
  /** Kopecks the covered lines must add up to. */
  min_total: number | null;
  starts_at: number | null;
  ends_at: number | null;
  disabled_at: number | null;
  /** Uses taken; only ever raised by a conditional update below max_uses. */
  uses: Generated<number>;
  created_at: number;
  updated_at: number;
}

/** One use of a code: who, in what ('shop', 'donate', 'topup'), the kopecks off (or the bonus) and the total paid. */
export interface PromoUsesTable {
  id: Generated<number>;
  promo_id: number;
  user_id: number;
  target: string;
  ref: string;
  discount: number;
  total: number;
  created_at: number;
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
