import { banChanged } from '../users/users.ports.ts';
import type { Db } from '../../db/index.ts';
import { sql, type Insertable, type Updateable } from 'kysely';
import type { BanServerCommandsTable, BansTable } from './bans.tables.ts';

export async function activeBanRow(db: Db, userId: number) {
  return db.selectFrom('bans').selectAll().where('user_id', '=', userId).where('lifted_at', 'is', null).executeTakeFirst();
}

export async function insertBan(db: Db, values: Insertable<BansTable>): Promise<number> {
  const row = await db.insertInto('bans').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** A new reason, note or end for the ban in force (its start stays). */
export async function changeBan(db: Db, banId: number, change: Pick<Updateable<BansTable>, 'reason' | 'note' | 'until'>): Promise<void> {
  await db.updateTable('bans').set(change).where('id', '=', banId).execute();
}

/** The banned player's name, and whether the account is gone, for a ban that ran out. */
export function bannedPlayer(db: Db, userId: number) {
  return db.selectFrom('users').select(['username', 'deleted_at']).where('id', '=', userId).executeTakeFirst();
}

/** Bans in force whose end has come, oldest end first. */
export function dueBans(db: Db, now: number, limit: number) {
  return db
    .selectFrom('bans')
    .selectAll()
    .where('lifted_at', 'is', null)
    .where('until', 'is not', null)
    .where('until', '<=', now)
    .orderBy('until')
    .limit(limit)
    .execute();
}

/** Marks the ban lifted; false when another pass or admin lifted it first. */
export async function markLifted(
  db: Db,
  banId: number,
  now: number,
  by: number | null,
  reason: 'admin' | 'expired' | 'deleted',
): Promise<boolean> {
  const res = await db
    .updateTable('bans')
    .set({ lifted_at: now, lifted_by: by, lift_reason: reason })
    .where('id', '=', banId)
    .where('lifted_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function setUserBan(
  db: Db,
  userId: number,
  ban: { since: number; until: number | null; reason: string } | null,
): Promise<void> {
  await db
    .updateTable('users')
    .set(
      ban ? { banned_at: ban.since, ban_until: ban.until, ban_reason: ban.reason } : { banned_at: null, ban_until: null, ban_reason: null },
    )
    .where('id', '=', userId)
    .execute();
  // Whoever also locks a game login of the player (authme) follows, in this transaction.
  await banChanged.run(db, userId);
}

/** Servers that run a ban (or unban) command: both that command and RCON set up. */
export async function commandServers(db: Db, which: 'ban_command' | 'unban_command') {
  return db
    .selectFrom('ban_server_commands')
    .innerJoin('servers', 'servers.id', 'ban_server_commands.server_id')
    .select(['servers.id', 'servers.rcon_password', 'servers.rcon_host', 'servers.ip_address', `ban_server_commands.${which} as command`])
    .where(`ban_server_commands.${which}`, 'is not', null)
    .orderBy('servers.id')
    .execute();
}

export function listBans(db: Db, filter: { active?: boolean; userId?: number }, limit = 500) {
  let q = db
    .selectFrom('bans')
    .innerJoin('users', 'users.id', 'bans.user_id')
    .leftJoin('users as banner', 'banner.id', 'bans.created_by')
    .leftJoin('users as lifter', 'lifter.id', 'bans.lifted_by')
    .select([
      'bans.id',
      'bans.user_id',
      'users.username',
      'bans.reason',
      'bans.note',
      'bans.until',
      'bans.created_at',
      'banner.username as created_by',
      'bans.lifted_at',
      'lifter.username as lifted_by',
      'bans.lift_reason',
    ])
    .orderBy('bans.id', 'desc')
    .limit(limit);
  if (filter.active) q = q.where('bans.lifted_at', 'is', null);
  if (filter.userId !== undefined) q = q.where('bans.user_id', '=', filter.userId);
  return q.execute();
}

/** Every server, in the admin's order, with its ban commands (null when it has none) and what RCON needs. */
export function serversWithBanCommands(db: Db) {
  return db
    .selectFrom('servers')
    .leftJoin('ban_server_commands', 'ban_server_commands.server_id', 'servers.id')
    .select([
      'servers.id',
      'servers.name',
      'servers.rcon_password',
      'servers.rcon_host',
      'servers.ip_address',
      'ban_server_commands.ban_command',
      'ban_server_commands.unban_command',
    ])
    .orderBy('servers.sort_order')
    .orderBy('servers.id')
    .execute();
}

export function findServer(db: Db, serverId: number) {
  return db.selectFrom('servers').select(['id', 'name']).where('id', '=', serverId).executeTakeFirst();
}

export function banCommandsOf(db: Db, serverId: number) {
  return db.selectFrom('ban_server_commands').select(['ban_command', 'unban_command']).where('server_id', '=', serverId).executeTakeFirst();
}

export async function saveBanCommands(
  db: Db,
  serverId: number,
  values: Omit<Insertable<BanServerCommandsTable>, 'server_id'>,
): Promise<void> {
  await db
    .insertInto('ban_server_commands')
    .values({ server_id: serverId, ...values })
    .onConflict((oc) => oc.column('server_id').doUpdateSet(values))
    .execute();
}

/** `like` pattern of a name's start: `_` is a letter of a name here, not a wildcard. */
const namePrefix = (q: string) => `${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The site's bans of players whose account still exists and who did not hide their profile, for
 * the public list (a name's start, any case). The hidden flag is read here, in the query, rather
 * than through the hiddenPlayers port after it: the pages and their count must agree.
 */
function publicBansQuery(db: Db, q: string | undefined) {
  let query = db
    .selectFrom('bans')
    .innerJoin('users', 'users.id', 'bans.user_id')
    .where('users.deleted_at', 'is', null)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('player_profiles')
            .select('player_profiles.user_id')
            .whereRef('player_profiles.user_id', '=', 'bans.user_id')
            .where('player_profiles.hidden', '=', 1),
        ),
      ),
    );
  if (q) query = query.where(sql<boolean>`users.username_lower like ${namePrefix(q)} escape '\\'`);
  return query;
}

/** How many there are, counted no further than `cap` (the list shows no more). */
export async function countPublicBans(db: Db, q: string | undefined, cap: number): Promise<number> {
  const row = await db
    .selectFrom(publicBansQuery(db, q).select('bans.id').limit(cap).as('b'))
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The newest first (then the higher id): what the public list shows, never the note. */
export function publicBans(db: Db, q: string | undefined, offset: number, limit: number) {
  return publicBansQuery(db, q)
    .leftJoin('users as banner', 'banner.id', 'bans.created_by')
    .select(['bans.id', 'users.username', 'bans.reason', 'bans.until', 'bans.created_at', 'bans.lifted_at', 'banner.username as by'])
    .orderBy('bans.created_at', 'desc')
    .orderBy('bans.id', 'desc')
    .offset(offset)
    .limit(limit)
    .execute();
}
