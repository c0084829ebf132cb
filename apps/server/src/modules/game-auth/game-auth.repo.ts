import { USERNAME_RE } from '@kubik/contract';
import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/index.ts';
import { hashToken } from '../../lib/tokens.ts';
import { hyphenated, unhyphenated } from '../../lib/yggdrasil/textures.ts';
import type { User } from '../users/users.repo.ts';
import type { GameTokenKind, GameTokensTable, SiteKeysTable } from './game-auth.tables.ts';
import { GameTokenKeys } from './game-tokens.ts';

/** The game profile's UUID without dashes (users.uuid: fixed when the account was created, see base/offline-uuid.ts). */
export function profileUuid(user: Pick<User, 'uuid'>): string {
  return unhyphenated(user.uuid);
}

/** A live (not deleted) account by its profile UUID, with or without dashes. */
export function findUserByUuid(db: Db, uuid: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('uuid', '=', hyphenated(uuid)).where('deleted_at', 'is', null).executeTakeFirst();
}

/** What a player name can be (accounts are registered with USERNAME_RE); anything else names no one. */
const isPlayerName = (name: string) => USERNAME_RE.test(name);

/** A live account whose name is exactly `name` (the game compares names as sent). */
export async function findUserByExactName(db: Db, name: string): Promise<User | undefined> {
  if (!isPlayerName(name)) return undefined;
  const row = await db
    .selectFrom('users')
    .selectAll()
    .where('username_lower', '=', name.toLowerCase())
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row && row.username === name ? row : undefined;
}

/** Live accounts by name, ignoring case (the game's name lookups do). */
export function findUsersByNames(db: Db, names: string[]): Promise<User[]> {
  names = names.filter(isPlayerName);
  if (names.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('users')
    .selectAll()
    .where(
      'username_lower',
      'in',
      names.map((n) => n.toLowerCase()),
    )
    .where('deleted_at', 'is', null)
    .execute();
}

export type GameToken = Selectable<GameTokensTable>;

export async function insertToken(db: Db, row: Insertable<GameTokensTable>, keep: number): Promise<void> {
  await db.insertInto('game_tokens').values(row).execute();
  // A player keeps a few launchers logged in; the oldest logins go first.
  const kept = db
    .selectFrom('game_tokens')
    .select('access_hash')
    .where('user_id', '=', row.user_id)
    .where('kind', '=', row.kind)
    .orderBy('created_at', 'desc')
    .orderBy('access_hash')
    .limit(keep);
  await db
    .deleteFrom('game_tokens')
    .where('user_id', '=', row.user_id)
    .where('kind', '=', row.kind)
    .where('access_hash', 'not in', kept)
    .execute();
  // Dead tokens of this player are swept here rather than by a job.
  await db.deleteFrom('game_tokens').where('user_id', '=', row.user_id).where('refresh_until', '<=', row.created_at).execute();
}

export async function findToken(db: Db, kind: GameTokenKind, accessToken: string): Promise<{ token: GameToken; user: User } | undefined> {
  return findTokenBy(db, kind, 'access_hash', accessToken);
}

export async function findTokenByRefresh(db: Db, refreshToken: string): Promise<{ token: GameToken; user: User } | undefined> {
  return findTokenBy(db, 'gravit', 'refresh_hash', refreshToken);
}

async function findTokenBy(db: Db, kind: GameTokenKind, column: 'access_hash' | 'refresh_hash', secret: string) {
  if (secret.length === 0 || secret.length > 512) return undefined;
  const use = column === 'refresh_hash' ? 'gravit-refresh' : kind;
  if (!(await (await GameTokenKeys.load(db)).mayBeLive(use, secret))) return undefined;
  const token = await db
    .selectFrom('game_tokens')
    .selectAll()
    .where(column, '=', hashToken(secret))
    .where('kind', '=', kind)
    .executeTakeFirst();
  if (!token) return undefined;
  const user = await db.selectFrom('users').selectAll().where('id', '=', token.user_id).where('deleted_at', 'is', null).executeTakeFirst();
  return user ? { token, user } : undefined;
}

/** Deletes one token; 0 when it was already gone (a concurrent refresh or invalidate won). */
export async function deleteToken(db: Db, accessHash: string): Promise<number> {
  const res = await db.deleteFrom('game_tokens').where('access_hash', '=', accessHash).executeTakeFirst();
  return Number(res.numDeletedRows);
}

export async function deleteTokenBySecret(db: Db, kind: GameTokenKind, accessToken: string): Promise<void> {
  if (accessToken.length === 0 || accessToken.length > 512) return;
  if (!(await (await GameTokenKeys.load(db)).mayBeLive(kind, accessToken))) return;
  await db.deleteFrom('game_tokens').where('access_hash', '=', hashToken(accessToken)).where('kind', '=', kind).execute();
}

export async function deleteTokensOf(db: Db, userId: number, kind?: GameTokenKind): Promise<void> {
  let q = db.deleteFrom('game_tokens').where('user_id', '=', userId);
  if (kind) q = q.where('kind', '=', kind);
  await q.execute();
  await db.deleteFrom('game_joins').where('user_id', '=', userId).execute();
}

export async function recordJoin(
  db: Db,
  join: { serverId: string; userId: number; kind: GameTokenKind; ip: string | null; expiresAt: number },
  now: number,
): Promise<void> {
  await db.deleteFrom('game_joins').where('expires_at', '<=', now).execute();
  await db
    .insertInto('game_joins')
    .values({ server_id: join.serverId, user_id: join.userId, kind: join.kind, ip: join.ip, expires_at: join.expiresAt })
    .onConflict((oc) => oc.columns(['server_id', 'user_id']).doUpdateSet({ kind: join.kind, ip: join.ip, expires_at: join.expiresAt }))
    .execute();
}

/**
 * Uses up the player's join of this server: a game server checks a connection once, and a
 * record that answered once cannot be replayed. With `ip`, the join must have come from it.
 */
export async function consumeJoin(
  db: Db,
  serverId: string,
  userId: number,
  kind: GameTokenKind,
  ip: string | undefined,
  now: number,
): Promise<boolean> {
  let q = db
    .deleteFrom('game_joins')
    .where('server_id', '=', serverId)
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .where('expires_at', '>', now);
  if (ip !== undefined) q = q.where('ip', '=', ip);
  const res = await q.executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}

/** A key the site created once (site_keys), as every instance reads it. */
export function findSiteKey(db: Db, name: string): Promise<Pick<Selectable<SiteKeysTable>, 'private_pem' | 'public_pem'> | undefined> {
  return db.selectFrom('site_keys').select(['private_pem', 'public_pem']).where('name', '=', name).executeTakeFirst();
}

/** Stores a new key unless one of that name is stored already: when two instances create one at once, the first insert wins. */
export async function storeSiteKeyUnlessStored(db: Db, row: Selectable<SiteKeysTable>): Promise<void> {
  await db
    .insertInto('site_keys')
    .values(row)
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}
