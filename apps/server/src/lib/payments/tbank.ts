import { createHash } from 'node:crypto';
import type { PaymentsConfig } from '../../config.ts';
import {
  callJson,
  ProviderError,
  type CreatedPayment,
  type CreateRequest,
  type NotificationReply,
  type NotificationVerdict,
  type PaymentAdapter,
  type ProviderPaymentState,
  type RefundRequest,
  type ReceiptLine,
  type ReceiptRequest,
  type ReceiptState,
  type RefundResult,
} from './types.ts';
import { sameSecret } from '../same-secret.ts';

type TBankConfig = NonNullable<PaymentsConfig['tbank']>;

/**
 * The request signature of T-Bank internet acquiring (https://developer.tbank.ru/eacq/intro/developer/token):
 * the root object's scalar parameters (nested objects and arrays such as DATA and Receipt take no
 * part, nor does Token itself) plus {Password}, sorted by key, their values concatenated, SHA-256 in hex.
 */
export function tbankToken(params: Record<string, unknown>, password: string): string {
  const pairs: [string, string][] = [['Password', password]];
  for (const [key, value] of Object.entries(params)) {
    if (key === 'Token' || value === null || value === undefined || typeof value === 'object') continue;
    pairs.push([key, String(value)]);
  }
  pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256')
    .update(pairs.map(([, v]) => v).join(''), 'utf8')
    .digest('hex');
}

/**
 * One signed call to T-Bank: {TerminalKey, ...params, Token} POSTed as JSON to `url`. The answer
 * as it came; what a refusal means is the caller's (a one-time payment fails on it, a card charge
 * reads it as the bank's decline).
 */
export function tbankPost(
  url: string,
  cfg: { terminalKey: string; password: string },
  params: Record<string, unknown>,
): Promise<{ status: number; body: unknown }> {
  const body = { TerminalKey: cfg.terminalKey, ...params };
  return callJson(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ ...body, Token: tbankToken(body, cfg.password) }),
  });
}

const SUCCEEDED = new Set(['CONFIRMED']);
const CANCELED = new Set(['CANCELED', 'REJECTED', 'DEADLINE_EXPIRED', 'AUTH_FAIL', 'REVERSED']);
const REFUNDED = new Set(['REFUNDED']);
const TRANSIENT_CODES = new Set(['3', '21', '55', '9999']);

/** Our `tax_system_code` (YooKassa's 1–6) as T-Bank's Receipt.Taxation. */
const TAXATION: Record<number, string> = { 1: 'osn', 2: 'usn_income', 3: 'usn_income_outcome', 4: 'envd', 5: 'esn', 6: 'patent' };
/** Our `vat_code` (YooKassa's 1–12) as T-Bank's Items[].Tax. */
const TAX: Record<number, string> = {
  1: 'none',
  2: 'vat0',
  3: 'vat10',
  4: 'vat20',
  5: 'vat110',
  6: 'vat120',
  7: 'vat5',
  8: 'vat7',
  9: 'vat105',
  10: 'vat107',
  11: 'vat22',
  12: 'vat122',
};

/** A T-Bank Receipt of one line each (Price and Amount in kopecks, Quantity 1). */
export function tbankReceipt(email: string, taxSystemCode: number | null, lines: ReceiptLine[]): Record<string, unknown> {
  return {
    Email: email,
    // T-Bank needs the tax system on every receipt; УСН «доходы» until the owner says otherwise.
    Taxation: TAXATION[taxSystemCode ?? 2] ?? 'usn_income',
    Items: lines.map((l) => ({
      Name: l.description.slice(0, 128),
      Price: l.amountKopecks,
      Quantity: 1,
      Amount: l.amountKopecks,
      Tax: TAX[l.vatCode] ?? 'none',
      PaymentMethod: l.paymentMode,
      PaymentObject: l.paymentSubject,
    })),
  };
}

function advanceLine(amountKopecks: number, vatCode: number): ReceiptLine {
  return { description: 'Пополнение баланса (аванс)', amountKopecks, vatCode, paymentMode: 'full_prepayment', paymentSubject: 'payment' };
}

interface TBankAnswer {
  Success?: unknown;
  ErrorCode?: unknown;
  Message?: unknown;
  Details?: unknown;
  Status?: unknown;
  PaymentId?: unknown;
  OrderId?: unknown;
  Amount?: unknown;
  PaymentURL?: unknown;
}

