import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { LedgerTable } from '../../db/types.ts';

/**
 * Moves the user's cached balance by `amount` kopecks unless that would take it below zero; the
 * condition sits in the update itself, so concurrent debits cannot overdraw. The new balance, or
 * undefined when the update was refused (or there is no such user).
 */
export async function moveBalance(trx: Db, userId: number, amount: number): Promise<number | undefined> {
  const updated = await trx
    .updateTable('users')
    .set({ balance: sql`balance + ${amount}` })
    .where('id', '=', userId)
    .where(sql<boolean>`balance + ${amount} >= 0`)
    .returning('balance')
    .executeTakeFirst();
  return updated && Number(updated.balance);
}

export async function insertLedgerRow(trx: Db, row: Insertable<LedgerTable>): Promise<void> {
  await trx.insertInto('ledger').values(row).execute();
}

/** Every user's cached balance beside the sum of their ledger rows. */
export function balancesWithLedgerSums(db: Db) {
  return db
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
}
