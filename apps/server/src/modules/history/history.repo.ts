import type { Db } from '../../db/index.ts';

/** The player's ledger rows, optionally of one kind. */
function ledgerOf(db: Db, userId: number, kind: string | undefined) {
  let q = db.selectFrom('ledger').where('ledger.user_id', '=', userId);
  if (kind) q = q.where('ledger.reason', '=', kind);
  return q;
}

export async function countLedgerRows(db: Db, userId: number, kind: string | undefined): Promise<number> {
  const counted = await ledgerOf(db, userId, kind)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  return Number(counted?.n ?? 0);
}

/** One page of the player's ledger, newest first, with the name of whoever made each change. */
export function ledgerPage(db: Db, userId: number, kind: string | undefined, offset: number, limit: number) {
  return ledgerOf(db, userId, kind)
    .leftJoin('users as author', 'author.id', 'ledger.author_id')
    .select([
      'ledger.id',
      'ledger.amount',
      'ledger.reason',
      'ledger.author_id',
      'ledger.ref',
      'ledger.note',
      'ledger.created_at',
      'author.username as author_name',
    ])
    .orderBy('ledger.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

/** The kinds of movement the player's ledger holds, by name. */
export function ledgerKinds(db: Db, userId: number) {
  return db.selectFrom('ledger').select('reason').distinct().where('user_id', '=', userId).orderBy('reason').execute();
}
