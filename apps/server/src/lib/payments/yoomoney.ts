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

/** The fields a notification's sha1_hash covers, in order (the secret goes between codepro and label). */
const SIGNED = ['notification_type', 'operation_id', 'amount', 'currency', 'datetime', 'sender', 'codepro'] as const;

/** sha1_hash of a ЮMoney notification: SHA-1 hex of the fields joined by «&», notification_secret before label. */
export function yoomoneyHash(b: Record<string, string>, secret: string): string {
  const line = [...SIGNED.map((k) => b[k] ?? ''), secret, b.label ?? ''].join('&');
  return createHash('sha1').update(line, 'utf8').digest('hex');
}

/**
 * ЮMoney (a wallet, for the self-employed), per yoomoney.ru/docs/payment-buttons: the player posts
 * the quickpay form (`receiver`, `quickpay-form=button`, `paymentType`, `sum`, `label`,
 * `successURL`) to https://yoomoney.ru/quickpay/confirm; the wallet's HTTP notification
 * (yoomoney.ru/docs/wallet/using-api/notification-p2p-incoming, form-encoded) is verified by
 * `sha1_hash`; a transfer with protection code (`codepro=true`) or not yet accepted
 * (`unaccepted=true`) is refused. There is no payment API: without an OAuth token the signed
 * notification is the provider's word; with one (scope operation-history) reconciliation looks
 * the label up in the wallet's history. Refunds only by hand from the wallet.
 */
export function yoomoneyAdapter(cfg: YooMoneyConfig): PaymentAdapter {
  async function history(label: string): Promise<ProviderPaymentState> {
    const res = await callJson(`${cfg.apiUrl}/operation-history`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cfg.oauthToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ type: 'deposition', label, records: '10' }).toString(),
    });
    if (res.status === 401) throw new ProviderError('ЮMoney не принял OAuth-токен', true, res.body);
    if (res.status !== 200 || typeof res.body !== 'object' || !res.body)
      throw new ProviderError(`ЮMoney ответил ${res.status}`, res.status < 500, res.body);
    const ops = (res.body as { operations?: unknown }).operations;
    const found = Array.isArray(ops)
      ? (ops as Record<string, unknown>[]).find((o) => o.label === label && o.direction === 'in' && o.status === 'success')
      : undefined;
    if (!found) return { status: 'pending', providerStatus: 'not_found', amountKopecks: 0, orderId: label, raw: res.body };
    const amount = valueToKopecks(String(found.amount ?? ''));
    // The history gives what reached the wallet (after ЮMoney's commission, at most 3 % for
    // cards): reconciliation credits the asked amount when what arrived covers it less that.
    return {
      status: 'succeeded',
      providerStatus: 'history',
      amountKopecks: Number.isFinite(amount) ? Math.ceil(amount / 0.97) : 0,
      orderId: label,
      raw: found,
      operationId: typeof found.operation_id === 'string' ? found.operation_id : undefined,
      amountRule: 'covers',
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
      if (f.codepro === 'true') return { ok: false, reason: 'codepro', message: 'перевод с кодом протекции: не зачисляется' };
      if (b.unaccepted === 'true') return { ok: false, reason: 'unaccepted', message: 'перевод ещё не принят (unaccepted)' };
      if (b.test_notification === 'true') return { ok: true, test: true };
      if (f.currency !== '643') return { ok: false, reason: 'malformed', message: 'уведомление ЮMoney не в рублях' };
      const withdraw = valueToKopecks(typeof b.withdraw_amount === 'string' ? b.withdraw_amount : f.amount);
      if (!Number.isFinite(withdraw) || !/^[\w-]{1,64}$/.test(f.label!) || !/^[\w-]{1,64}$/.test(f.operation_id!))
        return { ok: false, reason: 'malformed', message: 'не уведомление ЮMoney' };
      return {
        ok: true,
        paymentId: f.label,
        state: {
          status: 'succeeded',
          providerStatus: f.notification_type!.slice(0, 32),
          amountKopecks: withdraw,
          orderId: f.label!,
          raw: null,
          operationId: f.operation_id,
          amountRule: 'covers',
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
