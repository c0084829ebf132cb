import type { Insertable, Selectable } from 'kysely';
import type { Db, DbKind } from '../../db/index.ts';
import type { Database, EmailTokensTable, SessionsTable, UsersTable } from '../../db/types.ts';
import { newProfileUuid } from '../../base/offline-uuid.ts';

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
export async function replacePasswordHash(db: Db, user: Pick<User, 'id' | 'password_hash'>, fresh: string | null): Promise<boolean> {
  if (fresh === null) return false;
  const res = await db
    .updateTable('users')
    .set({ password_hash: fresh })
    .where('id', '=', user.id)
    .where('password_hash', '=', user.password_hash)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
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

/** The game profile UUID for a new account (base/offline-uuid.ts): the name's offline UUID unless another account has it. */
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

/** A deleted account's row: the given name and address, no password, no rights, deleted now. */
export async function markUserErased(trx: Db, id: number, name: { username: string; email: string }, now: number): Promise<void> {
  await trx
    .updateTable('users')
    .set({
      username: name.username,
      username_lower: name.username.toLowerCase(),
      email: name.email,
      email_lower: name.email,
      // Not a hash any password can match.
      password_hash: '!',
      is_admin: 0,
      role_id: null,
      deleted_at: now,
    })
    .where('id', '=', id)
    .execute();
}

// --- Sessions ---------------------------------------------------------------------------------

/**
 * The live session of a token hash, its user (not deleted, not banned now) and the user's staff
 * role, in one query: checking a route's permission costs no query of its own.
 */
export function findLiveSession(db: Db, tokenHash: string, now: number) {
  return (
    db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .leftJoin('staff_roles', 'staff_roles.id', 'users.role_id')
      .selectAll('users')
      .select(['sessions.expires_at as session_expires_at', 'staff_roles.name as role_name', 'staff_roles.permissions as role_permissions'])
      .where('sessions.token_hash', '=', tokenHash)
      .where('sessions.expires_at', '>', now)
      .where('users.deleted_at', 'is', null)
      // A ban ends the sessions; this also refuses one a login racing the ban created.
      .where((eb) =>
        eb.or([eb('users.banned_at', 'is', null), eb.and([eb('users.ban_until', 'is not', null), eb('users.ban_until', '<=', now)])]),
      )
      .executeTakeFirst()
  );
}

export async function insertSession(db: Db, row: Insertable<SessionsTable>): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

export async function deleteExpiredSessions(db: Db, now: number): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
}

export async function deleteSessionByHash(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
}

