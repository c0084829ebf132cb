import { createHash, createHmac } from 'node:crypto';
import type { PaymentsConfig } from '../../config.ts';
import { ipList } from '../../base/ip-list.ts';
import {
  callJson,
  kopecksToValue,
  ProviderError,
  valueToKopecks,
  type CreatedPayment,
  type CreateRequest,
  type NotificationReply,
  type NotificationVerdict,
  type PaymentAdapter,
  type ProviderPaymentState,
  type RefundResult,
} from './types.ts';
import { sameSecret } from '../same-secret.ts';

type FreeKassaConfig = NonNullable<PaymentsConfig['freekassa']>;

const md5 = (s: string) => createHash('md5').update(s, 'utf8').digest('hex');

/** The SCI form's signature `s`: md5 of `m:oa:secret1:currency:o`. */
export const freekassaFormSign = (m: string, oa: string, secret1: string, currency: string, o: string) =>
  md5(`${m}:${oa}:${secret1}:${currency}:${o}`);

/** A notification's SIGN: md5 of `MERCHANT_ID:AMOUNT:secret2:MERCHANT_ORDER_ID`. */
export const freekassaNotifySign = (merchantId: string, amount: string, secret2: string, orderId: string) =>
  md5(`${merchantId}:${amount}:${secret2}:${orderId}`);

/** API v1 signature: HMAC-SHA256 (key: the API key) of the body's values sorted by key, joined by «|». */
export function freekassaApiSign(body: Record<string, string | number>, apiKey: string): string {
  const line = Object.keys(body)
    .sort()
    .map((k) => String(body[k]))
    .join('|');
  return createHmac('sha256', apiKey).update(line, 'utf8').digest('hex');
}

/** FreeKassa order statuses (API v1 `orders`): 0 new, 1 paid, 6 refunded, 8 error, 9 canceled. */
const STATUS: Record<string, ProviderPaymentState['status']> = {
  '0': 'pending',
  '1': 'succeeded',
  '6': 'refunded',
  '8': 'canceled',
  '9': 'canceled',
};

/**
 * FreeKassa, per docs.freekassa.net: the player is sent to the SCI form (`m`, `oa`, `o`, `s`,
 * `currency`); FreeKassa posts a form-encoded notification (MERCHANT_ID, AMOUNT, intid,
 * MERCHANT_ORDER_ID, SIGN…) from its published addresses, answered `YES`. With an API key the
 * order is re-read through API v1 (`POST /orders` {shopId, nonce, paymentId, signature}) and
 * only that answer counts; without one the signed notification from FreeKassa's address is its word.
 */
