import type { Db } from '../../db/index.ts';
import { balanceMoved } from '../notices/notices.service.ts';
import * as repo from './ledger.repo.ts';

export type LedgerReason =
  | 'adjustment'
  | 'purchase'
  | 'refund'
  | 'topup'
  | 'bonus'
  | 'topup_refund'
  /** A vote on a server top (modules/votes), ref `vote:<id>`; a month's prize, ref `vote_prize:<month>:<place>`. */
  | 'vote_reward'
  | 'vote_prize'
  /** An inviter's share or bonus for an invited player's top-up (modules/referrals), and its reversal on refund. */
  | 'referral_reward';

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
  const balance = await repo.moveBalance(trx, entry.userId, entry.amount);
  if (balance === undefined) throw new InsufficientFunds();
  await repo.insertLedgerRow(trx, {
    user_id: entry.userId,
    amount: entry.amount,
    reason: entry.reason,
    author_id: entry.authorId,
    ref: entry.ref ?? null,
    note: entry.note ?? null,
    created_at: Date.now(),
  });
  await balanceMoved(trx, entry.userId);
  return balance;
}

/** Users whose cached balance differs from the sum of their ledger rows (should be none). */
export async function findLedgerMismatches(db: Db): Promise<{ id: number; username: string; balance: number; ledger: number }[]> {
  const rows = await repo.balancesWithLedgerSums(db);
  return rows
    .map((r) => ({ id: r.id, username: r.username, balance: Number(r.balance), ledger: Number(r.ledger) }))
    .filter((r) => r.balance !== r.ledger);
}
