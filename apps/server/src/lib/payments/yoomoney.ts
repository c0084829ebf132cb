import { createHash } from 'node:crypto';
import type { PaymentsConfig } from '../../config.ts';
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

type YooMoneyConfig = NonNullable<PaymentsConfig['yoomoney']>;

/**
 * ЮMoney's largest commission on a quickpay transfer, per cent, taken off what reaches the wallet
 * (yoomoney.ru/docs/payment-buttons/using-api/forms, «Calculating commission»): a bank card (AC)
 * 3 % of the sum, a ЮMoney wallet (PC) 1 % on top (sum · 0.01 / 1.01, under 1 %). A transfer is
 * judged by what reached the wallet — the signed `amount` or the history's — so it must be at least
 * the asked sum less this much; a payer who switches the form to the wallet can underpay by up to
 * about 2 % and the owner still gets what a card payment of the whole sum brings.
 */
export const YOOMONEY_MAX_COMMISSION_PERCENT = 3;

/** The fields a notification's sha1_hash covers, in order (the secret goes between codepro and label). */
const SIGNED = ['notification_type', 'operation_id', 'amount', 'currency', 'datetime', 'sender', 'codepro'] as const;

/** sha1_hash of a ЮMoney notification: SHA-1 hex of the fields joined by «&», notification_secret before label. */
export function yoomoneyHash(b: Record<string, string>, secret: string): string {
  const line = [...SIGNED.map((k) => b[k] ?? ''), secret, b.label ?? ''].join('&');
  return createHash('sha1').update(line, 'utf8').digest('hex');
}

/** A history record's `amount` (a JSON number such as 145.98, or a string) in kopecks; NaN otherwise. */
function historyKopecks(amount: unknown): number {
  if (typeof amount === 'number') return Number.isFinite(amount) && amount >= 0 ? Math.round(amount * 100) : Number.NaN;
  return valueToKopecks(amount);
}

/**
 * ЮMoney (a wallet, for the self-employed), per yoomoney.ru/docs/payment-buttons: the player posts
 * the quickpay form (`receiver`, `quickpay-form=button`, `paymentType`, `sum`, `label`,
 * `successURL`) to https://yoomoney.ru/quickpay/confirm; the wallet's HTTP notification
 * (yoomoney.ru/docs/wallet/using-api/notification-p2p-incoming, form-encoded) is verified by
 * `sha1_hash`; a transfer with protection code (`codepro=true`) or not yet accepted
 * (`unaccepted=true`) is refused. There is no payment API: without an OAuth token the signed
 * notification is the provider's word (its signed fields only); with one (scope
 * operation-history) a notification only prompts the site to look the label up in the wallet's
 * history, as reconciliation does. Refunds only by hand from the wallet.
 */
