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

    if (req.method === 'POST' && (url.pathname === '/v3/payments' || url.pathname === '/v3/refunds')) {
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
          : this.createRefund(json as Record<string, unknown>);
      this.keys.set(`${url.pathname}:${key}`, { body: text, status: out.status, answer: out.answer });
      return sendJson(res, out.status, out.answer);
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
      const receipt = b.receipt as { customer?: { email?: unknown; phone?: unknown }; items?: unknown } | undefined;
      if (!receipt) return bad('Receipt is missing or illegal', 'receipt');
      if (!receipt.customer || (typeof receipt.customer.email !== 'string' && typeof receipt.customer.phone !== 'string'))
        return bad('Receipt customer needs email or phone', 'receipt.customer');
      if (!Array.isArray(receipt.items) || receipt.items.length === 0) return bad('Receipt has no items', 'receipt.items');
      let sum = 0;
      for (const [i, item] of (receipt.items as Record<string, unknown>[]).entries()) {
        const ia = item.amount as { value?: unknown; currency?: unknown } | undefined;
        const q = Number(item.quantity);
        if (!ia || typeof ia.value !== 'string' || !MONEY.test(ia.value)) return bad('Invalid item amount', `receipt.items[${i}].amount`);
        if (!Number.isFinite(q) || q <= 0) return bad('Invalid item quantity', `receipt.items[${i}].quantity`);
        if (![1, 2, 3, 4, 5, 6].includes(item.vat_code as number)) return bad('Invalid vat_code', `receipt.items[${i}].vat_code`);
        if (typeof item.description !== 'string' || item.description.length === 0 || item.description.length > 128)
          return bad('Invalid item description', `receipt.items[${i}].description`);
        if (typeof item.payment_mode !== 'string' || typeof item.payment_subject !== 'string')
          return bad('Item needs payment_mode and payment_subject', `receipt.items[${i}]`);
        sum += Math.round(toKop(ia.value) * q);
      }
      if (sum !== toKop(amount.value)) return bad('Sum of receipt items differs from the payment amount', 'receipt.items');
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
      if (
        !full &&
        (!receipt ||
          !receipt.customer ||
          (typeof receipt.customer.email !== 'string' && typeof receipt.customer.phone !== 'string') ||
          !Array.isArray(receipt.items) ||
          receipt.items.length === 0)
      )
        return bad(400, 'invalid_request', 'Receipt is missing or illegal', 'receipt');
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
