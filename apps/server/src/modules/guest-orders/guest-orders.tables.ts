import type { Generated } from 'kysely';
import type { GuestOrderKind } from '@kubik/contract';

/** Tables of the guest-orders feature; db/types.ts merges them into the Database type. */
export interface GuestOrdersTables {
  guest_orders: GuestOrdersTable;
}

/**
 * A shop item or a donate tier bought for a nickname without an account: paid straight to the
 * provider (no balance is ever involved), delivered to the nickname in the game, and attached to
 * the account registered later with that nickname. Status moves pending → paid | canceled by
 * conditional updates.
 */
export interface GuestOrdersTable {
  /** UUID: our order id at the provider (YooKassa's idempotence key, T-Bank's OrderId). */
  id: string;
  nickname: string;
  nickname_lower: string;
  /** Where the receipt goes. */
  email: string;
  /** item: a shop item; tier: a donate tier (a privilege for some months). */
  kind: Generated<GuestOrderKind>;
  /** The shop item, or the tier (kind tier). */
  item_id: number;
  /** The item's name, or the tier's title. */
  item_name: string;
  /** Pieces, or months (kind tier). */
  quantity: number;
  /** Kopecks to pay. */
  amount: number;
  provider: string;
  provider_payment_id: string | null;
  confirmation_url: string | null;
  /** pending | paid | canceled */
  status: string;
  /** 1 once its deliveries were queued; 0 when paid but the item could not be given (sold out meanwhile): the owner refunds it. */
  fulfilled: number;
  /** The account with this nickname, when there is one (at payment or registered later). */
  user_id: number | null;
  payer_ip: string | null;
  /**
   * A tier's privilege while the order holds it (no account had the nickname when it was paid):
   * its end, and when its revoke commands were queued. An account registered meanwhile takes it
   * as a privilege of its own (privilege_id), and the privileges' expiry ends it from then on.
   */
  expires_at: number | null;
  ended_at: number | null;
  /** The privilege an account holds for this tier order. */
  privilege_id: number | null;
  created_at: number;
  paid_at: number | null;
  checked_at: number | null;
}
