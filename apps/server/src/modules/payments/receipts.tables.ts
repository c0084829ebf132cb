import type { Generated } from 'kysely';

/** Tables of 54-ФЗ receipts (payments feature); db/types.ts merges them into the Database type. */
export interface ReceiptsTables {
  receipts: ReceiptsTable;
  balance_spends: BalanceSpendsTable;
}

/**
 * One 54-ФЗ receipt: the top-up's advance (sent with the payment), the completion of that advance
 * when the balance is spent (sent on its own by the jobs runner), or a refund's.
 */
export interface ReceiptsTable {
  id: Generated<number>;
  /** The top-up it belongs to. */
  payment_id: string;
  user_id: number;
  provider: string;
  /** advance | settlement | refund | settle_refund (a completion reversed: the goods' money went back to the balance) */
  kind: string;
  /** pending (to send) | sent (the provider is registering it) | succeeded | canceled (reason says why) */
  state: string;
  reason: string | null;
  /** Kopecks. */
  amount: number;
  /** JSON: the receipt's lines (ReceiptLine[]). */
  lines: string;
  email: string;
  /** The spending's ledger reference (order:…, privilege:…) or the refund's. */
  ref: string | null;
  /** The provider's Idempotence-Key: a repeat never makes a second receipt; a resend takes a new one. */
  idempotence_key: string;
  provider_receipt_id: string | null;
  /** A settle_refund's completion receipt: it is sent only once that one is registered. */
  parent_id: number | null;
  attempts: Generated<number>;
  /** When the runner may try (again). */
  next_at: number | null;
  created_at: number;
  updated_at: number;
}

/**
 * Which top-up paid for which spending (FIFO by top-up, docs/decisions/320-receipts-for-a-balance.md):
 * what is left of a top-up to spend is its amount less refunds less these rows.
 */
export interface BalanceSpendsTable {
  id: Generated<number>;
  user_id: number;
  payment_id: string;
  /** Negative: that much of the part went back to the balance (a delivery refunded), and the top-up may pay for goods again. */
  amount: number;
  /** The spending's ledger reference. */
  ref: string;
  created_at: number;
}
