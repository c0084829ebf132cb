import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { ReceiptsTable } from './receipts.tables.ts';

// Queries of 54-ФЗ receipts and of which top-up paid for which spending.

export type ReceiptRow = Awaited<ReturnType<typeof receiptById>> & object;

export async function insertReceipt(db: Db, row: Insertable<ReceiptsTable>): Promise<void> {
  await db.insertInto('receipts').values(row).execute();
}

export async function receiptById(db: Db, id: number) {
  return db.selectFrom('receipts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function receiptOfKind(db: Db, paymentId: string, kind: string) {
  return db.selectFrom('receipts').selectAll().where('payment_id', '=', paymentId).where('kind', '=', kind).orderBy('id').execute();
}

/** Moves a receipt on only from the state it was read in (two runners never both send it). */
export async function moveReceipt(db: Db, id: number, from: string, set: Updateable<ReceiptsTable>): Promise<boolean> {
  const r = await db
    .updateTable('receipts')
    .set({ ...set, updated_at: Date.now() })
    .where('id', '=', id)
    .where('state', '=', from)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function receiptsDue(db: Db, now: number, limit: number) {
  return db
    .selectFrom('receipts')
    .selectAll()
    .where('state', '=', 'pending')
    .where((eb) => eb.or([eb('next_at', 'is', null), eb('next_at', '<=', now)]))
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function receiptsSent(db: Db, limit: number) {
  return db
    .selectFrom('receipts')
    .selectAll()
    .where('state', '=', 'sent')
    .where('provider_receipt_id', 'is not', null)
    .orderBy('updated_at')
    .limit(limit)
    .execute();
}

/** Advances still «sent» whose payment ended: registered with a paid one, never with a canceled one. */
export async function advancesToSettle(db: Db, limit: number) {
  return db
    .selectFrom('receipts')
    .innerJoin('payments', 'payments.id', 'receipts.payment_id')
    .select(['receipts.id', 'payments.status'])
    .where('receipts.kind', '=', 'advance')
    .where('receipts.state', '=', 'sent')
    .where('payments.status', '!=', 'pending')
    .limit(limit)
    .execute();
}

export async function receiptPage(
  db: Db,
  q: { state?: string; kind?: string; payment_id?: string; player?: string; before?: number },
  limit: number,
) {
  let query = db
    .selectFrom('receipts')
    .leftJoin('users', 'users.id', 'receipts.user_id')
    .selectAll('receipts')
    .select('users.username')
    .orderBy('receipts.id', 'desc')
    .limit(limit);
  if (q.state) query = query.where('receipts.state', '=', q.state);
  if (q.kind) query = query.where('receipts.kind', '=', q.kind);
  if (q.payment_id) query = query.where('receipts.payment_id', '=', q.payment_id);
  if (q.player) query = query.where('users.username_lower', 'like', `%${q.player.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  if (q.before) query = query.where('receipts.id', '<', q.before);
  return query.execute();
}

/**
 * The player's paid top-ups (not payments for goods), oldest first, with what is left of each to spend: its amount less
 * what went back to the card (or is going back now) less what was spent of it; and whether its
 * advance receipt was sent (the completion receipt follows only then).
 */
export async function moneyLots(db: Db, userId: number) {
  const rows = await db
    .selectFrom('payments')
    .select([
      'payments.id',
      'payments.provider',
      'payments.provider_payment_id',
      'payments.amount',
      'payments.refunded_amount',
      'payments.refund_now',
      'payments.status',
      (eb) =>
        eb
          .selectFrom('balance_spends')
          .select((s) => s.fn.coalesce(s.fn.sum<number>('balance_spends.amount'), s.lit(0)).as('spent'))
          .whereRef('balance_spends.payment_id', '=', 'payments.id')
          .as('spent'),
      (eb) =>
        eb
          .selectFrom('receipts')
          .select((s) => s.fn.count<number>('receipts.id').as('n'))
          .whereRef('receipts.payment_id', '=', 'payments.id')
          .where('receipts.kind', '=', 'advance')
          .where('receipts.state', 'in', ['sent', 'succeeded'])
          .as('advances'),
    ])
    .where('payments.user_id', '=', userId)
    // Money paid for goods directly had its «полный расчёт» with the payment: never an advance to offset.
    .where('payments.purpose', '=', 'topup')
    .where('payments.status', 'in', ['succeeded', 'refunding', 'refunded'])
    .orderBy('payments.paid_at')
    .orderBy('payments.id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    provider: r.provider,
    providerPaymentId: r.provider_payment_id,
    withReceipt: Number(r.advances ?? 0) > 0,
    left: Number(r.amount) - Number(r.refunded_amount) - (r.status === 'refunding' ? Number(r.refund_now ?? 0) : 0) - Number(r.spent ?? 0),
  }));
}

export async function insertSpend(db: Db, row: { user_id: number; payment_id: string; amount: number; ref: string; created_at: number }) {
  const r = await db.insertInto('balance_spends').values(row).returning('id').executeTakeFirstOrThrow();
  return r.id;
}

/** The parts of one spending (its ledger reference) over the top-ups, with the returns (negative), in order. */
export async function spendParts(db: Db, userId: number, ref: string) {
  return db
    .selectFrom('balance_spends')
    .select(['id', 'payment_id', 'amount'])
    .where('user_id', '=', userId)
    .where('ref', '=', ref)
    .orderBy('id')
    .execute();
}

/** The completion receipt of one spending's part paid by one top-up (one part per top-up and spending). */
export async function settlementOf(db: Db, paymentId: string, ref: string) {
  return db
    .selectFrom('receipts')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .where('kind', '=', 'settlement')
    .where('ref', '=', ref)
    .orderBy('id')
    .executeTakeFirst();
}

/** Reversals of a completion receipt. */
export async function reversalsOf(db: Db, parentId: number) {
  return db
    .selectFrom('receipts')
    .selectAll()
    .where('parent_id', '=', parentId)
    .where('kind', '=', 'settle_refund')
    .orderBy('id')
    .execute();
}

export async function spentOf(db: Db, paymentId: string): Promise<number> {
  const r = await db
    .selectFrom('balance_spends')
    .select((s) => s.fn.coalesce(s.fn.sum<number>('amount'), s.lit(0)).as('spent'))
    .where('payment_id', '=', paymentId)
    .executeTakeFirst();
  return Number(r?.spent ?? 0);
}

/** The shop item or donate tier a spending's ledger reference names (order:{id}, privilege:{id}). */
export async function sellableOfRef(db: Db, ref: string): Promise<{ kind: 'shop_item' | 'tier'; id: number } | null> {
  const m = /^(order|privilege):(\d+)$/.exec(ref);
  if (!m) return null;
  if (m[1] === 'order') {
    const o = await db.selectFrom('shop_orders').select('item_id').where('id', '=', Number(m[2])).executeTakeFirst();
    return o ? { kind: 'shop_item', id: o.item_id } : null;
  }
  const p = await db.selectFrom('privilege_purchases').select('tier_id').where('id', '=', Number(m[2])).executeTakeFirst();
  return p ? { kind: 'tier', id: p.tier_id } : null;
}

export async function emailOf(db: Db, userId: number): Promise<string> {
  const u = await db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst();
  return u?.email ?? '';
}

export async function paymentForReceipt(db: Db, id: string) {
  return db.selectFrom('payments').select(['id', 'provider', 'provider_payment_id', 'user_id']).where('id', '=', id).executeTakeFirst();
}

export async function countReceipts(db: Db, paymentId: string, kind: string): Promise<number> {
  const r = await db
    .selectFrom('receipts')
    .select((s) => s.fn.count<number>('id').as('n'))
    .where('payment_id', '=', paymentId)
    .where('kind', '=', kind)
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}
