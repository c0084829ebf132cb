import { PAYMENT_TEXTS, type AdminPaymentsQuery, type PaymentStatus } from '@kubik/contract';
import { sql, type Expression, type ExpressionBuilder, type Insertable, type Selectable, type SqlBool, type UpdateObject } from 'kysely';
import type { Db, DbKind } from '../../db/index.ts';
import type { Database } from '../../db/types.ts';
import { notFound } from '../../lib/errors.ts';
import { toRoubles } from '../../lib/money.ts';
import { plural } from '../../lib/plural.ts';
import { redactSignatures } from './payments.redact.ts';
import type { PaymentProvidersTable, PaymentsTable } from './payments.tables.ts';

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
    kind: 'notification' | 'create' | 'fetch' | 'refund' | 'error' | 'expire' | 'receipt';
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

export function getPayment(db: Db, id: string): Promise<PaymentRow | undefined> {
  return db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The payment, or 404. */
export async function findPayment(db: Db, id: string): Promise<PaymentRow> {
  const row = await getPayment(db, id);
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

// --- A top-up from creation to credit -------------------------------------------------------

/** Locks the player's row on PostgreSQL (SQLite's one writer needs no lock), so two top-ups at once cannot both pass the pending cap. */
export async function lockPlayer(db: Db, kind: DbKind, userId: number): Promise<void> {
  if (kind === 'pg') await db.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
}

/** The player's payments still pending that were created after `since`. */
export async function countPending(db: Db, userId: number, since: number): Promise<number> {
  const waiting = await db
    .selectFrom('payments')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('status', '=', 'pending')
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(waiting.n);
}

export async function insertPayment(db: Db, values: Insertable<PaymentsTable>): Promise<void> {
  await db.insertInto('payments').values(values).execute();
}

/** The receipt that goes with a payment, kept once (a retried charge of the same payment keeps the first). */
export async function keepReceipt(db: Db, id: string, receipt: string): Promise<void> {
  await db.updateTable('payments').set({ receipt }).where('id', '=', id).where('receipt', 'is', null).execute();
}

/** What the provider answered when the payment was created there. */
export async function recordCreated(
  db: Db,
  id: string,
  values: Pick<UpdateObject<Database, 'payments'>, 'provider_payment_id' | 'confirmation_url' | 'provider_status' | 'updated_at'>,
): Promise<void> {
  await db.updateTable('payments').set(values).where('id', '=', id).execute();
}

/**
 * pending → canceled (with the provider's status when it gave one); false when the payment had
 * already moved on.
 */
export async function cancelPending(db: Db, id: string, now: number, providerStatus?: string): Promise<boolean> {
  const changed = await db
    .updateTable('payments')
    .set({
      status: 'canceled',
      canceled_at: now,
      ...(providerStatus === undefined ? {} : { provider_status: providerStatus }),
      updated_at: now,
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(changed.numUpdatedRows) === 1;
}

/** The provider's status of a payment still pending (it is not paid yet). */
export async function notePendingStatus(db: Db, id: string, providerStatus: string): Promise<void> {
  await db.updateTable('payments').set({ provider_status: providerStatus }).where('id', '=', id).where('status', '=', 'pending').execute();
}

/** The player's payments the provider accepted, newest first. */
export function paymentsOfPlayer(db: Db, userId: number, limit: number): Promise<PaymentRow[]> {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('user_id', '=', userId)
    .where('provider_payment_id', 'is not', null)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
}

/** The payment if it is this player's. */
export function ownPayment(db: Db, id: string, userId: number): Promise<PaymentRow | undefined> {
  return db.selectFrom('payments').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

export async function markChecked(db: Db, id: string, now: number): Promise<void> {
  await db.updateTable('payments').set({ checked_at: now }).where('id', '=', id).execute();
}

/** pending → succeeded; false when another caller credited (or canceled) it first, which makes the credit happen once. */
export async function markSucceeded(
  db: Db,
  id: string,
  values: Pick<UpdateObject<Database, 'payments'>, 'paid_at' | 'bonus' | 'provider_status' | 'provider_operation_id' | 'updated_at'>,
): Promise<boolean> {
  const changed = await db
    .updateTable('payments')
    .set({ status: 'succeeded', ...values })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(changed.numUpdatedRows) === 1;
}

export async function setBonus(db: Db, id: string, bonus: number): Promise<void> {
  await db.updateTable('payments').set({ bonus }).where('id', '=', id).execute();
}

/** The payment a notification names: by our id when it gives one, else by the provider's id. */
export function notifiedPayment(
  db: Db,
  provider: string,
  named: { paymentId?: string; providerPaymentId?: string },
): Promise<PaymentRow | undefined> {
  let q = db.selectFrom('payments').selectAll().where('provider', '=', provider);
  q = named.paymentId ? q.where('id', '=', named.paymentId) : q.where('provider_payment_id', '=', named.providerPaymentId ?? '');
  return q.executeTakeFirst();
}

/** The payment's id if it exists and is the provider's. */
export function paymentOfProvider(db: Db, id: string, provider: string) {
  return db.selectFrom('payments').select('id').where('id', '=', id).where('provider', '=', provider).executeTakeFirst();
}

// --- Transfers judged on a signed notification's word ---------------------------------------

/** True when this call marked the transfer judged; false when it already was (the primary key makes it once). */
export async function claimOperation(db: Db, provider: string, operationId: string, paymentId: string, outcome: string): Promise<boolean> {
  const rows = await db
    .insertInto('payment_operations')
    .values({ provider, operation_id: operationId, payment_id: paymentId, outcome: outcome.slice(0, 200), created_at: Date.now() })
    .onConflict((oc) => oc.columns(['provider', 'operation_id']).doNothing())
    .returning('operation_id')
    .execute();
  return rows.length === 1;
}

/** What the site made of a transfer judged before. */
export function operationOutcome(db: Db, provider: string, operationId: string) {
  return db
    .selectFrom('payment_operations')
    .select('outcome')
    .where('provider', '=', provider)
    .where('operation_id', '=', operationId)
    .executeTakeFirst();
}

export async function setOperationOutcome(db: Db, provider: string, operationId: string, outcome: string): Promise<void> {
  await db
    .updateTable('payment_operations')
    .set({ outcome: outcome.slice(0, 200) })
    .where('provider', '=', provider)
    .where('operation_id', '=', operationId)
    .execute();
}

// --- Refunds and reconciliation -------------------------------------------------------------

export type PaymentSet = Omit<UpdateObject<Database, 'payments'>, 'status'>;
export type PaymentWhere = (eb: ExpressionBuilder<Database, 'payments'>) => Expression<SqlBool>;

/**
 * Moves the payment from `from` to `to` with `set`, only if it is in `from` (and matches `where`):
 * one conditional update, so of two callers racing one moves it. True when it moved.
 */
export async function movePayment(
  db: Db,
  id: string,
  from: PaymentStatus,
  to: PaymentStatus,
  set: PaymentSet,
  where?: PaymentWhere,
): Promise<boolean> {
  let update = db
    .updateTable('payments')
    .set(from === to ? set : { ...set, status: to })
    .where('id', '=', id)
    .where('status', '=', from);
  if (where) update = update.where(where);
  return Number((await update.executeTakeFirst()).numUpdatedRows) === 1;
}

/** The address a part refund's receipt goes to. */
export function payerEmail(db: Db, userId: number) {
  return db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst();
}

/** Refunds left «refunding» whose lease ran out (or was let go), the longest untouched first. */
export function refundsToResume(db: Db, now: number, limit: number): Promise<PaymentRow[]> {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('status', '=', 'refunding')
    .where((eb) => eb.or([eb('refund_lease_until', 'is', null), eb('refund_lease_until', '<=', now)]))
    .orderBy('updated_at')
    .limit(limit)
    .execute();
}

/** Payments still pending, those never (or longest ago) asked about first. */
export function pendingToCheck(db: Db, limit: number): Promise<PaymentRow[]> {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('status', '=', 'pending')
    .orderBy('checked_at', (o) => o.nullsFirst())
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

// --- The ledger check -----------------------------------------------------------------------

/** Ledger rows of top-ups, bonuses and refunds counted and summed per ref and reason. */
export function paymentLedgerGroups(db: Db) {
  return db
    .selectFrom('ledger')
    .select(['ref', 'reason', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.sum<number>('amount').as('total')])
    .where('reason', 'in', ['topup', 'bonus', 'topup_refund'])
    .groupBy(['ref', 'reason'])
    .execute();
}

/** Every payment with what its ledger rows must add up to. */
export function paymentsToCheck(db: Db) {
  return db
    .selectFrom('payments')
    .select(['id', 'status', 'amount', 'bonus', 'refund_attempts', 'refunded_amount', 'bonus_refunded', 'refund_now', 'refund_bonus_now'])
    .execute();
}

// --- The owner's list -----------------------------------------------------------------------

/** The owner's filter, its period already read as epoch ms. */
export type PaymentFilter = Pick<AdminPaymentsQuery, 'status' | 'provider' | 'player'> & { from: number | null; to: number | null };

function filtered(db: Db, f: PaymentFilter) {
  let q = db.selectFrom('payments as p').innerJoin('users as u', 'u.id', 'p.user_id');
  // A payment the provider never accepted (no provider id) is not money: the owner's list leaves it out.
  q = q.where('p.provider_payment_id', 'is not', null);
  if (f.status) q = q.where('p.status', '=', f.status);
  if (f.provider) q = q.where('p.provider', '=', f.provider);
  if (f.player)
    q = q.where(sql<boolean>`u.username_lower like ${`%${f.player.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`} escape '\\'`);
  if (f.from !== null) q = q.where('p.created_at', '>=', f.from);
  if (f.to !== null) q = q.where('p.created_at', '<', f.to);
  return q;
}

const LISTED = [
  'p.id',
  'p.user_id',
  'u.username',
  'p.provider',
  'p.amount',
  'p.bonus',
  'p.status',
  'p.provider_payment_id',
  'p.provider_status',
  'p.created_at',
  'p.paid_at',
  'p.canceled_at',
  'p.refunded_at',
  'p.refund_requested_by',
  'p.refund_error',
  'p.refunded_amount',
] as const;

/** A payment as the owner's list and CSV show it, with the player's name. */
export type ListedPayment = Awaited<ReturnType<typeof listedPayment>>[number];

/** One payment with the list's columns (whether or not the provider accepted it); [] when there is none. */
export function listedPayment(db: Db, id: string) {
  return db
    .selectFrom('payments as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .select([...LISTED])
    .where('p.id', '=', id)
    .execute();
}

/** One page of the filtered payments, newest first. */
export function listedPage(db: Db, f: PaymentFilter, limit: number, offset: number): Promise<ListedPayment[]> {
  return filtered(db, f)
    .select([...LISTED])
    .orderBy('p.created_at', 'desc')
    .orderBy('p.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

/** The filtered payments oldest first, at most `limit` (the CSV). */
export function listedOldestFirst(db: Db, f: PaymentFilter, limit: number): Promise<ListedPayment[]> {
  return filtered(db, f)
    .select([...LISTED])
    .orderBy('p.created_at')
    .orderBy('p.id')
    .limit(limit)
    .execute();
}

const PAID = ['succeeded', 'refunding', 'refunded'] as const;

/** Sums over everything the filter matches: kopecks paid, refunded (with the part in flight) and of bonus, and the counts. */
export function listedTotals(db: Db, f: PaymentFilter) {
  return filtered(db, f)
    .select((eb) => [
      eb.fn.countAll<number>().as('count'),
      eb.fn
        .sum<number>(
          eb
            .case()
            .when('p.status', 'in', [...PAID])
            .then(eb.ref('p.amount'))
            .else(0)
            .end(),
        )
        .as('paid'),
      eb.fn
        .sum<number>(
          eb
            .case()
            .when('p.status', 'in', [...PAID])
            .then(1)
            .else(0)
            .end(),
        )
        .as('paid_count'),
      // Partial refunds: what went back, plus the part in flight.
      sql<number>`sum(p.refunded_amount + case when p.status = 'refunding' then coalesce(p.refund_now, p.amount - p.refunded_amount) else 0 end)`.as(
        'refunded',
      ),
      sql<number>`sum(case when p.status in ('refunding', 'refunded') or p.refunded_amount > 0 then 1 else 0 end)`.as('refunded_count'),
      eb.fn.sum<number>(eb.case().when('p.status', '=', 'succeeded').then(eb.ref('p.bonus')).else(0).end()).as('bonus'),
    ])
    .executeTakeFirstOrThrow();
}

export function usernamesOf(db: Db, ids: number[]) {
  return db.selectFrom('users').select(['id', 'username']).where('id', 'in', ids).execute();
}

/** The notifications and provider answers kept about a payment, oldest first. */
export function eventsOf(db: Db, paymentId: string, limit: number) {
  return db.selectFrom('payment_events').selectAll().where('payment_id', '=', paymentId).orderBy('id').limit(limit).execute();
}

export function balanceOf(db: Db, userId: number) {
  return db.selectFrom('users').select('balance').where('id', '=', userId).executeTakeFirstOrThrow();
}

/** The player's latest top-ups the provider accepted, for the admin user card. */
export function latestPaymentsOf(db: Db, userId: number, limit: number) {
  return db
    .selectFrom('payments')
    .select(['id', 'amount', 'status', 'provider', 'created_at'])
    .where('user_id', '=', userId)
    .where('provider_payment_id', 'is not', null)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
}

// --- Providers' settings and refused notifications ------------------------------------------

export type ProviderSettingsRow = Selectable<PaymentProvidersTable>;

export function providerSettings(db: Db): Promise<ProviderSettingsRow[]> {
  return db.selectFrom('payment_providers').selectAll().execute();
}

/** The provider's settings row, made empty first if there is none; on PostgreSQL locked until the transaction ends. */
export async function lockProviderSettings(db: Db, kind: DbKind, provider: string, now: number): Promise<ProviderSettingsRow> {
  await db
    .insertInto('payment_providers')
    .values({
      provider,
      enabled: null,
      receipts: null,
      min_kopecks: null,
      max_kopecks: null,
      fields: '{}',
      secrets: '{}',
      dropped_secrets: '{}',
      updated_at: now,
    })
    .onConflict((oc) => oc.column('provider').doNothing())
    .execute();
  let read = db.selectFrom('payment_providers').selectAll().where('provider', '=', provider);
  if (kind === 'pg') read = read.forUpdate();
  return read.executeTakeFirstOrThrow();
}

export async function saveProviderSettings(
  db: Db,
  provider: string,
  values: Omit<UpdateObject<Database, 'payment_providers'>, 'provider'>,
): Promise<void> {
  await db.updateTable('payment_providers').set(values).where('provider', '=', provider).execute();
}

/** The keys dropped when a provider's address changed, per provider (JSON). */
export function droppedSecrets(db: Db) {
  return db.selectFrom('payment_providers').select(['provider', 'dropped_secrets']).execute();
}

/** Refused notifications summed up per provider and reason, the latest first. */
export function refusalSummary(db: Db) {
  return db.selectFrom('payment_refusals').selectAll().orderBy('last_at', 'desc').execute();
}

/**
 * Adds a tally of refusals to its row (one per provider and reason): a flood of forgeries takes no
 * space. The times are the refusals' own; another instance's later write keeps the latest time and sender.
 */
export async function addRefusals(
  db: Db,
  t: { provider: string; reason: string; count: number; firstAt: number; lastAt: number; lastIp: string | null },
): Promise<void> {
  const lastIp = t.lastIp?.slice(0, 64) ?? null;
  await db
    .insertInto('payment_refusals')
    .values({ provider: t.provider, reason: t.reason, count: t.count, first_at: t.firstAt, last_at: t.lastAt, last_ip: lastIp })
    .onConflict((oc) =>
      oc.columns(['provider', 'reason']).doUpdateSet((eb) => {
        // A tie goes to this write, the later one.
        const newer = eb('payment_refusals.last_at', '<=', t.lastAt);
        return {
          count: eb('payment_refusals.count', '+', t.count),
          last_ip: eb.case().when(newer).then(lastIp).else(eb.ref('payment_refusals.last_ip')).end(),
          last_at: eb.case().when(newer).then(t.lastAt).else(eb.ref('payment_refusals.last_at')).end(),
        };
      }),
    )
    .execute();
}
