import type { Insertable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { UsersTable } from '../../db/types.ts';

/** First-run setup's rows: the one setup_state row (id 1) and the owner it creates. */

/** Whether an administrator exists (not deleted). */
export async function hasAdmin(db: Db): Promise<boolean> {
  const admin = await db.selectFrom('users').select('id').where('is_admin', '=', 1).where('deleted_at', 'is', null).executeTakeFirst();
  return admin !== undefined;
}

/** Whether setup was completed (an owner created through /setup, who may since have been deleted). */
export async function setupDone(db: Db): Promise<boolean> {
  const done = await db.selectFrom('setup_state').select('id').where('done_at', 'is not', null).executeTakeFirst();
  return done !== undefined;
}

/** The one-time code: the first instance to ask stores `fresh`; every instance reads the stored one. */
export async function setupCode(db: Db, fresh: string, now: number): Promise<string> {
  await db
    .insertInto('setup_state')
    .values({ id: 1, code: fresh, created_at: now, done_at: null, owner_id: null })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  const row = await db.selectFrom('setup_state').select('code').where('id', '=', 1).executeTakeFirstOrThrow();
  return row.code;
}

export function setupState(db: Db) {
  return db.selectFrom('setup_state').select(['code', 'done_at']).where('id', '=', 1).executeTakeFirst();
}

/** Setup ends here, once: of parallel requests exactly one gets true. */
export async function claimSetup(trx: Db, now: number): Promise<boolean> {
  const claimed = await trx
    .updateTable('setup_state')
    .set({ done_at: now })
    .where('id', '=', 1)
    .where('done_at', 'is', null)
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

export async function insertOwner(trx: Db, row: Insertable<UsersTable>): Promise<number> {
  const { id } = await trx.insertInto('users').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

export async function recordSetupOwner(trx: Db, ownerId: number): Promise<void> {
  await trx.updateTable('setup_state').set({ owner_id: ownerId }).where('id', '=', 1).execute();
}
