import { banChanged } from '../users/users.ports.ts';
import type { Db } from '../../db/index.ts';

export async function activeBanRow(db: Db, userId: number) {
  return db.selectFrom('bans').selectAll().where('user_id', '=', userId).where('lifted_at', 'is', null).executeTakeFirst();
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
