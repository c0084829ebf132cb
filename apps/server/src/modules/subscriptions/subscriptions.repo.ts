import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db, DbKind } from '../../db/index.ts';
import type { SubscriptionChargesTable, SubscriptionsTable } from './subscriptions.tables.ts';

export type SubscriptionRow = Selectable<SubscriptionsTable>;
export type ChargeRow = Selectable<SubscriptionChargesTable>;

/** Live states: the player holds (or is about to hold) the subscription, and it may be charged. */
export const LIVE = ['pending', 'active', 'past_due'] as const;
export const liveKey = (userId: number, tierId: number) => `${userId}:${tierId}`;

/** Inserts the subscription unless one is live for the player and tier (the unique live_key); true when inserted. */
export async function insertLive(db: Db, values: Insertable<SubscriptionsTable>): Promise<boolean> {
  const rows = await db
    .insertInto('subscriptions')
    .values(values)
    .onConflict((oc) => oc.column('live_key').doNothing())
    .returning('id')
    .execute();
  return rows.length === 1;
}

export function liveOf(db: Db, userId: number, tierId: number): Promise<SubscriptionRow | undefined> {
  return db.selectFrom('subscriptions').selectAll().where('live_key', '=', liveKey(userId, tierId)).executeTakeFirst();
}

export function getSubscription(db: Db, id: string): Promise<SubscriptionRow | undefined> {
  return db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The subscription, locked until the transaction ends on PostgreSQL (SQLite has one writer at a time). */
export function lockSubscription(db: Db, kind: DbKind, id: string): Promise<SubscriptionRow | undefined> {
  const q = db.selectFrom('subscriptions').selectAll().where('id', '=', id);
  return (kind === 'pg' ? q.forUpdate() : q).executeTakeFirst();
}

export function subscriptionsOf(db: Db, userId: number): Promise<SubscriptionRow[]> {
  return db.selectFrom('subscriptions').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').limit(50).execute();
}

/** Moves the subscription only if it is in one of `from`; true when it moved. */
export async function moveSubscription(
  db: Db,
  id: string,
  from: readonly string[],
  set: Updateable<SubscriptionsTable>,
  extra?: { userId?: number; dueBy?: number },
): Promise<boolean> {
  let q = db
    .updateTable('subscriptions')
    .set(set)
    .where('id', '=', id)
    .where('state', 'in', [...from]);
  if (extra?.userId !== undefined) q = q.where('user_id', '=', extra.userId);
  if (extra?.dueBy !== undefined) q = q.where('next_charge_at', '<=', extra.dueBy);
  return Number((await q.executeTakeFirst()).numUpdatedRows) === 1;
}

// --- Charges --------------------------------------------------------------------------------

/** Records the attempt; false when this period's attempt was already made (the unique index). */
export async function insertCharge(db: Db, values: Insertable<SubscriptionChargesTable>): Promise<boolean> {
  const rows = await db
    .insertInto('subscription_charges')
    .values(values)
    .onConflict((oc) => oc.columns(['subscription_id', 'period', 'attempt']).doNothing())
    .returning('payment_id')
    .execute();
  return rows.length === 1;
}

export function chargeOf(db: Db, paymentId: string): Promise<ChargeRow | undefined> {
  return db.selectFrom('subscription_charges').selectAll().where('payment_id', '=', paymentId).executeTakeFirst();
}

/** The latest attempt of the subscription's period. */
export function lastAttempt(db: Db, subscriptionId: string, period: number): Promise<ChargeRow | undefined> {
  return db
    .selectFrom('subscription_charges')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('period', '=', period)
    .orderBy('attempt', 'desc')
    .executeTakeFirst();
}

/** The first payment of a subscription (period 1, attempt 1). */
export function firstCharge(db: Db, subscriptionId: string) {
  return db
    .selectFrom('subscription_charges as c')
    .innerJoin('payments as p', 'p.id', 'c.payment_id')
    .select(['c.payment_id', 'p.status', 'p.confirmation_url', 'p.created_at'])
    .where('c.subscription_id', '=', subscriptionId)
    .where('c.period', '=', 1)
    .orderBy('c.attempt')
    .executeTakeFirst();
}

/** Marks the charge paid once (a repeat, or a notification out of order, finds it paid); true when this call did. */
export async function markChargePaid(db: Db, paymentId: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('subscription_charges')
    .set({ status: 'paid', paid_at: now })
    .where('payment_id', '=', paymentId)
    .where('status', '!=', 'paid')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function markChargeFailed(db: Db, paymentId: string, failure: string): Promise<boolean> {
  const r = await db
    .updateTable('subscription_charges')
    .set({ status: 'failed', failure: failure.slice(0, 200) })
    .where('payment_id', '=', paymentId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The body of the latest notification kept for a payment (T-Bank's carries RebillId and Pan). */
export async function notificationBodies(db: Db, paymentId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('payment_events')
    .select('body')
    .where('payment_id', '=', paymentId)
    .where('kind', '=', 'notification')
    .orderBy('id', 'desc')
    .limit(10)
    .execute();
  return rows.map((r) => r.body).filter((b): b is string => b !== null);
}

// --- The clock ------------------------------------------------------------------------------

/** Live subscriptions whose charge is due, the longest waiting first. */
export function dueSubscriptions(db: Db, now: number, limit: number): Promise<SubscriptionRow[]> {
  return db
    .selectFrom('subscriptions')
    .selectAll()
    .where('state', 'in', ['active', 'past_due'])
    .where('next_charge_at', '<=', now)
    .orderBy('next_charge_at')
    .limit(limit)
    .execute();
}

/** Active subscriptions charged within `before` whose coming period was not announced yet, with the player's address. */
export function subscriptionsToRemind(db: Db, now: number, before: number, limit: number) {
  return db
    .selectFrom('subscriptions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .selectAll('s')
    .select(['u.email', 'u.username'])
    .where('s.state', '=', 'active')
    .where('s.next_charge_at', '<=', now + before)
    .where('s.next_charge_at', '>', now)
    .where(sql<boolean>`s.reminded_period <= s.periods`)
    .limit(limit)
    .execute();
}

export async function markReminded(db: Db, id: string, period: number): Promise<boolean> {
  const r = await db
    .updateTable('subscriptions')
    .set({ reminded_period: period })
    .where('id', '=', id)
    .where('reminded_period', '<', period)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Past-due subscriptions whose grace period is over. */
export function graceOver(db: Db, failingBefore: number, limit: number): Promise<SubscriptionRow[]> {
  return db
    .selectFrom('subscriptions')
    .selectAll()
    .where('state', '=', 'past_due')
    .where('failing_since', '<=', failingBefore)
    .limit(limit)
    .execute();
}

export function emailOf(db: Db, userId: number) {
  return db.selectFrom('users').select(['email', 'username']).where('id', '=', userId).executeTakeFirstOrThrow();
}

// --- The owner's view -----------------------------------------------------------------------

export function allSubscriptions(db: Db, limit: number) {
  return db
    .selectFrom('subscriptions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .selectAll('s')
    .select('u.username')
    .where('s.periods', '>', 0)
    .orderBy('s.created_at', 'desc')
    .limit(limit)
    .execute();
}

/** Paid charges since `since` (epoch ms). */
export function paidCharges(db: Db, since: number) {
  return db
    .selectFrom('subscription_charges')
    .select(['amount', 'paid_at'])
    .where('status', '=', 'paid')
    .where('paid_at', '>=', since)
    .execute();
}

/** Subscriptions that were ever paid, started or stopped since `since`. */
export function startsAndStops(db: Db, since: number) {
  return db
    .selectFrom('subscriptions')
    .select(['created_at', 'canceled_at', 'ended_at', 'state'])
    .where('periods', '>', 0)
    .where((eb) => eb.or([eb('created_at', '>=', since), eb('canceled_at', '>=', since), eb('ended_at', '>=', since)]))
    .execute();
}

export function countActive(db: Db) {
  return db
    .selectFrom('subscriptions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', 'in', ['active', 'past_due'])
    .executeTakeFirstOrThrow();
}
