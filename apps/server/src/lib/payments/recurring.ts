import { tbankPost, tbankReceipt } from './tbank.ts';
import {
  callJson,
  kopecksToValue,
  ProviderError,
  valueToKopecks,
  type CreatedPayment,
  type ProviderPaymentState,
  type ReceiptLine,
} from './types.ts';

/**
 * Recurring payments (subscriptions): the first payment, paid by the player on the provider's
 * page, saves the card; later ones are charged by the saved card without the player.
 * - ЮKassa (yookassa.ru/developers/payment-acceptance/scenario-extensions/recurring-payments):
 *   the first payment carries `save_payment_method: true`; once it succeeds its
 *   `payment_method` has `saved: true` and an `id`, and a charge is a new payment with
 *   `payment_method_id` and no confirmation. A refused charge is `canceled` with
 *   `cancellation_details.reason` (insufficient_funds, card_expired, permission_revoked…); one the
 *   bank wants confirmed by 3-D Secure stays `pending` with a confirmation — the player is not
 *   there, so it counts as failed.
 * - Т-Банк (developer.tbank.ru/eacq/api/charge): Init with `Recurrent: "Y"` and `CustomerKey`;
 *   the notification of the paid parent payment carries `RebillId` and the masked `Pan`. A charge
 *   is Init of a new payment and then Charge {PaymentId, RebillId}; a refusal is `Success: false`
 *   with the bank's ErrorCode (or Status REJECTED).
 */

export interface RecurringStart {
  /** Our payment id (idempotence key, order id). */
  id: string;
  amountKopecks: number;
  description: string;
  returnUrl: string;
  notificationUrl: string;
  email: string;
  vatCode: number;
  /** The player's key at the provider (T-Bank CustomerKey). */
  customerKey: string;
  /** Receipt item text (54-ФЗ). */
  item: string;
  /** The period's «полный расчёт» line (the tier's VAT rate and payment subject) and the seller's tax system. */
  line?: ReceiptLine;
  taxSystemCode?: number | null;
}

export interface RecurringCharge {
  /** Our payment id: the idempotence key of this period's attempt. */
  id: string;
  /**
   * The provider's payment of this attempt, when an earlier call made one and its outcome was not
   * learnt (an answer lost, a crash). Then the provider is asked what became of it, and a charge
   * is only ever completed on that payment, never started anew: the card is charged once.
   */
  known: string | null;
  /** False when the subscription was cancelled meanwhile: a known payment is looked at, never charged. */
  mayCharge: boolean;
  /** Called with the provider's payment as soon as it exists, before the card is charged. */
  created(providerPaymentId: string): Promise<void>;
  amountKopecks: number;
  description: string;
  notificationUrl: string;
  email: string;
  vatCode: number;
  methodId: string;
  item: string;
  line?: ReceiptLine;
  taxSystemCode?: number | null;
}

export interface ChargeOutcome {
  providerPaymentId: string | null;
  /** The provider's word on the charge, when it gave one. */
  state: ProviderPaymentState | null;
  /** Why the charge did not go through (Russian), or null when it succeeded or is still settling. */
  failure: string | null;
}

export interface SavedMethod {
  id: string;
  last4: string | null;
}

/** What a period's receipt is made of: the same fields of the first payment and of each charge. */
type PeriodReceipt = Pick<RecurringCharge, 'email' | 'amountKopecks' | 'item' | 'vatCode' | 'line' | 'taxSystemCode'>;

export interface RecurringAdapter {
  start(req: RecurringStart): Promise<CreatedPayment>;
  charge(req: RecurringCharge): Promise<ChargeOutcome>;
  /** The saved card in a provider's answer or notification, or null when it saved none. */
  savedMethod(raw: unknown): SavedMethod | null;
}

/** ЮKassa's reasons of a canceled payment, as the player reads them. */
export const YOOKASSA_DECLINE_TEXT: Record<string, string> = {
  insufficient_funds: 'на карте не хватило денег',
  card_expired: 'срок действия карты истёк',
  permission_revoked: 'списания с карты запрещены её владельцем',
  '3d_secure_failed': 'банк потребовал подтверждения 3-D Secure',
  call_issuer: 'банк отклонил списание',
  payment_method_restricted: 'карта заблокирована',
  general_decline: 'банк отклонил списание',
  fraud_suspected: 'банк заподозрил мошенничество',
  payment_method_limit_exceeded: 'превышен лимит по карте',
};

