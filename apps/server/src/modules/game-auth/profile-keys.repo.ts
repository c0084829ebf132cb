import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { ProfileKeysTable } from './profile-keys.tables.ts';

export type ProfileKeyRow = Selectable<ProfileKeysTable>;

export function findProfileKey(db: Db, userId: number): Promise<ProfileKeyRow | undefined> {
  return db.selectFrom('profile_keys').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/**
 * Stores a new pair unless another one was stored meanwhile that is not yet due for refresh
 * (two launchers asking at the same moment): the caller then reads back whichever is stored.
 */
export async function storeProfileKey(db: Db, row: ProfileKeyRow, now: number): Promise<void> {
  const { user_id: _, ...fields } = row;
  await db
    .insertInto('profile_keys')
    .values(row)
    .onConflict((oc) => oc.column('user_id').doUpdateSet(fields).where('profile_keys.refreshed_after', '<=', now))
    .execute();
  // Pairs nobody came back for are swept here rather than by a job: nothing is kept past its expiry.
  await db.deleteFrom('profile_keys').where('expires_at', '<=', now).execute();
}

/** Forgets the player's pair: the next call gets a new one, and the old private key is gone from the site. */
export async function revokeProfileKeys(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('profile_keys').where('user_id', '=', userId).execute();
}
