import { PAYMENT_TEXTS } from '@kubik/contract';
import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.ts';
import { notFound } from '../../lib/errors.ts';
import { toRoubles } from '../../lib/money.ts';
import { plural } from '../../lib/plural.ts';
import { redactSignatures } from './payments.redact.ts';
import type { PaymentsTable } from './payments.tables.ts';

export type PaymentRow = Selectable<PaymentsTable>;

const rub = new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 0, maximumFractionDigits: 2 });
/** Kopecks as the payment's events, ledger notes and messages write them: «1 250 ₽», «35,5 ₽». */
export const formatRub = (kopecks: number) => `${rub.format(toRoubles(kopecks))}\u00a0₽`;

const EVENT_BODY_MAX = 20_000;

/** Texts only the server says (kept out of the contract, which the first page carries). */
export const PAYMENT_SERVER_TEXTS = {
  tooManyPending: (n: number) =>
    `У вас уже ${n} ${plural(n, ['неоплаченный платёж', 'неоплаченных платежа', 'неоплаченных платежей'])}. ${n === 1 ? 'Оплатите его' : 'Оплатите один из них'} или подождите: неоплаченный платёж отменяется сам через сутки.`,
  refundNotSupported: 'Этот способ оплаты не возвращает деньги через сайт: верните их из кабинета платёжной системы',
  refundTooLarge: (left: string) => `Вернуть можно не больше ${left}: остальное уже возвращено`,
} as const;

/** Keeps a notification or a provider answer (payment events), for the owner to see, without its signature. */
export async function recordEvent(
  db: Db,
  e: {
    paymentId: string | null;
    provider: string;
    kind: 'notification' | 'create' | 'fetch' | 'refund' | 'error' | 'expire';
    ip?: string | null;
    outcome: string;
    body?: unknown;
  },
): Promise<void> {
  const body =
    e.body === undefined ? null : redactSignatures(typeof e.body === 'string' ? e.body : JSON.stringify(e.body)).slice(0, EVENT_BODY_MAX);
  await db
    .insertInto('payment_events')
    .values({
      payment_id: e.paymentId,
      provider: e.provider,
      kind: e.kind,
      ip: e.ip ?? null,
      outcome: e.outcome.slice(0, 200),
      body,
      created_at: Date.now(),
    })
    .execute();
}

/** The payment, or 404. */
export async function findPayment(db: Db, id: string): Promise<PaymentRow> {
  const row = await db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(PAYMENT_TEXTS.notFound, { code: 'payment_not_found' });
  return row;
}

/** A deleted account's payments forget where they were asked from (users core: userErased); the money stays on record. */
export async function forgetPayer(trx: Db, userId: number): Promise<void> {
  await trx
    .updateTable('payments')
    .set({ payer_ip: null, payer_device: null })
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('payer_ip', 'is not', null), eb('payer_device', 'is not', null)]))
    .execute();
}
