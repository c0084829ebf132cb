/** Tables of the subscriptions feature; db/types.ts merges them into the Database type. */
export interface SubscriptionsTables {
  subscriptions: SubscriptionsTable;
  subscription_charges: SubscriptionChargesTable;
}

/**
 * A tier bought by subscription: the first payment saves the card (YooKassa payment method,
 * T-Bank RebillId), and the clock (subscriptions.clock.ts) charges it every `months` months.
 * States move pending → active ⇄ past_due → ended, or to canceled, only by conditional updates.
 */
export interface SubscriptionsTable {
  /** UUID. */
  id: string;
  user_id: number;
  tier_id: number;
  /** The tier's title when subscribed. */
  title: string;
  provider: string;
  /** pending | active | past_due | canceled | ended */
  state: string;
  /**
   * `{user_id}:{tier_id}` while the subscription is live (pending, active, past_due), null after:
   * a unique index on it lets one live subscription per player and tier in, whoever clicks twice.
   */
  live_key: string | null;
  /** Kopecks charged each period, and the period in months. */
  amount: number;
  months: number;
  /** YooKassa's saved payment method id, or T-Bank's RebillId; null until the first payment saved one. */
  method_id: string | null;
  /** The card's last four digits, as the provider reported them. */
  card_last4: string | null;
  /** Paid periods so far. */
  periods: number;
  /** The end of what is paid for (the privilege's end when the last period was granted). */
  paid_until: number | null;
  /** When the clock charges next (null: never). */
  next_charge_at: number | null;
  /** The period (periods + 1) whose reminder went out. */
  reminded_period: number;
  /** Failed charges in a row; the first of them (the grace period counts from it). */
  failures: number;
  failing_since: number | null;
  created_at: number;
  updated_at: number;
  canceled_at: number | null;
  ended_at: number | null;
}

/**
 * One payment of a subscription: the first (period 1) or a charge of a later period (one row per
 * attempt). The payment is an ordinary row of `payments`, credited through the same exactly-once
 * path; `paid_at` marks that the period was granted, once.
 */
export interface SubscriptionChargesTable {
  payment_id: string;
  subscription_id: string;
  period: number;
  attempt: number;
  /** Kopecks asked. */
  amount: number;
  /** pending | paid | failed */
  status: string;
  /** Why the provider refused (YooKassa cancellation_details.reason, T-Bank's error), in Russian. */
  failure: string | null;
  created_at: number;
  paid_at: number | null;
}
