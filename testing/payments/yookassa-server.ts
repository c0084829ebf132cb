/**
 * A fake of YooKassa (ЮKassa) API v3, written from its documentation (yookassa.ru/developers/api),
 * for tests: the site talks to it over real HTTP exactly as to https://api.yookassa.ru/v3.
 *
 * What it imitates, quirks included:
 * - HTTP Basic auth shop_id:secret_key; a wrong pair gets 401 `invalid_credentials`.
 * - POST /v3/payments and /v3/refunds need an `Idempotence-Key` header; a repeat with the same key
 *   and body returns the first answer (same object, same id), the same key with another body 400.
 * - Amounts are strings with two decimals (`"150.50"`, currency `"RUB"`); a number is refused.
 * - A shop with 54-ФЗ receipts refuses a payment without `receipt` (customer e-mail or phone, items
 *   whose sum is the amount, each with vat_code, payment_mode, payment_subject).
 * - Receipt items (yookassa.ru/developers/payment-acceptance/receipts/54fz/parameters-values):
 *   description 1–128 characters, quantity > 0, amount in roubles, vat_code 1–12 (11 and 12 are the
 *   22 % rates of 2026), payment_mode and payment_subject from the documented lists; tax_system_code,
 *   when sent, 1–6. A self-employed shop (`selfEmployed`) takes items of description, quantity and
 *   amount only («Мой налог» registers the income).
 * - POST /v3/receipts (the «Сначала платёж, потом чек» scenario): {type: payment | refund,
 *   payment_id, customer, items, settlements [{type, amount}], tax_system_code, send}, with an
 *   Idempotence-Key; the items add up to the settlements; a settlement `prepayment` offsets the
 *   payment's advance and is refused (400 invalid_request, parameter settlements) beyond what the
 *   payment prepaid less what earlier receipts offset and refunds returned; a `refund` receipt with
 *   settlement `prepayment` (a completion reversed: the goods were not handed over) gives that much
 *   back to the advance, never more than was offset. Answers the receipt
 *   {id, type, payment_id, status: pending | succeeded | canceled, …} (see receiptOutcome);
 *   GET /v3/receipts/{id} re-reads it.
 * - Statuses pending → succeeded (capture: true) | waiting_for_capture (capture: false) | canceled,
 *   with `paid`, `captured_at`, `cancellation_details`, `refunded_amount`.
 * - Refunds: POST /v3/refunds {payment_id, amount, description} (Idempotence-Key as for payments;
 *   a shop on receipts from YooKassa sends a receipt only with a partial refund — a full one takes
 *   the payment's own, and a receipt sent with it is refused) answers the refund object
 *   {id, payment_id, status: succeeded | pending | canceled, amount, cancellation_details}; only a
 *   succeeded payment is refundable and never above what is left of it (400 invalid_request).
 *   GET /v3/refunds/{id} re-reads one. A succeeded refund raises the payment's refunded_amount, and
 *   the shop gets a `refund.succeeded` notification.
 * - The confirmation page (confirmation_url) has «Оплатить» and «Отменить»; either sends the shop's
 *   notification (`{type: "notification", event: "payment.succeeded", object: {...}}`, to the URL set
 *   in the shop's settings, here `notificationUrl`) and then redirects the payer to return_url.
 *   Notifications are not signed and are repeated until the shop answers 200.
 * - Saved payment methods (autopayments, yookassa.ru/developers/payment-acceptance/
 *   scenario-extensions/recurring-payments): a payment created with `save_payment_method: true`
 *   and paid gets `payment_method {type: "bank_card", id, saved: true, card {first6, last4,
 *   expiry_month, expiry_year, card_type}}`. A payment with `payment_method_id` of a saved method
 *   needs no confirmation and is decided at once: `succeeded`, or `canceled` with
 *   `cancellation_details {party: "payment_network", reason: "insufficient_funds" | "card_expired"}`
 *   — or, when the bank asks 3-D Secure of the absent payer, `pending` with a confirmation URL.
 *   An unknown (or unsaved) method id is refused with 400 `invalid_request`. The shop is notified
 *   of the outcome as of any payment.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type http from 'node:http';
import { escapeHtml, HttpDouble, postNotification, sendHtml, sendJson, type RequestBody, type SeenRequest } from './http-util.ts';

export interface YooPayment {
  id: string;
  status: 'pending' | 'waiting_for_capture' | 'succeeded' | 'canceled';
  paid: boolean;
  amount: { value: string; currency: string };
  income_amount?: { value: string; currency: string };
  description?: string;
  recipient: { account_id: string; gateway_id: string };
  created_at: string;
  captured_at?: string;
  confirmation?: { type: 'redirect'; return_url: string; confirmation_url: string };
  metadata: Record<string, string>;
  cancellation_details?: { party: string; reason: string };
  refunded_amount?: { value: string; currency: string };
  payment_method?: YooPaymentMethod;
  refundable: boolean;
  test: boolean;
  receipt_registration?: 'pending' | 'succeeded';
}

export interface YooPaymentMethod {
  type: 'bank_card';
  id: string;
  saved: boolean;
  title: string;
  card: { first6: string; last4: string; expiry_month: string; expiry_year: string; card_type: string };
}

/** How the bank answers a charge of a saved card. */
export type SavedCardOutcome = 'ok' | 'insufficient_funds' | 'card_expired' | '3ds';

