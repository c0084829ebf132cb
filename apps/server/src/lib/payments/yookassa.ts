import type { PaymentsConfig } from '../../config.ts';
import type { ErrorBody } from '../errors.ts';
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
  type ReceiptFiscal,
  type ReceiptLine,
  type ReceiptRequest,
  type ReceiptState,
  type RefundRequest,
  type RefundResult,
} from './types.ts';

type YooKassaConfig = NonNullable<PaymentsConfig['yookassa']>;

interface YooRefund {
  id?: unknown;
  status?: unknown;
  cancellation_details?: { reason?: unknown };
}

interface YooReceipt {
  id?: unknown;
  status?: unknown;
  cancellation_details?: { reason?: unknown };
}

/**
 * The top-up's receipt: an advance (54-ФЗ «аванс»: payment_mode full_prepayment, payment_subject
 * payment), since what the balance buys is not known yet; a самозанятый's has items without VAT
 * (YooKassa registers the income in «Мой налог»).
 */
function advanceReceipt(email: string, kopecks: number, vatCode: number, fiscal?: ReceiptFiscal): Record<string, unknown> {
  const amount = { value: kopecksToValue(kopecks), currency: 'RUB' };
  if (fiscal?.selfEmployed) return { customer: { email }, items: [{ description: 'Пополнение баланса', quantity: '1.00', amount }] };
  return {
    customer: { email },
    items: [
      {
        description: 'Пополнение баланса (аванс)',
        quantity: '1.00',
        amount,
        vat_code: vatCode,
        payment_mode: 'full_prepayment',
        payment_subject: 'payment',
      },
    ],
    ...(fiscal?.taxSystemCode ? { tax_system_code: fiscal.taxSystemCode } : {}),
  };
}

/** The receipt of goods paid for directly: their lines as given (a самозанятый's without VAT). */
function goodsReceipt(email: string, lines: ReceiptLine[], fiscal?: ReceiptFiscal): Record<string, unknown> {
  const items = lines.map((l) => ({
    description: l.description.slice(0, 128),
    quantity: '1.00',
    amount: { value: kopecksToValue(l.amountKopecks), currency: 'RUB' },
    ...(fiscal?.selfEmployed ? {} : { vat_code: l.vatCode, payment_mode: l.paymentMode, payment_subject: l.paymentSubject }),
  }));
  return {
    customer: { email },
    items,
    ...(fiscal?.taxSystemCode && !fiscal.selfEmployed ? { tax_system_code: fiscal.taxSystemCode } : {}),
  };
}

interface YooPayment {
  id?: unknown;
  status?: unknown;
  paid?: unknown;
  amount?: { value?: unknown; currency?: unknown };
  refunded_amount?: { value?: unknown };
  confirmation?: { confirmation_url?: unknown };
  metadata?: Record<string, unknown>;
}

/**
 * YooKassa, API v3 (https://yookassa.ru/developers/api): plain HTTPS with Basic auth
 * shop_id:secret_key; every POST carries an Idempotence-Key (a repeat returns the first answer).
 * Notifications are not signed: they are taken only from the published sender addresses, and
 * even then only name the payment to re-read with GET /payments/{id}.
 */