/** Т-Банк's error codes of a declined charge, as the player reads them (the bank's own message otherwise). */
export const TBANK_DECLINE_TEXT: Record<string, string> = {
  '1051': 'на карте не хватило денег',
  '1054': 'срок действия карты истёк',
  '104': 'банк потребовал подтверждения 3-D Secure',
};

interface YooMethod {
  id?: unknown;
  saved?: unknown;
  card?: { last4?: unknown };
}

export function yookassaRecurring(cfg: { shopId: string; secretKey: string; apiUrl: string; receipts: boolean }): RecurringAdapter {
  const auth = `Basic ${Buffer.from(`${cfg.shopId}:${cfg.secretKey}`).toString('base64')}`;
  async function post(body: unknown, key: string): Promise<Record<string, unknown>> {
    const res = await callJson(`${cfg.apiUrl}/payments`, {
      method: 'POST',
      headers: { authorization: auth, accept: 'application/json', 'content-type': 'application/json', 'idempotence-key': key },
      body: JSON.stringify(body),
    });
    if (res.status >= 200 && res.status < 300 && typeof res.body === 'object' && res.body) return res.body as Record<string, unknown>;
    const err = res.body as { code?: string; description?: string } | string;
    const text = typeof err === 'object' && err ? `${err.code ?? ''} ${err.description ?? ''}`.trim() : String(err).slice(0, 200);
    throw new ProviderError(
      `ЮKassa ответила ${res.status}: ${text}`,
      res.status >= 400 && res.status < 500 && res.status !== 429,
      res.body,
    );
  }
  // Unlike the one-time adapter's calls, a failed re-read is never definitive: the payment exists
  // (ЮKassa gave its id), and taken as a failed charge the next attempt would charge the card again.
  async function get(id: string): Promise<Record<string, unknown>> {
    const res = await callJson(`${cfg.apiUrl}/payments/${encodeURIComponent(id)}`, {
      method: 'GET',
      headers: { authorization: auth, accept: 'application/json' },
    });
    if (res.status === 200 && typeof res.body === 'object' && res.body) return res.body as Record<string, unknown>;
    throw new ProviderError(`ЮKassa ответила ${res.status} на запрос платежа`, false, res.body);
  }
  // The period is paid for directly: its receipt is the goods' «полный расчёт», never an advance.
  const receipt = (req: PeriodReceipt) =>
    cfg.receipts
      ? {
          receipt: {
            customer: { email: req.email },
            items: [
              {
                description: (req.line?.description ?? req.item).slice(0, 128),
                quantity: '1.00',
                amount: { value: kopecksToValue(req.amountKopecks), currency: 'RUB' },
                vat_code: req.line?.vatCode ?? req.vatCode,
                payment_mode: 'full_payment',
                payment_subject: req.line?.paymentSubject ?? 'service',
              },
            ],
            ...(req.taxSystemCode ? { tax_system_code: req.taxSystemCode } : {}),
          },
        }
      : {};
  function stateOf(p: Record<string, unknown>, orderId: string): ProviderPaymentState {
    const amount = valueToKopecks((p.amount as { value?: unknown } | undefined)?.value);
    const status = typeof p.status === 'string' ? p.status : '';
    return {
      status: status === 'succeeded' && p.paid === true ? 'succeeded' : status === 'canceled' ? 'canceled' : 'pending',
      providerStatus: status,
      amountKopecks: amount,
      orderId: typeof (p.metadata as Record<string, unknown> | undefined)?.payment_id === 'string' ? orderId : null,
      raw: p,
    };
  }
  return {
    async start(req) {
      const value = kopecksToValue(req.amountKopecks);
      const p = await post(
        {
          amount: { value, currency: 'RUB' },
          capture: true,
          save_payment_method: true,
          confirmation: { type: 'redirect', return_url: req.returnUrl },
          description: req.description.slice(0, 128),
          metadata: { payment_id: req.id },
          ...receipt(req),
        },
        req.id,
      );
      const url = (p.confirmation as { confirmation_url?: unknown } | undefined)?.confirmation_url;
      if (typeof p.id !== 'string' || typeof url !== 'string') throw new ProviderError('ЮKassa не дала ссылку на оплату', false, p);
      return { providerPaymentId: p.id, confirmationUrl: url, state: stateOf(p, req.id) };
    },
    async charge(req) {
      const value = kopecksToValue(req.amountKopecks);
      // A payment already made for this attempt is re-read: ЮKassa keeps an Idempotence-Key's
      // answer for 24 hours only, so a later POST with it could charge the card a second time.
      if (!req.known && !req.mayCharge) return { providerPaymentId: null, state: null, failure: 'подписка отменена' };
      const p = req.known
        ? await get(req.known)
        : await post(
            {
              amount: { value, currency: 'RUB' },
              capture: true,
              payment_method_id: req.methodId,
              description: req.description.slice(0, 128),
              metadata: { payment_id: req.id },
              ...receipt(req),
            },
            req.id,
          );
      if (!req.known && typeof p.id === 'string') await req.created(p.id);
      const state = stateOf(p, req.id);
      const id = typeof p.id === 'string' ? p.id : null;
      if (state.status === 'canceled') {
        const reason = String((p.cancellation_details as { reason?: unknown } | undefined)?.reason ?? '');
        return {
          providerPaymentId: id,
          state,
          failure: YOOKASSA_DECLINE_TEXT[reason] ?? `ЮKassa отклонила списание (${reason || 'без причины'})`,
        };
      }
      // The bank asks the absent player to confirm: the charge cannot go through now.
      if (state.status === 'pending' && p.confirmation)
        return { providerPaymentId: id, state, failure: YOOKASSA_DECLINE_TEXT['3d_secure_failed']! };
      return { providerPaymentId: id, state, failure: null };
    },
    savedMethod: yookassaSavedMethod,
  };
}

