/** Tables of the guest-orders feature; db/types.ts merges them into the Database type. */
export interface GuestOrdersTables {
  guest_orders: GuestOrdersTable;
}

/**
 * A shop item bought for a nickname without an account: paid straight to the provider (no
 * balance is ever involved), delivered to the nickname in the game, and attached to the account
 * registered later with that nickname. Status moves pending → paid | canceled by conditional updates.
 */
export interface GuestOrdersTable {
  /** UUID: our order id at the provider (YooKassa's idempotence key, T-Bank's OrderId). */
  id: string;
  nickname: string;
  nickname_lower: string;
  /** Where the receipt goes. */
  email: string;
  item_id: number;
  item_name: string;
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
  created_at: number;
  paid_at: number | null;
  checked_at: number | null;
}