/** Deletes the user's sessions, all but the one of `keepHash`; returns how many went. */
export async function deleteSessionsOf(db: Db, userId: number, keepHash: string | null): Promise<number> {
  let q = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (keepHash !== null) q = q.where('token_hash', '!=', keepHash);
  const res = await q.executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** When the last live session from before signing ends (0 when none is left). */
export async function lastUnsignedSessionEnd(db: Db, now: number): Promise<number> {
  const row = await db
    .selectFrom('sessions')
    .select((eb) => eb.fn.max('expires_at').as('until'))
    .where('signed', '=', 0)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.until == null ? 0 : Number(row.until);
}

/**
 * When and from where a session was last used. Throws when the session ended meanwhile (the
 * foreign key refuses the row).
 */
export async function recordSessionUse(db: Db, tokenHash: string, use: { last_seen_at: number; ip: string }): Promise<void> {
  await db
    .insertInto('session_activity')
    .values({ token_hash: tokenHash, ...use })
    .onConflict((oc) => oc.column('token_hash').doUpdateSet(use))
    .execute();
}

// --- E-mail links -----------------------------------------------------------------------------

type EmailTokenKind = EmailTokensTable['kind'];

export async function insertEmailToken(db: Db, row: Insertable<EmailTokensTable>): Promise<void> {
  await db.insertInto('email_tokens').values(row).execute();
}

/** A valid, unused link of this kind by its hash. */
export function findLiveEmailToken(db: Db, kind: EmailTokenKind, tokenHash: string, now: number) {
  return db
    .selectFrom('email_tokens')
    .select(['id', 'user_id'])
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Uses the link up, once: false when a parallel opening used it first. */
export async function markEmailTokenUsed(db: Db, id: number, now: number): Promise<boolean> {
  const res = await db
    .updateTable('email_tokens')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function lastTokenAt(db: Db, userId: number, kind: EmailTokenKind): Promise<number | null> {
  const row = await db
    .selectFrom('email_tokens')
    .select((eb) => eb.fn.max('created_at').as('at'))
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .executeTakeFirst();
  return row?.at == null ? null : Number(row.at);
}

/** Older unused links of this kind stop working when a new one is sent. */
export async function expireEmailTokens(db: Db, userId: number, kind: EmailTokenKind, now = Date.now()): Promise<void> {
  await db
    .updateTable('email_tokens')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .execute();
}

export async function deleteEmailTokensOf(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('email_tokens').where('user_id', '=', userId).execute();
}

// --- Login throttling and known devices -------------------------------------------------------
// Declared by the security feature, whose migration made them; the core may not import a feature,
// so it names them through the table registry.

type LoginThrottleTable = Database['login_throttle'];
type KnownDevicesTable = Database['known_devices'];

/** The account's throttle row, made (with nothing counted) when it has none yet. */
export async function throttleOf(db: Db, userId: number): Promise<Selectable<LoginThrottleTable>> {
  await db
    .insertInto('login_throttle')
    .values({ user_id: userId, failures: 0, last_failure_at: 0, next_allowed_at: 0 })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
  return db.selectFrom('login_throttle').selectAll().where('user_id', '=', userId).executeTakeFirstOrThrow();
}

/**
 * Writes the next state of the throttle row only if it is still the one read (`seen`): of two
 * parallel tries that read the same row, one gets false.
 */
export async function advanceThrottle(
  db: Db,
  seen: Pick<Selectable<LoginThrottleTable>, 'user_id' | 'failures' | 'next_allowed_at'>,
  next: Omit<Selectable<LoginThrottleTable>, 'user_id'>,
): Promise<boolean> {
  const res = await db
    .updateTable('login_throttle')
    .set(next)
    .where('user_id', '=', seen.user_id)
    .where('failures', '=', seen.failures)
    .where('next_allowed_at', '=', seen.next_allowed_at)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** The password was right: the account's count starts over. */
export async function clearLoginFailures(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('login_throttle').where('user_id', '=', userId).execute();
}

export async function isDeviceKnown(db: Db, userId: number, deviceHash: string): Promise<boolean> {
  const row = await db
    .selectFrom('known_devices')
    .select('user_id')
    .where('user_id', '=', userId)
    .where('device_hash', '=', deviceHash)
    .executeTakeFirst();
  return row !== undefined;
}

/** Forgets the account's devices, all but the one of `keepHash`. */
export async function deleteDevicesOf(db: Db, userId: number, keepHash: string | null): Promise<void> {
  let q = db.deleteFrom('known_devices').where('user_id', '=', userId);
  if (keepHash !== null) q = q.where('device_hash', '!=', keepHash);
  await q.execute();
}

/** Notes a known device's new visit; false when the account does not know the device. */
export async function touchDevice(
  db: Db,
  userId: number,
  deviceHash: string,
  visit: { last_seen_at: number; ip: string | null },
): Promise<boolean> {
  const res = await db
    .updateTable('known_devices')
    .set(visit)
    .where('user_id', '=', userId)
    .where('device_hash', '=', deviceHash)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Adds a device to the account; false when a parallel login added it first. */
export async function insertDevice(db: Db, row: Insertable<KnownDevicesTable>): Promise<boolean> {
  const added = await db
    .insertInto('known_devices')
    .values(row)
    .onConflict((oc) => oc.columns(['user_id', 'device_hash']).doNothing())
    .executeTakeFirst();
  return Number(added.numInsertedOrUpdatedRows ?? 0) > 0;
}

export function insertUser(db: Db, values: Insertable<UsersTable>): Promise<User> {
  return db.insertInto('users').values(values).returningAll().executeTakeFirstOrThrow();
}

/** Whether any account, an erased one included, holds the address. */
export async function emailHeld(db: Db, email: string): Promise<boolean> {
  return !!(await db.selectFrom('users').select('id').where('email_lower', '=', email.toLowerCase()).executeTakeFirst());
}

export function passwordStateOf(db: Db, id: number) {
  return db.selectFrom('users').select(['id', 'username_lower', 'password_hash', 'deleted_at']).where('id', '=', id).executeTakeFirst();
}

export function nameAndEmailOf(db: Db, id: number): Promise<Pick<User, 'username' | 'email'> | undefined> {
  return db.selectFrom('users').select(['username', 'email']).where('id', '=', id).executeTakeFirst();
}

export async function setPasswordHash(db: Db, id: number, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', id).execute();
}

/** Confirms the account's address once: a confirmed one keeps its first date. */
export async function confirmEmail(db: Db, id: number, now: number): Promise<void> {
  await db.updateTable('users').set({ email_verified_at: now }).where('id', '=', id).where('email_verified_at', 'is', null).execute();
}
