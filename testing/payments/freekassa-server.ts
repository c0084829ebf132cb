/**
 * A fake of FreeKassa for tests, written from its documentation (docs.freekassa.net: SCI form,
 * «Оповещение о платеже», API v1); it shares no code with the site.
 *
 * What it imitates:
 * - The SCI form: GET /?m=…&oa=…&o=…&s=…&currency=RUB (s = md5 of m:oa:secret1:currency:o); a
 *   wrong signature is refused. The page has «Оплатить».
 * - Paying: FreeKassa posts the notification (form-encoded MERCHANT_ID, AMOUNT, intid,
 *   MERCHANT_ORDER_ID, P_EMAIL, CUR_ID, SIGN = md5 of MERCHANT_ID:AMOUNT:secret2:MERCHANT_ORDER_ID)
 *   and repeats it until the answer is YES; `deliver()` repeats one here.
 * - API v1: POST /v1/orders and /v1/balance with {shopId, nonce, …, signature}, where signature
 *   is HMAC-SHA256 (key: the API key) of the values sorted by key and joined by «|»; nonce must grow.
 *   Order status 0 new, 1 paid, 6 refunded, 8 error, 9 canceled.
 */
import { createHash, createHmac } from 'node:crypto';
import type http from 'node:http';
import { escapeHtml, HttpDouble, postForm, sendHtml, sendJson, type RequestBody } from './http-util.ts';

export interface FreeKassaOrder {
  fk_order_id: number;
  merchant_order_id: string;
  amount: string;
  currency: string;
  status: number;
}

const md5 = (s: string) => createHash('md5').update(s, 'utf8').digest('hex');

export class FakeFreeKassa extends HttpDouble {
  readonly orders = new Map<string, FreeKassaOrder>();
  readonly notifications: { fields: Record<string, string>; status: number; text: string }[] = [];
  notificationUrl: string | null = null;
  private nextId = 50_000_000;
  private lastNonce = 0;

  constructor(
    readonly merchantId = '12345',
    readonly secret1 = 'fk-secret-one',
    readonly secret2 = 'fk-secret-two',
    readonly apiKey = 'fk-api-key-0123456789',
  ) {
    super();
  }

  get formUrl(): string {
    return `${this.url}/`;
  }

  get apiUrl(): string {
    return `${this.url}/v1`;
  }

  protected crashed(res: http.ServerResponse, err: unknown): void {
    sendJson(res, 500, { error: String(err) });
  }

  notificationFor(order: FreeKassaOrder, overrides: Record<string, string> = {}): Record<string, string> {
    const f: Record<string, string> = {
      MERCHANT_ID: this.merchantId,
      AMOUNT: order.amount,
      intid: String(order.fk_order_id),
      MERCHANT_ORDER_ID: order.merchant_order_id,
      P_EMAIL: 'payer@example.com',
      P_PHONE: '',
      CUR_ID: '36',
      payer_account: '',
      commission: '0',
      ...overrides,
    };
    return { ...f, SIGN: overrides.SIGN ?? md5(`${f.MERCHANT_ID}:${f.AMOUNT}:${this.secret2}:${f.MERCHANT_ORDER_ID}`) };
  }

  async deliver(fields: Record<string, string>): Promise<{ status: number; text: string }> {
    if (!this.notificationUrl) return { status: 0, text: '' };
    const answer = await postForm(this.notificationUrl, fields);
    this.notifications.push({ fields, ...answer });
    return answer;
  }

  /** Opens an order as the SCI form would (for API tests that skip the browser). */
  open(orderId: string, amount: string): FreeKassaOrder {
    const order = { fk_order_id: this.nextId++, merchant_order_id: orderId, amount, currency: 'RUB', status: 0 };
    this.orders.set(orderId, order);
    return order;
  }

  async pay(orderId: string): Promise<FreeKassaOrder> {
    const order = this.orders.get(orderId);
    if (!order) throw new Error(`no order ${orderId}`);
    order.status = 1;
    await this.deliver(this.notificationFor(order));
    return order;
  }

  private apiSign(body: Record<string, unknown>): string {
    const line = Object.keys(body)
      .filter((k) => k !== 'signature')
      .sort()
      .map((k) => String(body[k]))
      .join('|');
    return createHmac('sha256', this.apiKey).update(line, 'utf8').digest('hex');
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse, { form, json }: RequestBody): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    if (req.method === 'GET' && url.pathname === '/') {
      const q = Object.fromEntries(url.searchParams);
      if (q.m !== this.merchantId || !q.oa || !q.o || q.s !== md5(`${q.m}:${q.oa}:${this.secret1}:${q.currency}:${q.o}`))
        return sendHtml(res, 400, '<p>Неверная подпись</p>');
      if (!this.orders.has(q.o)) this.open(q.o, q.oa);
      return sendHtml(
        res,
        200,
        `<!doctype html><meta charset="utf-8"><title>FreeKassa</title><p>Сумма: <b data-testid="amount">${escapeHtml(q.oa)}</b></p>
<form method="post" action="/pay"><input type="hidden" name="o" value="${escapeHtml(q.o)}"><button>Оплатить</button></form>`,
      );
    }
    if (req.method === 'POST' && url.pathname === '/pay') {
      await this.pay(form.o ?? '');
      return sendHtml(res, 200, '<p>Оплачено</p>');
    }
    if (req.method === 'POST' && url.pathname.startsWith('/v1/')) {
      const b = (json ?? {}) as Record<string, unknown>;
      if (String(b.shopId) !== this.merchantId || b.signature !== this.apiSign(b))
        return sendJson(res, 401, { type: 'error', message: 'Wrong signature' });
      const nonce = Number(b.nonce);
      if (!(nonce > this.lastNonce)) return sendJson(res, 400, { type: 'error', message: 'Nonce must be greater than previous' });
      this.lastNonce = nonce;
      if (url.pathname === '/v1/balance') return sendJson(res, 200, { type: 'success', balance: [{ currency: 'RUB', value: 0 }] });
      if (url.pathname === '/v1/orders') {
        const list = [...this.orders.values()].filter((o) => b.paymentId === undefined || o.merchant_order_id === b.paymentId);
        return sendJson(res, 200, {
          type: 'success',
          pages: 1,
          orders: list.map((o) => ({ ...o, amount: Number(o.amount), email: 'payer@example.com', date: '2026-11-26 12:00:00' })),
        });
      }
    }
    sendJson(res, 404, { type: 'error', message: 'Not found' });
  }
}
