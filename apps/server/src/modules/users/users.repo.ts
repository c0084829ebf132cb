import type { Selectable } from 'kysely';
import type { Db, DbKind } from '../../db/index.ts';
import type { UsersTable } from '../../db/types.ts';
import { newProfileUuid } from '../../lib/offline-uuid.ts';

/**
 * A user as stored: the one type for an account everywhere on the server (the caller of a
 * request, an actor, a player). It carries the password hash: routes answer with their own
 * schemas, never with this. Read-only: a signed-in user is shared by every request of the
 * session while cached (lib/user-cache.ts).
 */
export type User = Readonly<Selectable<UsersTable>>;

export function findUserByLogin(db: Db, login: string): Promise<User | undefined> {
  const key = login.toLowerCase();
  return db
    .selectFrom('users')
    .selectAll()
    .where(login.includes('@') ? 'email_lower' : 'username_lower', '=', key)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/**
 * A password hash made anew after a successful check (front-door/passwords.ts renewedHash), stored
 * only if the hash that was checked is still the stored one (a password changed meanwhile stays).
 */
export async function replacePasswordHash(db: Db, user: Pick<User, 'id' | 'password_hash'>, fresh: string | null): Promise<void> {
  if (fresh === null) return;
  await db
    .updateTable('users')
    .set({ password_hash: fresh })
    .where('id', '=', user.id)
    .where('password_hash', '=', user.password_hash)
    .execute();
}

export function findUserByEmail(db: Db, email: string): Promise<User | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('email_lower', '=', email.toLowerCase())
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function nameOrEmailTaken(db: Db, username: string, email: string): Promise<'email' | 'username' | null> {
  const rows = await db
    .selectFrom('users')
    .select(['username_lower', 'email_lower'])
    .where((eb) => eb.or([eb('email_lower', '=', email.toLowerCase()), eb('username_lower', '=', username.toLowerCase())]))
    .execute();
  if (rows.some((r) => r.email_lower === email.toLowerCase())) return 'email';
  if (rows.length > 0) return 'username';
  return null;
}

/** The game profile UUID for a new account (lib/offline-uuid.ts): the name's offline UUID unless another account has it. */
export function profileUuidFor(db: Db, username: string): Promise<string> {
  return newProfileUuid(
    username,
    async (uuid) => (await db.selectFrom('users').select('id').where('uuid', '=', uuid).executeTakeFirst()) !== undefined,
  );
}

/** The user, not deleted; on PostgreSQL the row stays locked until the transaction ends. */
export function findActiveUser(db: Db, kind: DbKind, id: number): Promise<User | undefined> {
  let q = db.selectFrom('users').selectAll().where('id', '=', id).where('deleted_at', 'is', null);
  if (kind === 'pg') q = q.forUpdate();
  return q.executeTakeFirst();
}