/**
 * T-Bank (Tinkoff) internet acquiring, API v2: JSON POSTs to Init, GetState and Cancel, each signed
 * with Token; one-stage payments (CONFIRMED means paid). Notifications carry the same Token; even
 * a valid one only names the payment to re-read with GetState. They must be answered `OK`.
 */
export function tbankAdapter(cfg: TBankConfig): PaymentAdapter {
  async function call(
    method: 'Init' | 'GetState' | 'Cancel' | 'SendClosingReceipt',
    params: Record<string, unknown>,
  ): Promise<TBankAnswer> {
    // SendClosingReceipt lives in the cash register's API beside v2 (…/cashbox/SendClosingReceipt).
    const base = method === 'SendClosingReceipt' ? cfg.apiUrl.replace(/\/v2$/, '/cashbox') : cfg.apiUrl;
    const res = await tbankPost(`${base}/${method}`, cfg, params);
    const a = (typeof res.body === 'object' && res.body ? res.body : {}) as TBankAnswer;
    if (res.status >= 500 || res.status === 429) throw new ProviderError(`Т-Банк ответил ${res.status}`, false, res.body);
    if (res.status !== 200 || a.Success !== true || String(a.ErrorCode ?? '0') !== '0') {
      // Error codes (developer.tbank.ru/eacq/intro/errors/error-codes): 3, 21 and 9999 are internal
      // errors of the acquiring system, 55 «Повторите попытку позже» — the same call may still pass.
      const transient = TRANSIENT_CODES.has(String(a.ErrorCode ?? ''));
      throw new ProviderError(
        `Т-Банк: ${String(a.ErrorCode ?? res.status)} ${String(a.Message ?? '')} ${String(a.Details ?? '')}`.trim(),
        res.status < 500 && !transient,
        res.body,
      );
    }
    return a;
  }

  function state(a: TBankAnswer): ProviderPaymentState {
    const status = typeof a.Status === 'string' ? a.Status : '';
    const amount = Number(a.Amount);
    if (!Number.isSafeInteger(amount)) throw new ProviderError('Т-Банк прислал платёж без суммы', true, a);
    const ours = SUCCEEDED.has(status) ? 'succeeded' : CANCELED.has(status) ? 'canceled' : REFUNDED.has(status) ? 'refunded' : 'pending';
    return {
      status: ours,
      providerStatus: status,
      amountKopecks: amount,
      orderId: typeof a.OrderId === 'string' ? a.OrderId : null,
      raw: a,
    };
  }

  return {
    name: 'tbank',
    canFetch: true,
    canRefund: true,
    async check() {
      // GetState of a payment that does not exist: «not found» means the terminal and password were taken.
      try {
        await call('GetState', { PaymentId: '1' });
        return { ok: true, message: 'Т-Банк принял ключи терминала' };
      } catch (err) {
        const raw = err instanceof ProviderError ? (err.raw as TBankAnswer | null) : null;
        const code = raw && typeof raw === 'object' ? String(raw.ErrorCode ?? '') : '';
        if (code === '204' || code === '501' || code === '202')
          return { ok: false, message: `Т-Банк не принял ключи: ${String(raw?.Message ?? code)}` };
        if (err instanceof ProviderError && err.definitive) return { ok: true, message: 'Т-Банк принял ключи терминала' };
        return { ok: false, message: (err as Error).message };
      }
    },
    async create(req: CreateRequest): Promise<CreatedPayment> {
      const a = await call('Init', {
        Amount: req.amountKopecks,
        OrderId: req.id,
        Description: req.description.slice(0, 140),
        NotificationURL: req.notificationUrl,
        SuccessURL: req.returnUrl,
        FailURL: req.returnUrl,
        DATA: { Email: req.email },
        ...(cfg.receipts
          ? {
              Receipt: tbankReceipt(
                req.email,
                req.fiscal?.taxSystemCode ?? null,
                req.lines ?? [advanceLine(req.amountKopecks, req.vatCode)],
              ),
            }
          : {}),
      });
      if ((typeof a.PaymentId !== 'string' && typeof a.PaymentId !== 'number') || typeof a.PaymentURL !== 'string')
        throw new ProviderError('Т-Банк не дал ссылку на оплату', false, a);
      return { providerPaymentId: String(a.PaymentId), confirmationUrl: a.PaymentURL, state: state(a) };
    },
    async fetch(providerPaymentId: string): Promise<ProviderPaymentState> {
      return state(await call('GetState', { PaymentId: providerPaymentId }));
    },
    async sendReceipt(req: ReceiptRequest): Promise<ReceiptState> {
      // SendClosingReceipt: the completion of the advance sent with Init (the payment CONFIRMED,
      // its Receipt with a full_prepayment item); the register answers Success without a receipt id.
      if (req.type !== 'payment' || req.settlement !== 'prepayment' || !req.providerPaymentId)
        throw new ProviderError(
          req.type === 'refund'
            ? 'Т-Банк не принимает чек возврата полного расчёта через API: оформите его в кассе'
            : 'Т-Банк принимает отдельно только чек закрытия аванса',
          true,
        );
      const a = await call('SendClosingReceipt', {
        PaymentId: req.providerPaymentId,
        Receipt: tbankReceipt(req.email, req.taxSystemCode, req.lines),
      });
      return { providerReceiptId: null, status: 'succeeded', reason: null, raw: a };
    },
    verifyNotification(_ip: string, body: unknown): NotificationVerdict {
      const b = body as Record<string, unknown> | null;
      if (
        !b ||
        typeof b !== 'object' ||
        typeof b.Token !== 'string' ||
        b.TerminalKey !== cfg.terminalKey ||
        (typeof b.PaymentId !== 'number' && typeof b.PaymentId !== 'string')
      ) {
        return { ok: false, reason: 'malformed', message: 'не уведомление Т-Банка этого терминала' };
      }
      if (!sameSecret(b.Token.toLowerCase(), tbankToken(b, cfg.password)))
        return { ok: false, reason: 'bad_token', message: 'неверный Token уведомления' };
      const id = String(b.PaymentId);
      if (!/^\d{1,20}$/.test(id)) return { ok: false, reason: 'malformed', message: 'не уведомление Т-Банка' };
      return { ok: true, providerPaymentId: id };
    },
    notificationReply(accepted: boolean): NotificationReply {
      // T-Bank repeats a notification until its answer is exactly OK.
      return accepted
        ? { status: 200, contentType: 'text/plain; charset=utf-8', body: 'OK' }
        : { status: 403, contentType: 'text/plain; charset=utf-8', body: 'FORBIDDEN' };
    },
    async refund(req: RefundRequest): Promise<RefundResult> {
      // GetState first, so a repeat after a done (or running) refund does not ask again; callers
      // hold a lease so that two never run this at once. Cancel's ExternalRequestId is T-Bank's
      // idempotence key: «if a cancel request with this ExternalRequestId exists, the answer is the
      // operation's current state, else the payment is canceled» (not for СБП payments — hence GetState).
      const now = state(await call('GetState', { PaymentId: req.providerPaymentId }));
      if (now.status === 'refunded') return { status: 'succeeded', providerRefundId: null, raw: now.raw };
      if (now.providerStatus === 'REFUNDING' || now.providerStatus === 'ASYNC_REFUNDING')
        return { status: 'pending', providerRefundId: null, raw: now.raw };
      // Cancel of a CONFIRMED payment for its whole Amount answers Status REFUNDED (a part: PARTIAL_REFUNDED).
      const a = await call('Cancel', {
        PaymentId: req.providerPaymentId,
        Amount: req.amountKopecks,
        ExternalRequestId: req.key,
        // A part carries its refund receipt; the whole payment's is made from the payment's own.
        ...(cfg.receipts && req.partReceipt
          ? {
              Receipt: tbankReceipt(req.partReceipt.email, req.partReceipt.fiscal?.taxSystemCode ?? null, [
                req.partReceipt.line
                  ? { ...req.partReceipt.line, amountKopecks: req.amountKopecks }
                  : advanceLine(req.amountKopecks, req.partReceipt.vatCode),
              ]),
            }
          : {}),
      });
      return {
        status: a.Status === 'REFUNDED' || a.Status === 'PARTIAL_REFUNDED' ? 'succeeded' : 'pending',
        providerRefundId: null,
        raw: a,
      };
    },
  };
}