export interface YooRefund {
  id: string;
  payment_id: string;
  status: 'pending' | 'succeeded' | 'canceled';
  created_at: string;
  amount: { value: string; currency: string };
  description?: string;
  cancellation_details?: { party: string; reason: string };
}

export interface YooReceipt {
  id: string;
  type: 'payment' | 'refund';
  payment_id?: string;
  status: 'pending' | 'succeeded' | 'canceled';
  items: unknown[];
  settlements: { type: string; amount: { value: string; currency: string } }[];
  tax_system_code?: number;
  registered_at?: string;
  cancellation_details?: { party: string; reason: string };
}

const PAYMENT_MODES = ['full_prepayment', 'partial_prepayment', 'advance', 'full_payment', 'partial_payment', 'credit', 'credit_payment'];
const PAYMENT_SUBJECTS = [
  'commodity',
  'excise',
  'job',
  'service',
  'gambling_bet',
  'gambling_prize',
  'lottery',
  'lottery_prize',
  'intellectual_activity',
  'payment',
  'agent_commission',
  'property_right',
  'non_operating_gain',
  'insurance_premium',
  'sales_tax',
  'resort_fee',
  'composite',
  'another',
];
const MONEY = /^\d{1,10}(\.\d{1,2})?$/;
const toKop = (v: string) => Math.round(Number(v) * 100);
const fromKop = (k: number) => `${Math.floor(k / 100)}.${String(k % 100).padStart(2, '0')}`;

export class FakeYooKassa extends HttpDouble {
  readonly payments = new Map<string, YooPayment>();
  readonly requests: SeenRequest[] = [];
  /** Notifications sent to the shop: the body and the shop's answer status. */
  readonly notifications: { body: unknown; status: number }[] = [];
  /** The shop's notification URL (ЮKassa: Интеграция → HTTP-уведомления). */
  notificationUrl: string | null = null;
  /** Shops on 54-ФЗ through YooKassa must send a receipt with each payment. */
  receiptsRequired = false;
  /** The next N API calls fail with this status (500: «internal_server_error»). */
  failNext: { status: number; count: number } | null = null;
  /** How the next refunds end: at once (succeeded), later (pending, see settleRefund) or refused (canceled). */
  refundOutcome: 'succeeded' | 'pending' | 'canceled' = 'succeeded';
  readonly refunds = new Map<string, YooRefund>();
  /** A self-employed shop: receipts of its payments carry no VAT and are not sent on their own. */
  selfEmployed = false;
  /** Receipts created with POST /v3/receipts. */
  readonly receipts = new Map<string, YooReceipt>();
  /** How the next receipts end: registered at once, later (settleReceipt), or refused by the register. */
  receiptOutcome: 'succeeded' | 'pending' | 'canceled' = 'succeeded';
  /** Payments created with capture: true (paid means succeeded at once). */
  private readonly autoCapture = new Set<string>();
  private readonly keys = new Map<string, { body: string; status: number; answer: unknown }>();
  /** Payments asked to save their method. */
  private readonly toSave = new Set<string>();
  /** Saved methods by id, with how the bank answers the next charge of each. */
  readonly savedMethods = new Map<string, { method: YooPaymentMethod; outcome: SavedCardOutcome }>();
  /** The card the payer pays with on the confirmation page (its last digits). */
  nextCardLast4 = '4477';

