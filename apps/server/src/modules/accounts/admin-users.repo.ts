import type { Updateable } from 'kysely';
import type { Db, DbKind } from '../../db/index.ts';
import type { UsersTable } from '../../db/types.ts';
import type { UserRow } from './accounts.repo.ts';

export function listActiveUsers(db: Db): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().where('deleted_at', 'is', null).orderBy('id').execute();
}

/** The user, not deleted; on PostgreSQL the row stays locked until the transaction ends. */
export function findActiveUser(db: Db, kind: DbKind, id: number): Promise<UserRow | undefined> {
  let q = db.selectFrom('users').selectAll().where('id', '=', id).where('deleted_at', 'is', null);
  if (kind === 'pg') q = q.forUpdate();
  return q.executeTakeFirst();
}

/**
 * Ids of the current administrators. On PostgreSQL their rows are locked in id order first,
 * so two admins demoting or deleting each other at once are serialised (and cannot deadlock)
 * and the second sees the first one's result. SQLite runs one write transaction at a time.
 */
export async function lockAdmins(db: Db, kind: DbKind): Promise<number[]> {
  let q = db.selectFrom('users').select('id').where('is_admin', '=', 1).where('deleted_at', 'is', null).orderBy('id');
  if (kind === 'pg') q = q.forUpdate();
  return (await q.execute()).map((r) => r.id);
}

/** Which of the name and address another account (deleted ones included) already uses. */
export async function takenByOther(db: Db, id: number, username: string | undefined, email: string | undefined): Promise<'email' | 'username' | null> {
  const name = username?.toLowerCase();
  const mail = email?.toLowerCase();
  if (!name && !mail) return null;
  const rows = await db
    .selectFrom('users')
    .select(['username_lower', 'email_lower'])
    .where('id', '!=', id)
    .where((eb) => eb.or([...(mail ? [eb('email_lower', '=', mail)] : []), ...(name ? [eb('username_lower', '=', name)] : [])]))
    .execute();
  if (mail && rows.some((r) => r.email_lower === mail)) return 'email';
  if (rows.length > 0) return 'username';
  return null;
}

export async function updateUser(db: Db, id: number, values: Updateable<UsersTable>): Promise<void> {
  await db.updateTable('users').set(values).where('id', '=', id).execute();
}

export async function deleteEmailTokensOf(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('email_tokens').where('user_id', '=', userId).execute();
}