export function freekassaAdapter(cfg: FreeKassaConfig): PaymentAdapter {
  const fromFreeKassa = ipList(cfg.notifyIps);
  let lastNonce = 0;

  async function api(path: string, params: Record<string, string | number>): Promise<Record<string, unknown>> {
    if (!cfg.apiKey) throw new ProviderError('нет API-ключа FreeKassa', false);
    // nonce must grow with every call.
    lastNonce = Math.max(Date.now(), lastNonce + 1);
    const body: Record<string, string | number> = { shopId: Number(cfg.merchantId), nonce: lastNonce, ...params };
    const res = await callJson(`${cfg.apiUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ ...body, signature: freekassaApiSign(body, cfg.apiKey) }),
    });
    const b = (typeof res.body === 'object' && res.body ? res.body : {}) as Record<string, unknown>;
    if (res.status >= 500 || res.status === 429) throw new ProviderError(`FreeKassa ответила ${res.status}`, false, res.body);
    if (res.status !== 200 || b.type !== 'success')
      throw new ProviderError(`FreeKassa: ${String(b.message ?? res.status)}`, res.status < 500, res.body);
    return b;
  }

  return {
    name: 'freekassa',
    canFetch: Boolean(cfg.apiKey),
    canRefund: false,
    async check() {
      if (!/^\d{1,12}$/.test(cfg.merchantId)) return { ok: false, message: 'ID магазина FreeKassa — число' };
      if (!cfg.apiKey)
        return { ok: true, message: 'Ключи заданы. Без API-ключа FreeKassa их не проверить запросом: проверьте тестовым платежом.' };
      try {
        await api('/balance', {});
        return { ok: true, message: 'FreeKassa приняла API-ключ' };
      } catch (err) {
        return { ok: false, message: (err as Error).message };
      }
    },
    async create(req: CreateRequest): Promise<CreatedPayment> {
      const oa = kopecksToValue(req.amountKopecks);
      const q = new URLSearchParams({
        m: cfg.merchantId,
        oa,
        o: req.id,
        s: freekassaFormSign(cfg.merchantId, oa, cfg.secret1, 'RUB', req.id),
        currency: 'RUB',
        em: req.email,
        lang: 'ru',
      });
      return { providerPaymentId: req.id, confirmationUrl: `${cfg.formUrl}?${q.toString()}`, form: null, label: null, state: null };
    },
    async fetch(orderId: string): Promise<ProviderPaymentState> {
      const b = await api('/orders', { paymentId: orderId });
      const order = Array.isArray(b.orders)
        ? (b.orders as Record<string, unknown>[]).find((o) => String(o.merchant_order_id) === orderId)
        : undefined;
      if (!order) return { status: 'pending', providerStatus: 'fk:none', amountKopecks: 0, orderId, raw: b };
      const code = String(order.status ?? '');
      const amount = valueToKopecks(Number(order.amount).toFixed(2));
      if (order.currency !== undefined && order.currency !== 'RUB') throw new ProviderError('FreeKassa: заказ не в рублях', true, order);
      return {
        status: STATUS[code] ?? 'pending',
        providerStatus: `fk:${code}`,
        amountKopecks: Number.isFinite(amount) ? amount : 0,
        orderId: String(order.merchant_order_id),
        raw: order,
        operationId: order.fk_order_id === undefined ? undefined : String(order.fk_order_id),
      };
    },
    acceptsSender: fromFreeKassa,
    verifyNotification(ip: string, body: unknown): NotificationVerdict {
      if (!fromFreeKassa(ip)) return { ok: false, reason: 'foreign_ip', message: `уведомление не с адресов FreeKassa (${ip})` };
      const b = body as Record<string, unknown> | null;
      if (!b || typeof b !== 'object') return { ok: false, reason: 'malformed', message: 'не уведомление FreeKassa' };
      for (const k of ['MERCHANT_ID', 'AMOUNT', 'MERCHANT_ORDER_ID', 'SIGN', 'intid'])
        if (typeof b[k] !== 'string' || b[k] === '')
          return { ok: false, reason: 'malformed', message: `в уведомлении FreeKassa нет поля ${k}` };
      const f = b as Record<string, string>;
      if (f.MERCHANT_ID !== cfg.merchantId)
        return { ok: false, reason: 'wrong_account', message: 'уведомление для другого магазина FreeKassa' };
      if (!sameSecret(f.SIGN!.toLowerCase(), freekassaNotifySign(f.MERCHANT_ID!, f.AMOUNT!, cfg.secret2, f.MERCHANT_ORDER_ID!)))
        return { ok: false, reason: 'bad_token', message: 'неверная подпись SIGN уведомления FreeKassa' };
      const amount = valueToKopecks(f.AMOUNT);
      if (!Number.isFinite(amount) || !/^[\w-]{1,64}$/.test(f.MERCHANT_ORDER_ID!) || !/^\d{1,20}$/.test(f.intid!))
        return { ok: false, reason: 'malformed', message: 'не уведомление FreeKassa' };
      return {
        ok: true,
        paymentId: f.MERCHANT_ORDER_ID,
        state: {
          status: 'succeeded',
          providerStatus: 'fk:1',
          amountKopecks: amount,
          orderId: f.MERCHANT_ORDER_ID!,
          raw: null,
          operationId: f.intid,
        },
      };
    },
    notificationReply(accepted: boolean): NotificationReply {
      // FreeKassa repeats a notification until the answer is YES.
      return accepted
        ? { status: 200, contentType: 'text/plain; charset=utf-8', body: 'YES' }
        : { status: 403, contentType: 'text/plain; charset=utf-8', body: 'FORBIDDEN' };
    },
    async refund(): Promise<RefundResult> {
      throw new ProviderError('FreeKassa не возвращает платежи через API сайта: верните из личного кабинета FreeKassa', true);
    },
  };
}