  constructor(
    readonly shopId = '123456',
    readonly secretKey = 'test_secret_key_0123456789',
  ) {
    super();
  }

  get apiUrl(): string {
    return `${this.url}/v3`;
  }

  protected crashed(res: http.ServerResponse, err: unknown): void {
    sendJson(res, 500, { type: 'error', code: 'internal_server_error', description: String(err) });
  }

  private error(res: http.ServerResponse, status: number, code: string, description: string, parameter?: string): void {
    sendJson(res, status, { type: 'error', id: randomUUID(), code, description, ...(parameter ? { parameter } : {}) });
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse, { text, json, form }: RequestBody): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    if (url.pathname.startsWith('/checkout/')) return this.checkout(req, res, url, form);
    this.requests.push({ method: req.method ?? '', path: url.pathname, headers: req.headers, body: json ?? text });
    if (this.failNext && this.failNext.count > 0) {
      this.failNext.count -= 1;
      return this.error(res, this.failNext.status, 'internal_server_error', 'Internal server error');
    }
    const expected = `Basic ${Buffer.from(`${this.shopId}:${this.secretKey}`).toString('base64')}`;
    if (req.headers.authorization !== expected)
      return this.error(res, 401, 'invalid_credentials', 'Login or password is incorrect. Authentication by given credentials failed');

