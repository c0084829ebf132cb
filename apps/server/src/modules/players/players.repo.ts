import { sql } from 'kysely';
import type { Db } from '../../db/index.ts';

/** A live account by name (any case) with what its public profile shows. */
export function publicProfileRow(db: Db, username: string) {
  return db
    .selectFrom('users')
    .leftJoin('player_profiles', 'player_profiles.user_id', 'users.id')
    .select([
      'users.id',
      'users.username',
      'users.is_admin',
      'users.created_at',
      'users.banned_at',
      'users.ban_until',
      'users.ban_reason',
      'player_profiles.hidden',
      'player_profiles.last_seen_at',
    ])
    .where('users.username_lower', '=', username.toLowerCase())
    .where('users.deleted_at', 'is', null)
    .executeTakeFirst();
}

/** A live account by name (any case) with what the short profile shows. */
export function shortProfileRow(db: Db, username: string) {
  return db
    .selectFrom('users')
    .leftJoin('player_profiles', 'player_profiles.user_id', 'users.id')
    .select([
      'users.username',
      'users.uuid',
      'users.is_admin',
      'users.created_at',
      'users.banned_at',
      'users.ban_until',
      'users.ban_reason',
      'player_profiles.hidden',
    ])
    .where('users.username_lower', '=', username.toLowerCase())
    .where('users.deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Those of `ids` who hid their profile. */
export async function hiddenIds(db: Db, ids: number[]): Promise<number[]> {
  const rows = await db.selectFrom('player_profiles').select('user_id').where('user_id', 'in', ids).where('hidden', '=', 1).execute();
  return rows.map((r) => r.user_id);
}

/** Those of the lower-cased names whose live account hid its profile, lower-cased. */
export async function hiddenNames(db: Db, lower: string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('users')
    .innerJoin('player_profiles', 'player_profiles.user_id', 'users.id')
    .select('users.username_lower')
    .where('users.username_lower', 'in', lower)
    .where('users.deleted_at', 'is', null)
    .where('player_profiles.hidden', '=', 1)
    .execute();
  return rows.map((r) => r.username_lower);
}

export function profileHidden(db: Db, userId: number) {
  return db.selectFrom('player_profiles').select('hidden').where('user_id', '=', userId).executeTakeFirst();
}

export async function saveHidden(db: Db, userId: number, hidden: boolean): Promise<void> {
  await db
    .insertInto('player_profiles')
    .values({ user_id: userId, hidden: hidden ? 1 : 0, last_seen_at: null })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ hidden: hidden ? 1 : 0 }))
    .execute();
}

/** Ids of the live accounts with these lower-cased names. */
/**
 * The «last seen» of every live account among these names (lower case) moves to `at`, never back
 * (a late report of an older sighting changes nothing): one statement however many players.
 */
export async function markSeenByNames(db: Db, lower: string[], at: number): Promise<void> {
  await db
    .insertInto('player_profiles')
    .columns(['user_id', 'hidden', 'last_seen_at'])
    .expression((eb) =>
      eb
        .selectFrom('users')
        .select(['id', sql<number>`0`.as('hidden'), sql<number>`cast(${at} as bigint)`.as('last_seen_at')])
        .where('username_lower', 'in', lower)
        .where('deleted_at', 'is', null),
    )
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({
        last_seen_at: sql<number>`case when player_profiles.last_seen_at is null or player_profiles.last_seen_at < excluded.last_seen_at then excluded.last_seen_at else player_profiles.last_seen_at end`,
      }),
    )
    .execute();
}

/** Each name as seen in the game at `at` (never moved back): one statement however many. */
export async function markNamesSeen(db: Db, names: { name_lower: string; name: string }[], at: number): Promise<void> {
  if (names.length === 0) return;
  await db
    .insertInto('game_names')
    .values(names.map((n) => ({ ...n, last_seen_at: at })))
    .onConflict((oc) =>
      oc.column('name_lower').doUpdateSet({
        name: sql<string>`case when game_names.last_seen_at < excluded.last_seen_at then excluded.name else game_names.name end`,
        last_seen_at: sql<number>`case when game_names.last_seen_at < excluded.last_seen_at then excluded.last_seen_at else game_names.last_seen_at end`,
      }),
    )
    .execute();
}

/** The newest ledger entry's id (0 when none): the home page's widgets change only when it moves. */
export async function lastLedgerId(db: Db): Promise<number> {
  const last = await db
    .selectFrom('ledger')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  return Number(last?.id ?? 0);
}

/** The latest purchases, newest first, with the buyer's name and whether it may be shown. */
export function recentPurchases(db: Db, limit: number) {
  return db
    .selectFrom('ledger')
    .innerJoin('users', 'users.id', 'ledger.user_id')
    .leftJoin('player_profiles', 'player_profiles.user_id', 'users.id')
    .select(['users.username', 'users.deleted_at', 'player_profiles.hidden', 'ledger.note', 'ledger.created_at'])
    .where('ledger.reason', '=', 'purchase')
    .orderBy('ledger.id', 'desc')
    .limit(limit)
    .execute();
}

/** The players whose top-ups since `since` add up to the most, biggest first. */
export function topDonors(db: Db, since: number, limit: number) {
  return db
    .selectFrom('ledger')
    .innerJoin('users', 'users.id', 'ledger.user_id')
    .leftJoin('player_profiles', 'player_profiles.user_id', 'users.id')
    .select(['users.username', 'users.deleted_at', 'player_profiles.hidden', (eb) => eb.fn.sum<number>('ledger.amount').as('total')])
    .where('ledger.reason', '=', 'topup')
    .where('ledger.created_at', '>=', since)
    .groupBy(['users.id', 'users.username', 'users.deleted_at', 'player_profiles.hidden'])
    .having((eb) => eb.fn.sum('ledger.amount'), '>', 0)
    .orderBy('total', 'desc')
    .orderBy('users.id')
    .limit(limit)
    .execute();
}

/** Servers whose AzLink plugin reported since `since`, with the names it reported online. */
export function pluginPlayerLists(db: Db, since: number) {
  return db
    .selectFrom('servers')
    .select(['name', 'link_players'])
    .where('link_token_hash', 'is not', null)
    .where('link_data_at', '>', since)
    .orderBy('sort_order')
    .orderBy('id')
    .execute();
}
