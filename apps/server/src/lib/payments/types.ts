import type { PaymentForm, PaymentProvider } from '@kubik/contract';

/** What a provider says about one of its payments, in our terms. */
export interface ProviderPaymentState {
  /** pending: not settled yet; succeeded: paid (captured); canceled: will never be paid; refunded: paid, then returned. */
  status: 'pending' | 'succeeded' | 'canceled' | 'refunded';
  /** The provider's own status word (YooKassa `succeeded`, T-Bank `CONFIRMED`…), kept for the owner. */
  providerStatus: string;
  /** Kopecks the provider says were (or are to be) paid. */
  amountKopecks: number;
  /** Our payment id as the provider keeps it (YooKassa metadata.payment_id, T-Bank OrderId); null when absent. */
  orderId: string | null;
  /** The provider's answer as it came, for the payment's events. */
  raw: unknown;
  /** The provider's id of the money transfer (ЮMoney operation_id, FreeKassa intid): a payment is credited once per id. */
  operationId?: string;
  /**
   * How amountKopecks compares with what the player was asked: 'exact' (default) must equal it;
   * 'covers' (ЮMoney: what reached the wallet after its commission) must be at least the asked
   * amount less `commissionPercent` % of it (the commission rounded up to a kopeck), and then the
   * asked amount is credited.
   */
  amountRule?: 'exact' | 'covers';
  /** With 'covers': the largest commission (whole per cent) the provider may have taken off. */
  commissionPercent?: number;
}

/**
 * The least that reaches the account for `askedKopecks` when the provider takes at most
 * `percent` % off it, its commission rounded up to a kopeck (1 000 ₽ less 3 % → 970 ₽).
 */
export function leastArriving(askedKopecks: number, percent: number): number {
  return askedKopecks - Math.ceil((askedKopecks * percent) / 100);
}

export interface CreateRequest {
  /** Our payment id: YooKassa's Idempotence-Key and metadata, T-Bank's OrderId. */
  id: string;
  amountKopecks: number;
  description: string;
  /** Where the player comes back: PUBLIC_URL/profile?payment={id}. */
  returnUrl: string;
  /** Where the provider posts notifications (T-Bank takes it per payment; YooKassa from the shop's settings). */
  notificationUrl: string;
  /** The player's e-mail, for the 54-ФЗ receipt. */
  email: string;
  /** VAT code of the receipt (YooKassa `vat_code`). */
  vatCode: number;
  /** The seller's tax system (`tax_system_code` 1–6) and whether it is a самозанятый (items without VAT). */
  fiscal?: ReceiptFiscal;
  /**
   * Goods paid for directly (a guest's order): the receipt's lines, «полный расчёт» (full_payment).
   * Without them the receipt is the top-up's advance of `amountKopecks` at `vatCode`.
   */
  lines?: ReceiptLine[];
}

export interface ReceiptFiscal {
  taxSystemCode: number | null;
  selfEmployed: boolean;
}

/** One line of a 54-ФЗ receipt, in our terms. */
export interface ReceiptLine {
  description: string;
  amountKopecks: number;
  vatCode: number;
  /** full_prepayment (the top-up, an advance), full_payment (goods handed over). */
  paymentMode: string;
  paymentSubject: string;
}

/** A receipt sent on its own (YooKassa POST /v3/receipts): the completion of an advance, or a refund's. */
export interface ReceiptRequest {
  /** Our receipt's idempotence key: a repeat never makes a second receipt. */
  key: string;
  type: 'payment' | 'refund';
  /** The provider's id of the top-up it belongs to. */
  providerPaymentId: string | null;
  email: string;
  lines: ReceiptLine[];
  /** prepayment: the advance is offset (зачёт предоплаты). */
  settlement: 'prepayment' | 'cashless';
  taxSystemCode: number | null;
}

export interface ReceiptState {
  providerReceiptId: string | null;
  status: 'pending' | 'succeeded' | 'canceled';
  /** Why the provider canceled it. */
  reason: string | null;
  raw: unknown;
}

export interface CreatedPayment {
  providerPaymentId: string;
  /** A page to open, or null when the player posts `form` instead. */
  confirmationUrl: string | null;
  form?: PaymentForm | null;
  /** ЮMoney: the label its notification will carry. */
  label?: string | null;
  state: ProviderPaymentState | null;
}

/** Why a notification was refused (summed up per provider, never stored whole). */
export type RefusalReason = 'foreign_ip' | 'bad_token' | 'malformed' | 'codepro' | 'unaccepted' | 'wrong_account' | 'rate_limited';

/**
 * What a notification carries once it is judged authentic: which payment (by the provider's id
 * or by ours), and — for providers whose word cannot be re-read (ЮMoney without a token,
 * FreeKassa without an API key) — the state the signed notification itself states.
 */
