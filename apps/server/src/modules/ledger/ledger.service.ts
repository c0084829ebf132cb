import { sql } from 'kysely';
import type { Db } from '../../db/index.ts';
import { balanceMoved } from '../notices/notices.service.ts';

export type LedgerReason = 'adjustment' | 'purchase' | 'refund' | 'topup' | 'bonus' | 'topup_refund';

export interface LedgerEntry {
  userId: number;
  /** Signed kopecks. */
  amount: number;
  reason: LedgerReason;
  authorId: number | null;
  ref?: string | null;
  note?: string | null;
}

export class InsufficientFunds extends Error {}

/**
 * Writes one ledger row and moves the cached balance by the same amount, in the caller's
 * transaction. The balance update is conditional, so a debit can never take it below zero
 * however many run at once; on failure nothing is written.
 */
export async function postLedger(trx: Db, entry: LedgerEntry): Promise<number> {
  if (!Number.isSafeInteger(entry.amount)) throw new Error('ledger amount must be integer kopecks');
  const updated = await trx
    .updateTable('users')
    .set({ balance: sql`balance + ${entry.amount}` })
    .where('id', '=', entry.userId)
    .where(sql<boolean>`balance + ${entry.amount} >= 0`)
    .returning('balance')
    .executeTakeFirst();
  if (!updated) throw new InsufficientFunds();
  await trx
    .insertInto('ledger')
    .values({
      user_id: entry.userId,
      amount: entry.amount,
      reason: entry.reason,
      author_id: entry.authorId,
      ref: entry.ref ?? null,
      note: entry.note ?? null,
      created_at: Date.now(),
    })
    .execute();
  await balanceMoved(trx, entry.userId);
  return Number(updated.balance);
}

/** Users whose cached balance differs from the sum of their ledger rows (should be none). */
export async function findLedgerMismatches(db: Db): Promise<{ id: number; username: string; balance: number; ledger: number }[]> {
  const rows = await db
    .selectFrom('users')
    .leftJoin('ledger', 'ledger.user_id', 'users.id')
    .select([
      'users.id',
      'users.username',
      'users.balance',
      (eb) => eb.fn.coalesce(eb.fn.sum<number>('ledger.amount'), sql<number>`0`).as('ledger'),
    ])
    .groupBy(['users.id', 'users.username', 'users.balance'])
    .execute();
  return rows
    .map((r) => ({ id: r.id, username: r.username, balance: Number(r.balance), ledger: Number(r.ledger) }))
    .filter((r) => r.balance !== r.ledger);
}