export function yookassaAdapter(cfg: YooKassaConfig): PaymentAdapter {
  const auth = `Basic ${Buffer.from(`${cfg.shopId}:${cfg.secretKey}`).toString('base64')}`;
  const fromYooKassa = ipList(cfg.notifyIps);

  async function call(method: 'GET' | 'POST', path: string, body?: unknown, idempotenceKey?: string): Promise<unknown> {
    const headers: Record<string, string> = { authorization: auth, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotenceKey) headers['idempotence-key'] = idempotenceKey;
    const res = await callJson(`${cfg.apiUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (res.status >= 200 && res.status < 300) return res.body;
    const err = res.body as { code?: string; description?: string } | string;
    const text = typeof err === 'object' && err ? `${err.code ?? ''} ${err.description ?? ''}`.trim() : String(err).slice(0, 200);
    // 5xx and 429 may pass on a retry with the same key; 4xx will not.
    throw new ProviderError(
      `ЮKassa ответила ${res.status}: ${text}`,
      res.status >= 400 && res.status < 500 && res.status !== 429,
      res.body,
    );
  }

  function state(p: YooPayment): ProviderPaymentState {
    const status = typeof p.status === 'string' ? p.status : '';
    const amount = valueToKopecks(p.amount?.value);
    if (p.amount?.currency !== 'RUB' || !Number.isFinite(amount))
      throw new ProviderError('ЮKassa прислала платёж без суммы в рублях', true, p);
    const refunded = valueToKopecks(p.refunded_amount?.value ?? '0');
    const orderId = typeof p.metadata?.payment_id === 'string' ? p.metadata.payment_id : null;
    let ours: ProviderPaymentState['status'] = 'pending';
    if (status === 'succeeded' && p.paid === true) ours = refunded > 0 && refunded >= amount ? 'refunded' : 'succeeded';
    else if (status === 'canceled') ours = 'canceled';
    return { status: ours, providerStatus: status, amountKopecks: amount, orderId, raw: p };
  }

  function receiptState(r: YooReceipt): ReceiptState {
    const status = r.status === 'succeeded' || r.status === 'canceled' ? r.status : 'pending';
    const reason = r.cancellation_details?.reason;
    return {
      providerReceiptId: typeof r.id === 'string' ? r.id : null,
      status,
      reason: typeof reason === 'string' ? reason : null,
      raw: r,
    };
  }

  return {
    name: 'yookassa',
    async sendReceipt(req: ReceiptRequest): Promise<ReceiptState> {
      // POST /v3/receipts: a receipt of its own for a payment made before («Сначала платёж, потом
      // чек»): the completion of an advance is type payment with settlements [{type: prepayment}].
      const total = req.lines.reduce((s, l) => s + l.amountKopecks, 0);
      const body = {
        customer: { email: req.email },
        type: req.type,
        ...(req.providerPaymentId ? { payment_id: req.providerPaymentId } : {}),
        send: true,
        items: req.lines.map((l) => ({
          description: l.description.slice(0, 128),
          quantity: '1.00',
          amount: { value: kopecksToValue(l.amountKopecks), currency: 'RUB' },
          vat_code: l.vatCode,
          payment_mode: l.paymentMode,
          payment_subject: l.paymentSubject,
        })),
        ...(req.taxSystemCode ? { tax_system_code: req.taxSystemCode } : {}),
        settlements: [{ type: req.settlement, amount: { value: kopecksToValue(total), currency: 'RUB' } }],
      };
      return receiptState((await call('POST', '/receipts', body, req.key)) as YooReceipt);
    },
    async fetchReceipt(id: string): Promise<ReceiptState> {
      return receiptState((await call('GET', `/receipts/${encodeURIComponent(id)}`)) as YooReceipt);
    },
    canFetch: true,
    canRefund: true,
    async check() {
      // A payment that does not exist: 404 means the keys were taken, 401 that they were not.
      try {
        await call('GET', '/payments/00000000-0000-0000-0000-000000000000');
        return { ok: true, message: 'ЮKassa приняла ключи' };
      } catch (err) {
        const raw = err instanceof ProviderError ? (err.raw as { code?: unknown } | null) : null;
        if (raw && typeof raw === 'object' && raw.code === 'not_found') return { ok: true, message: 'ЮKassa приняла ключи' };
        if (raw && typeof raw === 'object' && raw.code === 'invalid_credentials')
          return { ok: false, message: 'ЮKassa не приняла shopId и секретный ключ' };
        return { ok: false, message: (err as Error).message };
      }
    },
    async create(req: CreateRequest): Promise<CreatedPayment> {
      const value = kopecksToValue(req.amountKopecks);
      const body: Record<string, unknown> = {
        amount: { value, currency: 'RUB' },
        capture: true,
        confirmation: { type: 'redirect', return_url: req.returnUrl },
        description: req.description.slice(0, 128),
        metadata: { payment_id: req.id },
      };
      if (cfg.receipts)
        body.receipt = req.lines
          ? goodsReceipt(req.email, req.lines, req.fiscal)
          : advanceReceipt(req.email, req.amountKopecks, req.vatCode, req.fiscal);
      const p = (await call('POST', '/payments', body, req.id)) as YooPayment;
      const url = p.confirmation?.confirmation_url;
      if (typeof p.id !== 'string' || typeof url !== 'string') throw new ProviderError('ЮKassa не дала ссылку на оплату', false, p);
      return { providerPaymentId: p.id, confirmationUrl: url, state: state(p) };
    },
    async fetch(providerPaymentId: string): Promise<ProviderPaymentState> {
      return state((await call('GET', `/payments/${encodeURIComponent(providerPaymentId)}`)) as YooPayment);
    },
    acceptsSender: fromYooKassa,
    verifyNotification(ip: string, body: unknown): NotificationVerdict {
      if (!fromYooKassa(ip)) return { ok: false, reason: 'foreign_ip', message: `уведомление не с адресов ЮKassa (${ip})` };
      const b = body as { type?: unknown; event?: unknown; object?: { id?: unknown } } | null;
      if (!b || b.type !== 'notification' || typeof b.event !== 'string' || typeof b.object?.id !== 'string')
        return { ok: false, reason: 'malformed', message: 'не уведомление ЮKassa' };
      // refund.* events carry the refund; its payment_id names the payment.
      const paymentId = b.event.startsWith('refund.') ? (b.object as { payment_id?: unknown }).payment_id : b.object.id;
      if (typeof paymentId !== 'string' || !/^[\w-]{1,64}$/.test(paymentId))
        return { ok: false, reason: 'malformed', message: 'не уведомление ЮKassa' };
      return { ok: true, providerPaymentId: paymentId };
    },
    notificationReply(accepted: boolean): NotificationReply {
      // YooKassa repeats a notification for 24 h until it gets a 200.
      return accepted
        ? { status: 200, contentType: 'application/json', body: '{}' }
        : {
            status: 403,
            contentType: 'application/json; charset=utf-8',
            body: JSON.stringify({ error: 'Уведомление не принято', code: 'forbidden' } satisfies ErrorBody),
          };
    },
    async refund(req: RefundRequest): Promise<RefundResult> {
      // POST /v3/refunds {payment_id, amount, description} with an Idempotence-Key: a repeat with
      // the same key returns the first refund, never a second one. A full refund carries no
      // receipt even with receipts on: YooKassa makes the refund receipt from the payment's own
      // (yookassa.ru/developers/payment-acceptance/receipts/54fz/yoomoney/refunds). Once the
      // refund's id is known it is re-read with GET /v3/refunds/{id} (the key's cached answer stays
      // «pending» for 24 h, whatever happened to the refund since).
      let r: YooRefund;
      if (req.knownRefundId) r = (await call('GET', `/refunds/${encodeURIComponent(req.knownRefundId)}`)) as YooRefund;
      else
        r = (await call(
          'POST',
          '/refunds',
          {
            payment_id: req.providerPaymentId,
            amount: { value: kopecksToValue(req.amountKopecks), currency: 'RUB' },
            description: 'Возврат пополнения баланса',
            // A part carries its own receipt when receipts are on (the whole payment takes the payment's).
            ...(cfg.receipts && req.partReceipt
              ? {
                  receipt: req.partReceipt.line
                    ? goodsReceipt(
                        req.partReceipt.email,
                        [{ ...req.partReceipt.line, amountKopecks: req.amountKopecks }],
                        req.partReceipt.fiscal,
                      )
                    : advanceReceipt(req.partReceipt.email, req.amountKopecks, req.partReceipt.vatCode, req.partReceipt.fiscal),
                }
              : {}),
          },
          req.key,
        )) as YooRefund;
      const id = typeof r.id === 'string' ? r.id : null;
      if (r.status === 'canceled')
        throw new ProviderError(
          `ЮKassa отменила возврат${r.cancellation_details?.reason ? `: ${String(r.cancellation_details.reason)}` : ''}`,
          true,
          r,
        );
      if (r.status !== 'succeeded' && r.status !== 'pending') throw new ProviderError('ЮKassa ответила на возврат непонятно', false, r);
      return { status: r.status, providerRefundId: id, raw: r };
    },
  };
}