export type NotificationVerdict =
  | { ok: true; providerPaymentId?: string; paymentId?: string; state?: ProviderPaymentState; test?: boolean }
  | {
      ok: false;
      reason: RefusalReason;
      message: string;
      /**
       * An authentic notification refused for what it says (ЮMoney: `unaccepted`, `codepro`): the
       * transfer it names, judged now, so it is never taken later with an unsigned field changed.
       */
      operation?: { paymentId: string; operationId: string };
    };

/** The answer a provider expects to a notification. */
export interface NotificationReply {
  status: number;
  contentType: string;
  body: string;
}

/** A provider's refusal or a failed call; `definitive` when repeating the same call cannot succeed. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly definitive: boolean,
    readonly raw: unknown = null,
  ) {
    super(message);
  }
}

/**
 * One payment provider behind the interface the payments module uses; it never knows which.
 * Every call may throw ProviderError.
 */
export interface PaymentAdapter {
  readonly name: PaymentProvider;
  /** False when the provider cannot be asked about a payment (ЮMoney without an OAuth token). */
  readonly canFetch: boolean;
  /** False when the provider has no refund through its API (ЮMoney, FreeKassa). */
  readonly canRefund: boolean;
  create(req: CreateRequest): Promise<CreatedPayment>;
  /** «Проверить подключение»: a harmless call with the keys; a Russian verdict. */
  check(): Promise<{ ok: boolean; message: string }>;
  /** Re-reads a payment from the provider: the only thing the site believes. */
  fetch(providerPaymentId: string): Promise<ProviderPaymentState>;
  /**
   * False for a sender outside the addresses the provider posts from, judged before the body is
   * read (absent: the provider publishes none and signs its notifications instead).
   */
  acceptsSender?(ip: string): boolean;
  /** Judges a notification (caller IP, body); it never decides the payment's state. */
  verifyNotification(ip: string, body: unknown): NotificationVerdict;
  /** The reply the provider expects when a notification was taken (or refused). */
  notificationReply(accepted: boolean): NotificationReply;
  /**
   * Returns the whole payment to the payer. Repeating it with the same request (same `key`, the
   * refund attempt's) never returns the money twice. Throws ProviderError: `definitive` when the
   * provider refused this refund (nothing was returned), otherwise the outcome is unknown.
   */
  refund(req: RefundRequest): Promise<RefundResult>;
  /** Sends a receipt of its own (absent: the provider takes receipts only with its payments). */
  sendReceipt?(req: ReceiptRequest): Promise<ReceiptState>;
  /** Re-reads a receipt sent before. */
  fetchReceipt?(providerReceiptId: string): Promise<ReceiptState>;
}

export interface RefundRequest {
  providerPaymentId: string;
  amountKopecks: number;
  /** The refund attempt's own key: `{payment id}:refund:{n}` (YooKassa's Idempotence-Key). */
  key: string;
  /** The provider's id of this attempt's refund, when an earlier call got one: it is re-read instead. */
  knownRefundId: string | null;
  /**
   * A part (not the whole payment at once): its 54-ФЗ receipt's customer and VAT code (YooKassa
   * wants one then); `line`: the goods' line of a payment for goods (the part's amount replaces
   * its own), else the receipt is the top-up's advance line.
   */
  partReceipt?: { email: string; vatCode: number; fiscal?: ReceiptFiscal; line?: ReceiptLine } | null;
}

export interface RefundResult {
  /** succeeded: the money is on its way back; pending: the provider is still deciding. */
  status: 'succeeded' | 'pending';
  providerRefundId: string | null;
  raw: unknown;
}

/** Kopecks as the string providers speak: 15050 → "150.50". */
export function kopecksToValue(kopecks: number): string {
  const sign = kopecks < 0 ? '-' : '';
  const k = Math.abs(kopecks);
  return `${sign}${Math.floor(k / 100)}.${String(k % 100).padStart(2, '0')}`;
}

/** "150.50" (or "150.5", "150") → 15050; NaN when it is not a money string. */
export function valueToKopecks(value: unknown): number {
  if (typeof value !== 'string' || !/^\d{1,12}(\.\d{1,2})?$/.test(value)) return Number.NaN;
  const [whole, frac = ''] = value.split('.');
  return Number(whole) * 100 + Number(frac.padEnd(2, '0'));
}

/** A JSON call with a deadline; network failures become non-definitive ProviderErrors. */
export async function callJson(url: string, init: RequestInit, timeoutMs = 15_000): Promise<{ status: number; body: unknown }> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new ProviderError(`нет связи с платёжной системой: ${(err as Error).message}`, false);
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, body };
}
