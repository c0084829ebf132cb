import type { Generated } from 'kysely';

/** Tables of the payments feature; db/types.ts merges them into the Database type. */
export interface PaymentsTables {
  payments: PaymentsTable;
  payment_events: PaymentEventsTable;
  payment_providers: PaymentProvidersTable;
  payment_refusals: PaymentRefusalsTable;
  payment_operations: PaymentOperationsTable;
}

/**
 * Provider transfers (ЮMoney operation_id, FreeKassa intid) whose signed notification was judged
 * on its own word: each is judged once, credited or refused, so the same transfer never comes back
 * with a field its signature does not cover changed.
 */
export interface PaymentOperationsTable {
  provider: string;
  operation_id: string;
  /** The payment the notification named. */
  payment_id: string;
  /** What the site made of it (the first verdict, which stands). */
  outcome: string;
  created_at: number;
}

/** The owner's settings of one provider (Платежи → Подключения); null columns fall back to the environment. */
export interface PaymentProvidersTable {
  provider: string;
  /** 1 on, 0 off, null: on when the environment configures it. */
  enabled: number | null;
  receipts: number | null;
  min_kopecks: number | null;
  max_kopecks: number | null;
  /** JSON object of plain fields (wallet, shop id, URLs). */
  fields: string;
  /** JSON object of secrets, each sealed by lib/secret-box.ts; never sent to anyone. */
  secrets: string;
  /** JSON object: key → when it was dropped because an address of the provider changed. */
  dropped_secrets: string;
  updated_at: number;
}

/** Refused notifications summed up per provider and reason (bounded: one row each). */
export interface PaymentRefusalsTable {
  provider: string;
  reason: string;
  count: number;
  first_at: number;
  last_at: number;
  last_ip: string | null;
}

export interface PaymentsTable {
  /** UUID; also the provider's idempotence key / order id. */
  id: string;
  user_id: number;
  provider: string;
  /** Kopecks paid. */
  amount: number;
  /** Kopecks of the owner's bonus credited with it. */
  bonus: Generated<number>;
  /** pending | succeeded | canceled | refunding | refunded; changed only forward, by conditional updates. */
  status: string;
  provider_payment_id: string | null;
  provider_status: string | null;
  confirmation_url: string | null;
  /** A 'topup_bonus' promo code entered with the top-up (its use is counted when the payment is credited). */
  promo_id: number | null;
  created_at: number;
  updated_at: number;
  paid_at: number | null;
  canceled_at: number | null;
  refunded_at: number | null;
  refund_requested_by: number | null;
  /** How many refunds were started (the last one's number names its ledger rows and idempotence key). */
  refund_attempts: Generated<number>;
  /** Epoch ms until which one caller talks to the provider about the refund. */
  refund_lease_until: number | null;
  provider_refund_id: string | null;
  /** Why the last refund attempt did not finish. */
  refund_error: string | null;
  /** Last time reconciliation asked the provider. */
  checked_at: number | null;
  /** Kopecks returned to the card by finished refunds (partial refunds add up). */
  refunded_amount: Generated<number>;
  /** Kopecks of the bonus taken back by finished refunds. */
  bonus_refunded: Generated<number>;
  /** The refund in flight (status refunding): kopecks to the card, and the bonus share debited with it. */
  refund_now: number | null;
  refund_bonus_now: number | null;
  /** The provider's id of the transfer that paid it (ЮMoney operation_id, FreeKassa intid): unique per provider. */
  provider_operation_id: string | null;
  /** The address of the request that created it (as TRUST_PROXY reads it); null before it was kept, and after the account is deleted. */
  payer_ip: string | null;
  /** sha256 of that browser's `kubik_device` cookie (as known_devices keeps it); null when it sent none. */
  payer_device: string | null;
  /**
   * topup: money put on the balance (an advance under 54-ФЗ, spent FIFO by top-up); goods: money
   * paid for goods directly (a subscription's period), whose receipt went with the payment as
   * «полный расчёт» and which never enters the top-ups' FIFO.
   */
  purpose: Generated<string>;
  /**
   * JSON {email, lines} of the receipt that went with the payment, fixed when it was created: a
   * top-up's advance (the crediting transaction records it as the `advance` receipt row) or the
   * goods' «полный расчёт» (a partial refund's receipt repeats its line). Null: none went.
   */
  receipt: string | null;
}

export interface PaymentEventsTable {
  id: Generated<number>;
  /** Null for a notification naming no payment of ours. */
  payment_id: string | null;
  provider: string;
  /** notification | create | fetch | refund | error */
  kind: string;
  ip: string | null;
  /** What the site made of it, in Russian. */
  outcome: string;
  /** The notification or the provider's answer as JSON. */
  body: string | null;
  created_at: number;
}