    if (req.method === 'POST' && (url.pathname === '/v3/payments' || url.pathname === '/v3/refunds' || url.pathname === '/v3/receipts')) {
      const key = req.headers['idempotence-key'];
      if (typeof key !== 'string' || key.length === 0 || key.length > 64)
        return this.error(res, 400, 'invalid_request', 'Idempotence key is missing or invalid', 'Idempotence-Key');
      const seen = this.keys.get(`${url.pathname}:${key}`);
      if (seen) {
        if (seen.body !== text)
          return this.error(res, 400, 'invalid_request', 'Idempotence key duplicated with another request body', 'Idempotence-Key');
        return sendJson(res, seen.status, seen.answer);
      }
      if (json === undefined || typeof json !== 'object' || json === null)
        return this.error(res, 400, 'invalid_request', 'Request body is not a JSON object');
      const out =
        url.pathname === '/v3/payments'
          ? this.createPayment(json as Record<string, unknown>)
          : url.pathname === '/v3/refunds'
            ? this.createRefund(json as Record<string, unknown>)
            : this.createReceipt(json as Record<string, unknown>);
      this.keys.set(`${url.pathname}:${key}`, { body: text, status: out.status, answer: out.answer });
      return sendJson(res, out.status, out.answer);
    }
    const rc = /^\/v3\/receipts\/([\w-]+)$/.exec(url.pathname);
    if (req.method === 'GET' && rc) {
      const receipt = this.receipts.get(rc[1]!);
      if (!receipt) return this.error(res, 404, 'not_found', "Incorrect receipt_id. Receipt doesn't exist or access denied.", 'receipt_id');
      return sendJson(res, 200, receipt);
    }
    const r = /^\/v3\/refunds\/([\w-]+)$/.exec(url.pathname);
    if (req.method === 'GET' && r) {
      const refund = this.refunds.get(r[1]!);
      if (!refund) return this.error(res, 404, 'not_found', "Incorrect refund_id. Refund doesn't exist or access denied.", 'refund_id');
      return sendJson(res, 200, refund);
    }
    const m = /^\/v3\/payments\/([\w-]+)$/.exec(url.pathname);
    if (req.method === 'GET' && m) {
      const p = this.payments.get(m[1]!);
      if (!p)
        return this.error(
          res,
          404,
          'not_found',
          "Incorrect payment_id. Payment doesn't exist or access denied. Specify the payment_id created in your store.",
          'payment_id',
        );
      return sendJson(res, 200, p);
    }
    return this.error(res, 404, 'not_found', 'Not found');
  }

  private createPayment(b: Record<string, unknown>): { status: number; answer: unknown } {
    const bad = (description: string, parameter: string) => ({
      status: 400,
      answer: { type: 'error', id: randomUUID(), code: 'invalid_request', description, parameter },
    });
    const amount = b.amount as { value?: unknown; currency?: unknown } | undefined;
    if (!amount || typeof amount.value !== 'string' || !MONEY.test(amount.value) || toKop(amount.value) <= 0)
      return bad('Invalid amount value', 'amount.value');
    if (amount.currency !== 'RUB') return bad('Invalid currency', 'amount.currency');
    const methodId = b.payment_method_id;
    if (methodId !== undefined) {
      const saved = typeof methodId === 'string' ? this.savedMethods.get(methodId) : undefined;
      if (!saved || !saved.method.saved) return bad('Payment method is not available', 'payment_method_id');
    }
    const confirmation = b.confirmation as { type?: unknown; return_url?: unknown } | undefined;
    if (methodId === undefined && (!confirmation || confirmation.type !== 'redirect' || typeof confirmation.return_url !== 'string'))
      return bad('Confirmation type redirect needs return_url', 'confirmation');
    if (b.description !== undefined && (typeof b.description !== 'string' || b.description.length > 128))
      return bad('Description is longer than 128 characters', 'description');
    const metadata = (b.metadata ?? {}) as Record<string, unknown>;
    if (typeof metadata !== 'object' || Object.keys(metadata).length > 16 || Object.values(metadata).some((v) => typeof v !== 'string'))
      return bad('Invalid metadata', 'metadata');
    if (this.receiptsRequired) {
      if (!b.receipt) return bad('Receipt is missing or illegal', 'receipt');
      const problem = this.receiptProblem(b.receipt, 'receipt');
      if (problem) return bad(problem.description, problem.parameter);
      if (problem === null && this.itemsSum(b.receipt) !== toKop(amount.value))
        return bad('Sum of receipt items differs from the payment amount', 'receipt.items');
    }
    const id = `${randomBytes(4).toString('hex')}-000f-5000-8000-${randomBytes(6).toString('hex')}`;
    const value = fromKop(toKop(amount.value));
    const p: YooPayment = {
      id,
      status: 'pending',
      paid: false,
      amount: { value, currency: 'RUB' },
      ...(typeof b.description === 'string' ? { description: b.description } : {}),
      recipient: { account_id: this.shopId, gateway_id: '2345678' },
      created_at: new Date().toISOString(),
      ...(confirmation && typeof confirmation.return_url === 'string'
        ? {
            confirmation: {
              type: 'redirect' as const,
              return_url: confirmation.return_url,
              confirmation_url: `${this.url}/checkout/payments/v2/contract?orderId=${id}`,
            },
          }
        : {}),
      metadata: metadata as Record<string, string>,
      refundable: false,
      test: true,
    };
    if (b.capture === true) this.autoCapture.add(id);
    if (b.save_payment_method === true) this.toSave.add(id);
    this.payments.set(id, p);
    if (typeof methodId === 'string') this.chargeSaved(p, methodId);
    return { status: 200, answer: this.view(p) };
  }

  /** The payment object as the API shows it (a copy: later changes do not reach an answer already given). */
  private view(p: YooPayment): YooPayment {
    return structuredClone(p);
  }

  private createRefund(b: Record<string, unknown>): { status: number; answer: unknown } {
    const bad = (status: number, code: string, description: string, parameter?: string) => ({
      status,
      answer: { type: 'error', id: randomUUID(), code, description, ...(parameter ? { parameter } : {}) },
    });
    const p = typeof b.payment_id === 'string' ? this.payments.get(b.payment_id) : undefined;
    if (!p) return bad(400, 'invalid_request', 'Payment not found', 'payment_id');
    const amount = b.amount as { value?: unknown; currency?: unknown } | undefined;
    if (!amount || typeof amount.value !== 'string' || !MONEY.test(amount.value) || amount.currency !== 'RUB')
      return bad(400, 'invalid_request', 'Invalid amount', 'amount');
    if (p.status !== 'succeeded') return bad(400, 'invalid_request', 'Refund is possible only for a succeeded payment', 'payment_id');
    const refunded = p.refunded_amount ? toKop(p.refunded_amount.value) : 0;
    if (this.receiptsRequired) {
      const full = refunded === 0 && toKop(amount.value) === toKop(p.amount.value);
      const receipt = b.receipt as { customer?: { email?: unknown; phone?: unknown }; items?: unknown } | undefined;
      if (full && receipt !== undefined) return bad(400, 'invalid_request', 'Receipt is not needed for a full refund', 'receipt');
      if (!full) {
        if (!receipt) return bad(400, 'invalid_request', 'Receipt is missing or illegal', 'receipt');
        const problem = this.receiptProblem(receipt, 'receipt');
        if (problem) return bad(400, 'invalid_request', problem.description, problem.parameter);
        if (this.itemsSum(receipt) !== toKop(amount.value))
          return bad(400, 'invalid_request', 'Sum of receipt items differs from the refund amount', 'receipt.items');
      }
    }
    if (toKop(amount.value) > toKop(p.amount.value) - refunded)
      return bad(400, 'invalid_request', 'Refund amount exceeds the payment amount', 'amount.value');
    const refund: YooRefund = {
      id: `${randomBytes(4).toString('hex')}-0015-5000-9000-${randomBytes(6).toString('hex')}`,
      payment_id: p.id,
      status: 'pending',
      created_at: new Date().toISOString(),
      amount: { value: fromKop(toKop(amount.value)), currency: 'RUB' },
      ...(typeof b.description === 'string' ? { description: b.description } : {}),
    };
    this.refunds.set(refund.id, refund);
    if (this.refundOutcome !== 'pending') this.settleRefund(refund.id, this.refundOutcome);
    return { status: 200, answer: structuredClone(refund) };
  }

  /** What is wrong with a receipt object (customer, items, tax_system_code), or null. */
  private receiptProblem(value: unknown, at: string): { description: string; parameter: string } | null {
    const receipt = value as { customer?: { email?: unknown; phone?: unknown }; items?: unknown; tax_system_code?: unknown };
    if (!receipt || typeof receipt !== 'object') return { description: 'Receipt is missing or illegal', parameter: at };
    if (!receipt.customer || (typeof receipt.customer.email !== 'string' && typeof receipt.customer.phone !== 'string'))
      return { description: 'Receipt customer needs email or phone', parameter: `${at}.customer` };
    if (typeof receipt.customer.email === 'string' && !/^[^\s@]+@[^\s@]+$/.test(receipt.customer.email))
      return { description: 'Invalid customer email', parameter: `${at}.customer.email` };
    if (!Array.isArray(receipt.items) || receipt.items.length === 0 || receipt.items.length > 100)
      return { description: 'Receipt has no items', parameter: `${at}.items` };
    if (
      receipt.tax_system_code !== undefined &&
      !(Number.isInteger(receipt.tax_system_code) && (receipt.tax_system_code as number) >= 1 && (receipt.tax_system_code as number) <= 6)
    )
      return { description: 'Invalid tax_system_code', parameter: `${at}.tax_system_code` };
    for (const [i, item] of (receipt.items as Record<string, unknown>[]).entries()) {
      const where = `${at}.items[${i}]`;
      const ia = item.amount as { value?: unknown; currency?: unknown } | undefined;
      const q = Number(item.quantity);
      if (!ia || typeof ia.value !== 'string' || !MONEY.test(ia.value) || ia.currency !== 'RUB' || toKop(ia.value) <= 0)
        return { description: 'Invalid item amount', parameter: `${where}.amount` };
      if (typeof item.quantity !== 'string' || !Number.isFinite(q) || q <= 0)
        return { description: 'Invalid item quantity', parameter: `${where}.quantity` };
      if (typeof item.description !== 'string' || item.description.length === 0 || item.description.length > 128)
        return { description: 'Invalid item description', parameter: `${where}.description` };
      if (this.selfEmployed) continue;
      if (!(Number.isInteger(item.vat_code) && (item.vat_code as number) >= 1 && (item.vat_code as number) <= 12))
        return { description: 'Invalid vat_code', parameter: `${where}.vat_code` };
      if (!PAYMENT_MODES.includes(item.payment_mode as string))
        return { description: 'Invalid payment_mode', parameter: `${where}.payment_mode` };
      if (!PAYMENT_SUBJECTS.includes(item.payment_subject as string))
        return { description: 'Invalid payment_subject', parameter: `${where}.payment_subject` };
    }
    return null;
  }

  private itemsSum(receipt: unknown): number {
    return ((receipt as { items: { amount: { value: string }; quantity: string }[] }).items ?? []).reduce(
      (s, it) => s + Math.round(toKop(it.amount.value) * Number(it.quantity)),
      0,
    );
  }

  /**
   * Kopecks of the payment's advance offset by completion receipts (those not canceled), less what
   * refund receipts of those completions gave back to the advance.
   */
  offsetOf(paymentId: string): number {
    let sum = 0;
    for (const r of this.receipts.values())
      if (r.payment_id === paymentId && r.status !== 'canceled')
        for (const s of r.settlements) if (s.type === 'prepayment') sum += (r.type === 'refund' ? -1 : 1) * toKop(s.amount.value);
    return sum;
  }

  private createReceipt(b: Record<string, unknown>): { status: number; answer: unknown } {
    const bad = (description: string, parameter: string) => ({
      status: 400,
      answer: { type: 'error', id: randomUUID(), code: 'invalid_request', description, parameter },
    });
    if (this.selfEmployed) return bad('Receipts are registered by YooKassa for a self-employed shop', 'type');
    if (b.type !== 'payment' && b.type !== 'refund') return bad('Invalid receipt type', 'type');
    if (b.send !== true) return bad('Only send: true is supported', 'send');
    const problem = this.receiptProblem(b, 'receipt');
    if (problem) return bad(problem.description, problem.parameter.replace(/^receipt\./, ''));
    const settlements = b.settlements as { type?: unknown; amount?: { value?: unknown; currency?: unknown } }[] | undefined;
    if (!Array.isArray(settlements) || settlements.length === 0) return bad('Settlements are missing', 'settlements');
    let paid = 0;
    let prepaid = 0;
    for (const [i, st] of settlements.entries()) {
      if (!['cashless', 'prepayment', 'postpayment', 'consideration'].includes(st.type as string))
        return bad('Invalid settlement type', `settlements[${i}].type`);
      if (!st.amount || typeof st.amount.value !== 'string' || !MONEY.test(st.amount.value) || st.amount.currency !== 'RUB')
        return bad('Invalid settlement amount', `settlements[${i}].amount`);
      paid += toKop(st.amount.value);
      if (st.type === 'prepayment') prepaid += toKop(st.amount.value);
    }
    if (paid !== this.itemsSum(b)) return bad('Sum of settlements differs from the sum of items', 'settlements');
    const paymentId = typeof b.payment_id === 'string' ? b.payment_id : undefined;
    const p = paymentId ? this.payments.get(paymentId) : undefined;
    if (paymentId !== undefined && !p) return bad('Payment not found', 'payment_id');
    if (prepaid > 0) {
      if (!p || p.status !== 'succeeded') return bad('Prepayment can be offset only for a succeeded payment', 'payment_id');
      const refunded = p.refunded_amount ? toKop(p.refunded_amount.value) : 0;
      if (b.type === 'refund') {
        // A refund of a completion («возврат прихода» with settlement prepayment) gives the offset
        // back to the advance: never more than was offset.
        if (prepaid > this.offsetOf(p.id)) return bad('Prepayment refund exceeds what completion receipts offset', 'settlements');
      } else if (prepaid > toKop(p.amount.value) - refunded - this.offsetOf(p.id))
        return bad('Prepayment settlement exceeds the amount prepaid', 'settlements');
      for (const [i, item] of (b.items as Record<string, unknown>[]).entries())
        if (item.payment_mode !== 'full_payment' && item.payment_mode !== 'partial_payment')
          return bad('Offsetting a prepayment needs payment_mode full_payment', `items[${i}].payment_mode`);
    }
    const receipt: YooReceipt = {
      id: `${randomBytes(4).toString('hex')}-0017-5000-9000-${randomBytes(6).toString('hex')}`,
      type: b.type,
      ...(paymentId ? { payment_id: paymentId } : {}),
      status: 'pending',
      items: structuredClone(b.items) as unknown[],
      settlements: settlements.map((st) => ({
        type: st.type as string,
        amount: { value: fromKop(toKop(st.amount!.value as string)), currency: 'RUB' },
      })),
      ...(b.tax_system_code !== undefined ? { tax_system_code: b.tax_system_code as number } : {}),
    };
    this.receipts.set(receipt.id, receipt);
    if (this.receiptOutcome !== 'pending') this.settleReceipt(receipt.id, this.receiptOutcome);
    return { status: 200, answer: structuredClone(receipt) };
  }

  /** A pending receipt is registered by the register (succeeded) or refused (canceled). */
  settleReceipt(id: string, outcome: 'succeeded' | 'canceled'): YooReceipt {
    const r = this.receipts.get(id);
    if (!r) throw new Error(`no receipt ${id}`);
    if (r.status !== 'pending') return r;
    r.status = outcome;
    if (outcome === 'succeeded') r.registered_at = new Date().toISOString();
    else r.cancellation_details = { party: 'yoo_money', reason: 'receipt_registration_failed' };
    return r;
  }

  /** A pending refund ends: succeeded (the payment's refunded_amount grows) or canceled; the shop is notified. */
  settleRefund(id: string, outcome: 'succeeded' | 'canceled'): YooRefund {
    const refund = this.refunds.get(id);
    if (!refund) throw new Error(`no refund ${id}`);
    if (refund.status !== 'pending') return refund;
    const p = this.mustGet(refund.payment_id);
    if (outcome === 'succeeded') {
      const total = (p.refunded_amount ? toKop(p.refunded_amount.value) : 0) + toKop(refund.amount.value);
      p.refunded_amount = { value: fromKop(total), currency: 'RUB' };
      p.refundable = total < toKop(p.amount.value);
      refund.status = 'succeeded';
    } else {
      refund.status = 'canceled';
      refund.cancellation_details = { party: 'yoo_money', reason: 'rejected_by_payee' };
    }
    void this.notify({ type: 'notification', event: `refund.${refund.status}`, object: structuredClone(refund) });
    return refund;
  }

  /** A charge of a saved method, decided at once as the bank answers; the shop is notified unless 3-D Secure is asked. */
  private chargeSaved(p: YooPayment, methodId: string): void {
    const saved = this.savedMethods.get(methodId)!;
    p.payment_method = structuredClone(saved.method);
    if (saved.outcome === '3ds') {
      p.confirmation = {
        type: 'redirect',
        return_url: `${this.url}/`,
        confirmation_url: `${this.url}/checkout/payments/v2/contract?orderId=${p.id}`,
      };
      return;
    }
    if (saved.outcome === 'ok') this.pay(p.id);
    else {
      p.status = 'canceled';
      p.cancellation_details = { party: 'payment_network', reason: saved.outcome };
    }
    void this.notify(this.notificationFor(p.id));
  }

  /** How the bank answers the next charges of a saved method. */
  setCardOutcome(methodId: string, outcome: SavedCardOutcome): void {
    const saved = this.savedMethods.get(methodId);
    if (!saved) throw new Error(`no saved method ${methodId}`);
    saved.outcome = outcome;
  }

  /** The payer pays: succeeded (capture: true) or waiting_for_capture; the shop is notified. */
  pay(id: string): YooPayment {
    const p = this.mustGet(id);
    if (p.status !== 'pending') return p;
    p.paid = true;
    if (this.toSave.has(id) && !p.payment_method) {
      const method: YooPaymentMethod = {
        type: 'bank_card',
        id: `${randomBytes(4).toString('hex')}-000f-5000-a000-${randomBytes(6).toString('hex')}`,
        saved: true,
        title: `Bank card *${this.nextCardLast4}`,
        card: { first6: '555555', last4: this.nextCardLast4, expiry_month: '07', expiry_year: '2030', card_type: 'MasterCard' },
      };
      p.payment_method = method;
      this.savedMethods.set(method.id, { method: structuredClone(method), outcome: 'ok' });
    }
    if (this.autoCapture.has(id)) {
      p.status = 'succeeded';
      p.captured_at = new Date().toISOString();
      p.refundable = true;
      p.income_amount = { value: fromKop(Math.round(toKop(p.amount.value) * 0.965)), currency: 'RUB' };
    } else p.status = 'waiting_for_capture';
    return p;
  }

  /** The payment is canceled (the payer gave up, the bank refused, or it expired). */
  cancel(id: string, reason = 'expired_on_confirmation'): YooPayment {
    const p = this.mustGet(id);
    if (p.status === 'pending' || p.status === 'waiting_for_capture') {
      p.status = 'canceled';
      p.paid = false;
      p.cancellation_details = { party: 'yoo_money', reason };
    }
    return p;
  }

  /** The notification YooKassa sends about the payment's current state. */
  notificationFor(id: string): { type: 'notification'; event: string; object: YooPayment } {
    const p = this.mustGet(id);
    return { type: 'notification', event: `payment.${p.status}`, object: this.view(p) };
  }

  /** Sends the payment's notification to the shop's URL; returns the shop's answer status (0: no answer). */
  async notify(body: unknown): Promise<number> {
    if (!this.notificationUrl) return 0;
    const { status } = await postNotification(this.notificationUrl, body);
    this.notifications.push({ body, status });
    return status;
  }

  private mustGet(id: string): YooPayment {
    const p = this.payments.get(id);
    if (!p) throw new Error(`no payment ${id}`);
    return p;
  }

  /** The confirmation page the payer is sent to. */
  private async checkout(req: http.IncomingMessage, res: http.ServerResponse, url: URL, form: Record<string, string>): Promise<void> {
    const id = url.searchParams.get('orderId') ?? '';
    const p = this.payments.get(id);
    if (!p) return sendHtml(res, 404, '<!doctype html><title>ЮKassa</title><p>Платёж не найден</p>');
    if (req.method === 'POST') {
      const action = form.action;
      if (action === 'pay') this.pay(id);
      else this.cancel(id);
      if (p.status !== 'pending') await this.notify(this.notificationFor(id));
      res.writeHead(302, { location: p.confirmation!.return_url });
      return void res.end();
    }
    const amount = escapeHtml(p.amount.value.replace('.', ','));
    sendHtml(
      res,
      200,
      `<!doctype html><html lang="ru"><head><meta charset="utf-8"><title>ЮKassa — оплата</title></head><body>
<h1>Оплата заказа</h1><p>${escapeHtml(p.description ?? '')}</p><p>К оплате: <strong data-testid="amount">${amount}&nbsp;₽</strong></p>
<form method="post"><input type="hidden" name="action" value="pay"><button type="submit">Оплатить</button></form>
<form method="post"><input type="hidden" name="action" value="cancel"><button type="submit">Отменить</button></form>
</body></html>`,
    );
  }
}