export function yoomoneyAdapter(cfg: YooMoneyConfig): PaymentAdapter {
  async function history(label: string): Promise<ProviderPaymentState> {
    const res = await callJson(`${cfg.apiUrl}/operation-history`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cfg.oauthToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ type: 'deposition', label, records: '100' }).toString(),
    });
    // The protocol refuses authorization with 400/401/403 and `WWW-Authenticate: Bearer error="…"`
    // (yoomoney.ru/docs/wallet/using-api/format/protocol-response); the body may be empty.
    if (res.status === 401) throw new ProviderError('ЮMoney не принял OAuth-токен (invalid_token): выпустите новый', true, res.body);
    if (res.status === 403)
      throw new ProviderError('OAuth-токену ЮMoney не хватает права operation-history (insufficient_scope)', true, res.body);
    if (res.status !== 200 || typeof res.body !== 'object' || !res.body)
      throw new ProviderError(`ЮMoney ответил ${res.status}`, res.status < 500, res.body);
    // A refused call is HTTP 200 with `error` (illegal_param_label, …): not «nothing found».
    const error = (res.body as { error?: unknown }).error;
    if (typeof error === 'string') throw new ProviderError(`ЮMoney отказал в истории операций: ${error.slice(0, 64)}`, true, res.body);
    const ops = (res.body as { operations?: unknown }).operations;
    if (!Array.isArray(ops)) throw new ProviderError('ЮMoney ответил без списка операций', false, res.body);
    // Only money that came in under this label counts; of several such operations the largest.
    const incoming = (ops as Record<string, unknown>[]).filter((o) => o && o.label === label && o.direction === 'in');
    const done = incoming
      .filter((o) => o.status === 'success')
      .map((o) => ({ o, kopecks: historyKopecks(o.amount) }))
      .filter((x) => Number.isFinite(x.kopecks))
      .sort((a, b) => b.kopecks - a.kopecks)[0];
    if (!done) {
      const waiting = incoming.find((o) => o.status === 'in_progress');
      return {
        status: 'pending',
        providerStatus: waiting ? 'in_progress' : incoming.length > 0 ? 'refused' : 'not_found',
        amountKopecks: 0,
        orderId: label,
        raw: res.body,
      };
    }
    // The history gives what reached the wallet (`amount`, after ЮMoney's commission), not what
    // the payer paid: it must cover the asked sum less the largest commission.
    return {
      status: 'succeeded',
      providerStatus: 'history',
      amountKopecks: done.kopecks,
      orderId: label,
      raw: done.o,
      operationId: typeof done.o.operation_id === 'string' ? done.o.operation_id.slice(0, 64) : undefined,
      amountRule: 'covers',
      commissionPercent: YOOMONEY_MAX_COMMISSION_PERCENT,
    };
  }

  return {
    name: 'yoomoney',
    canFetch: Boolean(cfg.oauthToken),
    canRefund: false,
    async check() {
      if (!/^\d{11,20}$/.test(cfg.wallet)) return { ok: false, message: 'Номер кошелька ЮMoney — от 11 до 20 цифр' };
      if (!cfg.oauthToken)
        return {
          ok: true,
          message:
            'Кошелёк и секрет заданы. Без OAuth-токена ЮMoney не даёт проверить их запросом: нажмите «Протестировать» в настройках HTTP-уведомлений кошелька — тестовое уведомление появится в сводке ниже.',
        };
      const res = await callJson(`${cfg.apiUrl}/account-info`, {
        method: 'POST',
        headers: { authorization: `Bearer ${cfg.oauthToken}` },
      }).catch((err: Error) => ({ status: 0, body: err.message }));
      if (res.status === 200) {
        const account = (res.body as { account?: unknown }).account;
        return account === cfg.wallet
          ? { ok: true, message: 'ЮMoney принял токен, кошелёк совпадает' }
          : { ok: false, message: `Токен выдан для другого кошелька (${String(account)})` };
      }
      if (res.status === 403) {
        // A token with operation-history only (all reconciliation needs): ask the history instead.
        const h = await callJson(`${cfg.apiUrl}/operation-history`, {
          method: 'POST',
          headers: { authorization: `Bearer ${cfg.oauthToken}`, 'content-type': 'application/x-www-form-urlencoded' },
          body: 'records=1',
        }).catch((err: Error) => ({ status: 0, body: err.message }));
        return h.status === 200
          ? { ok: true, message: 'ЮMoney принял токен (право operation-history есть; номер кошелька без права account-info не проверить)' }
          : { ok: false, message: 'OAuth-токену ЮMoney не хватает права operation-history' };
      }
      return { ok: false, message: res.status === 401 ? 'ЮMoney не принял OAuth-токен' : `ЮMoney ответил ${res.status}` };
    },
    async create(req: CreateRequest): Promise<CreatedPayment> {
      return {
        // Our id is the label: the notification names the payment by it.
        providerPaymentId: req.id,
        confirmationUrl: null,
        form: {
          action: cfg.formUrl,
          method: 'POST',
          fields: {
            receiver: cfg.wallet,
            'quickpay-form': 'button',
            paymentType: 'AC',
            sum: kopecksToValue(req.amountKopecks),
            label: req.id,
            successURL: req.returnUrl,
          },
        },
        label: req.id,
        state: null,
      };
    },
    async fetch(label: string): Promise<ProviderPaymentState> {
      if (!cfg.oauthToken) throw new ProviderError('ЮMoney без OAuth-токена не даёт перечитать платёж: ждём уведомление', false);
      return history(label);
    },
    verifyNotification(_ip: string, body: unknown): NotificationVerdict {
      const b = body as Record<string, unknown> | null;
      if (!b || typeof b !== 'object') return { ok: false, reason: 'malformed', message: 'не уведомление ЮMoney' };
      for (const k of [...SIGNED, 'label', 'sha1_hash'])
        if (typeof b[k] !== 'string') return { ok: false, reason: 'malformed', message: `в уведомлении ЮMoney нет поля ${k}` };
      const f = b as Record<string, string>;
      if (!sameSecret(f.sha1_hash!.toLowerCase(), yoomoneyHash(f, cfg.notificationSecret)))
        return { ok: false, reason: 'bad_token', message: 'неверный sha1_hash уведомления ЮMoney' };
      // Refused for what an authentic notification says: its operation is judged now. `unaccepted`
      // is outside the hash, so the same notification must not come back later without it.
      const operation =
        /^[\w-]{1,64}$/.test(f.label!) && /^[\w-]{1,64}$/.test(f.operation_id!)
          ? { paymentId: f.label!, operationId: f.operation_id! }
          : undefined;
      if (f.codepro === 'true') return { ok: false, reason: 'codepro', message: 'перевод с кодом протекции: не зачисляется', operation };
      if (b.unaccepted === 'true') return { ok: false, reason: 'unaccepted', message: 'перевод ещё не принят (unaccepted)', operation };
      if (b.test_notification === 'true') return { ok: true, test: true };
      if (f.currency !== '643') return { ok: false, reason: 'malformed', message: 'уведомление ЮMoney не в рублях' };
      // Only signed fields decide: `amount` (what reached the wallet). `withdraw_amount` (what the
      // payer paid) is outside sha1_hash — anyone holding one genuine notification could change it
      // — so it is kept in the payment's events for the owner and read by nothing.
      const amount = valueToKopecks(f.amount);
      if (!Number.isFinite(amount) || !/^[\w-]{1,64}$/.test(f.label!) || !/^[\w-]{1,64}$/.test(f.operation_id!))
        return { ok: false, reason: 'malformed', message: 'не уведомление ЮMoney' };
      return {
        ok: true,
        paymentId: f.label,
        state: {
          status: 'succeeded',
          providerStatus: f.notification_type!.slice(0, 32),
          amountKopecks: amount,
          orderId: f.label!,
          raw: null,
          operationId: f.operation_id,
          amountRule: 'covers',
          commissionPercent: YOOMONEY_MAX_COMMISSION_PERCENT,
        },
      };
    },
    notificationReply(accepted: boolean): NotificationReply {
      // ЮMoney wants 200 (it tries three times: at once, in 10 minutes, in an hour).
      return accepted
        ? { status: 200, contentType: 'text/plain; charset=utf-8', body: 'OK' }
        : { status: 403, contentType: 'text/plain; charset=utf-8', body: 'FORBIDDEN' };
    },
    async refund(): Promise<RefundResult> {
      throw new ProviderError('ЮMoney не возвращает переводы через API: верните деньги из кошелька', true);
    },
  };
}
