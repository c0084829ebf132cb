import type { Db, DbKind } from '../../db/index.ts';
import { badRequest } from '../../lib/errors.ts';
import { InsufficientFunds, postLedger } from '../ledger/ledger.service.ts';
import { balanceSpent } from '../users/users.ports.ts';
import { idempotent, type KeyedRequest } from './purchases.keys.ts';
import { buyerName, lockPlayerRow } from './purchases.repo.ts';
import { siteEvent } from '../users/users.ports.ts';

export { RetryPurchase } from './purchases.keys.ts';

export const PURCHASE_TEXTS = {
  noFunds: 'Недостаточно средств на балансе',
} as const;

/** What the player pays, in kopecks: the price, what is taken off it, and the rest (debited). */
export interface Charge {
  price: number;
  discount: number;
  total: number;
}

/** One ledger row of a purchase: what it names (`order:12`) and, for one of several rows, its kopecks. */
export interface LedgerLine {
  ref: string;
  note: string;
  /** Kopecks of this row when the purchase writes several (a cart: one per order); they add up to the total. */
  amount?: number;
}

/** What the record step wrote, as the ledger row names it (`order:12`, `privilege:7`), or one row per order of a cart. */
export interface Recorded {
  ledger: LedgerLine | LedgerLine[];
}

/**
 * One way to spend the balance, as steps of one transaction. The purchases core runs them in the
 * order every purchase keeps — price → discount → record → ledger debit → deliver — under the
 * request's Idempotency-Key; a step refuses by throwing an HttpError, and then nothing of the
 * purchase remains (its stock, rows, key and deliveries roll back together).
 *
 * A new way to pay (a cart, a gift, a promo code) is a new spec, not a new copy:
 * its price step sums its lines, its discount step applies the code (counting the use in the
 * same transaction), limits are checked in either, and a gift records and delivers to its
 * recipient while `userId` pays.
 */
export interface PurchaseSpec<P extends { price: number }, R extends Recorded, A> extends KeyedRequest {
  /**
   * Lock the payer's row first (PostgreSQL; SQLite has one writer anyway), so that one player's
   * purchases run one after another and each sees what the previous one wrote. The clock is read
   * after the lock.
   */
  serialize?: boolean;
  /** Reads and checks what is bought, reserves it (stock by a conditional update) and prices it. */
  price(trx: Db, now: number): Promise<P>;
  /** Kopecks taken off the price (the upgrade credit); never more than the price. */
  discount?(trx: Db, priced: P, now: number): Promise<number>;
  /** Writes what was bought (orders, privileges) and names the ledger row. */
  record(trx: Db, priced: P, charge: Charge, now: number): Promise<R>;
  /** After the debit, with the new balance: queues the deliveries and makes the answer (JSON, replayed as is). */
  deliver(trx: Db, recorded: R, balance: number, now: number): Promise<A>;
  /**
   * Last, just before the commit: takes what every buyer shares (an item's stock) by a conditional
   * update. Its row stays locked until the commit, so it is locked last: a sale of one item runs
   * its buyers one after another only for this update and the commit, not for the whole purchase.
   * Throws RetryPurchase when what the price step read has changed since (the purchase then runs
   * again from the start).
   */
  take?(trx: Db, priced: P, now: number): Promise<void>;
}

/**
 * Serializes a player's balance and privilege changes: on PostgreSQL the user's row is locked for
 * the rest of the transaction (lockPlayerRow says which lock and why). SQLite runs one write
 * transaction at a time already.
 */
export async function lockPlayer(trx: Db, kind: DbKind, userId: number): Promise<void> {
  if (kind === 'pg') await lockPlayerRow(trx, userId);
}

/** Locks several players' rows in id order (a gift: the payer and the recipient), so two crossing gifts cannot deadlock. */
export async function lockPlayers(trx: Db, kind: DbKind, userIds: number[]): Promise<void> {
  for (const id of [...new Set(userIds)].sort((a, b) => a - b)) await lockPlayer(trx, kind, id);
}

/** Takes `amount` kopecks from the player's balance with its ledger row; refuses (400 insufficient_funds) what would go below zero. */
export async function debit(trx: Db, userId: number, amount: number, ledger: LedgerLine): Promise<number> {
  try {
    const balance = await postLedger(trx, {
      userId,
      amount: -amount,
      reason: 'purchase',
      authorId: userId,
      ref: ledger.ref,
      note: ledger.note,
    });
    if (amount > 0) await balanceSpent.run(trx, { userId, amount, ref: ledger.ref, note: ledger.note });
    return balance;
  } catch (err) {
    if (err instanceof InsufficientFunds) throw badRequest(PURCHASE_TEXTS.noFunds, { code: 'insufficient_funds' });
    throw err;
  }
}

/** Runs one purchase (see PurchaseSpec) and answers what its deliver step made, or its first answer when the key was used. */
export function purchase<P extends { price: number }, R extends Recorded, A>(
  ctx: { db: Db; dbKind: DbKind },
  spec: PurchaseSpec<P, R, A>,
): Promise<A> {
  return idempotent(ctx.db, spec, async (trx) => {
    if (spec.serialize) await lockPlayer(trx, ctx.dbKind, spec.userId);
    const now = Date.now();
    const priced = await spec.price(trx, now);
    const off = spec.discount ? await spec.discount(trx, priced, now) : 0;
    const discount = Math.max(0, Math.min(priced.price, off));
    const charge: Charge = { price: priced.price, discount, total: priced.price - discount };
    const recorded = await spec.record(trx, priced, charge, now);
    const balance = await debitAll(trx, spec.userId, charge.total, recorded.ledger);
    const answer = await spec.deliver(trx, recorded, balance, now);
    if (spec.take) await spec.take(trx, priced, now);
    const lines = Array.isArray(recorded.ledger) ? recorded.ledger : [recorded.ledger];
    await siteEvent.run(trx, {
      kind: 'purchase',
      id: lines.map((l) => l.ref).join(','),
      player: (await buyerName(trx, spec.userId)) ?? '',
      item: lines.map((l) => l.note).join(', '),
      amount: charge.total,
    });
    return answer;
  });
}

/** Debits the total as one row, or as the record step's rows (which must add up to it). */
async function debitAll(trx: Db, userId: number, total: number, ledger: Recorded['ledger']): Promise<number> {
  if (!Array.isArray(ledger)) return debit(trx, userId, total, ledger);
  const sum = ledger.reduce((s, l) => s + (l.amount ?? 0), 0);
  if (sum !== total || ledger.length === 0) throw new Error(`ledger rows add up to ${sum}, not the total ${total}`);
  let balance = 0;
  for (const line of ledger) balance = await debit(trx, userId, line.amount ?? 0, line);
  return balance;
}