/** ЮKassa: the payment's `payment_method` when it was saved (`saved: true`). */
export function yookassaSavedMethod(raw: unknown): SavedMethod | null {
  const m = (raw as { payment_method?: YooMethod } | null)?.payment_method;
  if (!m || m.saved !== true || typeof m.id !== 'string') return null;
  const last4 = typeof m.card?.last4 === 'string' && /^\d{4}$/.test(m.card.last4) ? m.card.last4 : null;
  return { id: m.id, last4 };
}

/** Т-Банк: the notification's RebillId and the last digits of its masked Pan. */
export function tbankSavedMethod(raw: unknown): SavedMethod | null {
  const b = raw as { RebillId?: unknown; Pan?: unknown } | null;
  if (!b || (typeof b.RebillId !== 'string' && typeof b.RebillId !== 'number') || String(b.RebillId) === '') return null;
  const pan = typeof b.Pan === 'string' ? b.Pan : '';
  const last4 = /\d{4}$/.exec(pan)?.[0] ?? null;
  return { id: String(b.RebillId), last4 };
}

export function tbankRecurring(cfg: { terminalKey: string; password: string; apiUrl: string; receipts?: boolean }): RecurringAdapter {
  // With the online register on, every Init carries the period's «полный расчёт» (full_payment).
  const receipt = (req: PeriodReceipt) =>
    cfg.receipts
      ? {
          Receipt: tbankReceipt(req.email, req.taxSystemCode ?? null, [
            {
              description: req.line?.description ?? req.item,
              amountKopecks: req.amountKopecks,
              vatCode: req.line?.vatCode ?? req.vatCode,
              paymentMode: 'full_payment',
              paymentSubject: req.line?.paymentSubject ?? 'service',
            },
          ]),
        }
      : {};
  async function call(method: 'Init' | 'Charge' | 'GetState', params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const res = await tbankPost(`${cfg.apiUrl}/${method}`, cfg, params);
    if (res.status >= 500 || res.status === 429) throw new ProviderError(`Т-Банк ответил ${res.status}`, false, res.body);
    return (typeof res.body === 'object' && res.body ? res.body : {}) as Record<string, unknown>;
  }
  const failed = (a: Record<string, unknown>) => a.Success !== true || String(a.ErrorCode ?? '0') !== '0';
  const why = (a: Record<string, unknown>) =>
    TBANK_DECLINE_TEXT[String(a.ErrorCode ?? '')] ?? `Т-Банк: ${String(a.ErrorCode ?? '')} ${String(a.Message ?? '')}`.trim();
  return {
    async start(req) {
      const a = await call('Init', {
        Amount: req.amountKopecks,
        OrderId: req.id,
        Description: req.description.slice(0, 140),
        NotificationURL: req.notificationUrl,
        SuccessURL: req.returnUrl,
        FailURL: req.returnUrl,
        Recurrent: 'Y',
        CustomerKey: req.customerKey,
        DATA: { Email: req.email },
        ...receipt(req),
      });
      if (failed(a)) throw new ProviderError(why(a), true, a);
      if ((typeof a.PaymentId !== 'string' && typeof a.PaymentId !== 'number') || typeof a.PaymentURL !== 'string')
        throw new ProviderError('Т-Банк не дал ссылку на оплату', false, a);
      return { providerPaymentId: String(a.PaymentId), confirmationUrl: a.PaymentURL, state: null };
    },
    async charge(req) {
      let paymentId = req.known;
      if (paymentId !== null) {
        // The Charge of an earlier call may have gone through with its answer lost: the payment's
        // state says. Only a payment still NEW was never charged.
        const now = await call('GetState', { PaymentId: paymentId });
        if (failed(now)) throw new ProviderError(why(now), false, now);
        if (now.Status !== 'NEW' || !req.mayCharge) return stateOfCharge(now, paymentId, req);
      } else {
        if (!req.mayCharge) return { providerPaymentId: null, state: null, failure: 'подписка отменена' };
        // Init makes a new payment each time it is called: its PaymentId is recorded before the
        // Charge, so a retry finds this payment instead of making (and charging) another.
        const init = await call('Init', {
          Amount: req.amountKopecks,
          OrderId: req.id,
          Description: req.description.slice(0, 140),
          NotificationURL: req.notificationUrl,
          DATA: { Email: req.email },
          ...receipt(req),
        });
        if (failed(init)) throw new ProviderError(why(init), true, init);
        paymentId = String(init.PaymentId);
        await req.created(paymentId);
      }
      return stateOfCharge(await call('Charge', { PaymentId: paymentId, RebillId: req.methodId }), paymentId, req);
    },
    savedMethod: tbankSavedMethod,
  };

  function stateOfCharge(a: Record<string, unknown>, paymentId: string, req: RecurringCharge): ChargeOutcome {
    const status = typeof a.Status === 'string' ? a.Status : null;
    // A payment NEW when it may not be charged is left to expire at the bank; the attempt ends here.
    if (status === 'NEW') return { providerPaymentId: paymentId, state: null, failure: 'подписка отменена' };
    const refused = failed(a) || (status !== null && TBANK_ENDED.has(status));
    const state: ProviderPaymentState = {
      status: status === 'CONFIRMED' ? 'succeeded' : refused ? 'canceled' : 'pending',
      providerStatus: status ?? 'REJECTED',
      amountKopecks: Number(a.Amount ?? req.amountKopecks),
      orderId: typeof a.OrderId === 'string' ? a.OrderId : req.id,
      raw: a,
    };
    // GetState of a refused payment is itself a success: the bank's code is in the Charge's answer only.
    return { providerPaymentId: paymentId, state, failure: refused ? (failed(a) ? why(a) : 'банк отклонил списание') : null };
  }
}

/** T-Bank's statuses of a payment that will not be paid any more. */
const TBANK_ENDED = new Set(['REJECTED', 'CANCELED', 'DEADLINE_EXPIRED', 'REVERSED', 'AUTH_FAIL']);

/** The player's CustomerKey at T-Bank: the same for every subscription of theirs, never their name. */
export const customerKeyOf = (userId: number) => `kubik-user-${userId}`;
