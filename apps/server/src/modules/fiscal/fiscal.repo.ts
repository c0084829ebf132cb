import type { Db } from '../../db/index.ts';

/** Paid top-ups of the providers that register no receipt themselves, paid in [from, to). */
export async function incomePayments(db: Db, providers: string[], from: number, to: number) {
  return db
    .selectFrom('payments')
    .select(['provider', 'amount', 'refunded_amount', 'paid_at'])
    .where('provider', 'in', providers)
    .where('status', 'in', ['succeeded', 'refunding', 'refunded'])
    .where('paid_at', '>=', from)
    .where('paid_at', '<', to)
    .execute();
}
