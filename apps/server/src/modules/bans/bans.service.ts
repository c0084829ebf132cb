import { assertMayManage } from '../users/staff.ts';
import { type BanBody, type BanCommandsBody, type BanRecord, type BanResponse, type BanServerCommands } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import type { ScheduledJobSpec } from '../../lib/jobs/index.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import { commandReason } from '../../lib/rcon/command.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { enqueueDelivery, kickDeliveries, rconConfigured } from '../deliveries/deliveries.queue.ts';
import { banEndText, banInfo, type BanState } from '../users/ban-status.ts';
import { notify } from '../notices/notices.service.ts';
import { endLogins } from '../users/users.logins.ts';
import { findActiveUser, type User } from '../users/users.repo.ts';
import * as repo from './bans.repo.ts';

export const BAN_TEXTS = {
  banned: 'Игрок заблокирован',
  banChanged: 'Блокировка изменена',
  unbanned: 'Блокировка снята',
  notFound: 'Пользователь не найден',
  self: 'Нельзя заблокировать самого себя',
  admin: 'Нельзя заблокировать администратора: сначала снимите с него права администратора',
  notBanned: 'Игрок не заблокирован',
  pastEnd: 'Срок: дата окончания должна быть в будущем',
  serverNotFound: 'Сервер не найден',
  commandsSaved: 'Команды сохранены',
  expired: 'Срок блокировки истёк',
} as const;

export const BAN_EXPIRY_JOB = 'bans.expiry';
const EXPIRY_BATCH = 200;

const termText = (until: number | null) => (until === null ? 'навсегда' : `до ${banEndText(until)}`);

/** {until}: `2026-12-01T12:00:00Z` or `permanent`; {duration}: what is left as `30d`, `12h`, `90m` (tempban plugins) or `permanent`. */
function commandParams(reason: string, until: number | null, now: number) {
  if (until === null) return { reason: commandReason(reason), until: 'permanent', duration: 'permanent' };
  const minutes = Math.max(1, Math.ceil((until - now) / 60_000));
  const duration = minutes % 1440 === 0 ? `${minutes / 1440}d` : minutes % 60 === 0 ? `${minutes / 60}h` : `${minutes}m`;
  return { reason: commandReason(reason), until: new Date(until).toISOString().slice(0, 19) + 'Z', duration };
}

/**
 * Queues the server's ban or unban command on every server that has one and can receive it,
 * inside the caller's transaction. Returns how many were queued.
 */
async function queueCommands(
  trx: Db,
  which: 'ban' | 'unban',
  userId: number,
  banId: number,
  reason: string,
  until: number | null,
  now: number,
): Promise<number> {
  const servers = (await repo.commandServers(trx, which === 'ban' ? 'ban_command' : 'unban_command')).filter(rconConfigured);
  for (const s of servers) {
    await enqueueDelivery(trx, {
      source: which,
      sourceId: banId,
      userId,
      label: which === 'ban' ? 'Бан' : 'Разбан',
      server: s.id,
      commands: [s.command!],
      params: commandParams(reason, until, now),
    });
  }
  return servers.length;
}

/**
 * Bans a player, or changes the reason and end of the ban in force. In one transaction: the ban,
 * the mark on the account, the end of every site session and game login, the audit entry and the
 * in-game ban commands. Administrators cannot be banned (demote first) — nor can anyone ban
 * themselves: a ban is one administrator's decision about a player, and losing the last admin
 * to a typo must be impossible.
 */
/** The player's notices (the bell) about their ban. */
export const NOTICE_TEXTS = {
  banned: 'Аккаунт заблокирован',
  lifted: 'Блокировка снята',
  liftedByAdmin: 'Администратор снял блокировку. С возвращением!',
  liftedExpired: 'Срок блокировки закончился. С возвращением!',
} as const;

export async function banUser(ctx: AppContext, actor: User, id: number, body: BanBody): Promise<BanResponse> {
  const now = Date.now();
  if (body.until !== null && body.until <= now) throw badRequest(BAN_TEXTS.pastEnd, { code: 'invalid', field: 'until' });
  if (id === actor.id) throw conflict(BAN_TEXTS.self, { code: 'cannot_ban_self' });
  let queued = 0;
  const result = await ctx.db.transaction().execute(async (trx) => {
    const target = await findActiveUser(trx, ctx.dbKind, id);
    if (!target) throw notFound(BAN_TEXTS.notFound);
    assertMayManage(actor, target);
    if (target.is_admin === 1) throw conflict(BAN_TEXTS.admin, { code: 'cannot_ban_admin' });
    let existing = await repo.activeBanRow(trx, id);
    // A ban whose end passed and that the job has not lifted yet is over: this is a new ban.
    if (existing && existing.until !== null && Number(existing.until) <= now) {
      await repo.markLifted(trx, existing.id, now, null, 'expired');
      existing = undefined;
    }
    // The player (the login's refusal, the notice, the game's ban screen) and the public profile see
    // the public reason alone; the note stays with staff.
    const reason = body.reason ?? '';
    const state: BanState = { reason, until: body.until, since: existing ? Number(existing.created_at) : now };
    let banId: number;
    if (existing) {
      banId = existing.id;
      await repo.changeBan(trx, banId, { reason, note: body.note, until: body.until });
      await recordAudit(trx, {
        actorId: actor.id,
        action: 'user.ban.update',
        entity: 'user',
        entityId: id,
        before: {
          username: target.username,
          reason: existing.reason,
          note: existing.note,
          term: termText(existing.until === null ? null : Number(existing.until)),
        },
        after: { username: target.username, reason, note: body.note, term: termText(body.until) },
      });
    } else {
      banId = await repo.insertBan(trx, { user_id: id, reason, note: body.note, until: body.until, created_at: now, created_by: actor.id });
      await recordAudit(trx, {
        actorId: actor.id,
        action: 'user.ban',
        entity: 'user',
        entityId: id,
        after: { username: target.username, reason, note: body.note, term: termText(body.until) },
      });
      queued = await queueCommands(trx, 'ban', id, banId, reason, body.until, now);
    }
    await repo.setUserBan(trx, id, state);
    // Seen once the ban ends (a banned player cannot log in): why, and for how long.
    await notify(trx, id, { kind: 'ban', title: NOTICE_TEXTS.banned, body: banInfo(state).text }, now);
    // Writes to users and sessions drop the user cache here and, through the trigger's NOTIFY at
    // commit, on every other instance: a cookie of this player is refused from the next request.
    await endLogins(trx, id);
    return { message: existing ? BAN_TEXTS.banChanged : BAN_TEXTS.banned, ban: { ...banInfo(state), note: body.note } };
  });
  if (queued > 0) kickDeliveries(ctx);
  return result;
}

export async function unbanUser(ctx: AppContext, actor: User, id: number): Promise<string> {
  const now = Date.now();
  let queued = 0;
  await ctx.db.transaction().execute(async (trx) => {
    const target = await findActiveUser(trx, ctx.dbKind, id);
    if (!target) throw notFound(BAN_TEXTS.notFound);
    assertMayManage(actor, target);
    const ban = await repo.activeBanRow(trx, id);
    if (!ban || !(await repo.markLifted(trx, ban.id, now, actor.id, 'admin'))) throw conflict(BAN_TEXTS.notBanned, { code: 'not_banned' });
    await repo.setUserBan(trx, id, null);
    await recordAudit(trx, {
      actorId: actor.id,
      action: 'user.unban',
      entity: 'user',
      entityId: id,
      before: {
        username: target.username,
        reason: ban.reason,
        note: ban.note,
        term: termText(ban.until === null ? null : Number(ban.until)),
      },
      after: { username: target.username },
    });
    queued = await queueCommands(trx, 'unban', id, ban.id, ban.reason, null, now);
    await notify(trx, id, { kind: 'unban', title: NOTICE_TEXTS.lifted, body: NOTICE_TEXTS.liftedByAdmin }, now);
  });
  if (queued > 0) kickDeliveries(ctx);
  return BAN_TEXTS.unbanned;
}

/**
 * One pass of the expiry job: every ban whose end has come is lifted, audited and its unban
 * commands queued — each in a transaction of its own whose conditional update only one pass on
 * one instance can win, so restarts and several instances never send them twice.
 */
export async function liftExpiredBans(db: Db, now = Date.now()): Promise<number> {
  let lifted = 0;
  for (const ban of await repo.dueBans(db, now, EXPIRY_BATCH)) {
    await db.transaction().execute(async (trx) => {
      if (!(await repo.markLifted(trx, ban.id, now, null, 'expired'))) return;
      const user = await repo.bannedPlayer(trx, ban.user_id);
      await repo.setUserBan(trx, ban.user_id, null);
      await recordAudit(trx, {
        actorId: null,
        action: 'user.unban',
        entity: 'user',
        entityId: ban.user_id,
        before: { username: user?.username, reason: ban.reason, note: ban.note, term: termText(Number(ban.until)) },
        after: { username: user?.username, lift_reason: BAN_TEXTS.expired },
      });
      if (user && user.deleted_at === null) {
        await queueCommands(trx, 'unban', ban.user_id, ban.id, ban.reason, null, now);
        await notify(trx, ban.user_id, { kind: 'unban', title: NOTICE_TEXTS.lifted, body: NOTICE_TEXTS.liftedExpired }, now);
      }
      lifted++;
    });
  }
  return lifted;
}

export function banExpiryJob(ctx: AppContext, everyMs = 60_000): ScheduledJobSpec {
  return {
    name: BAN_EXPIRY_JOB,
    everyMs,
    run: async () => {
      if ((await liftExpiredBans(ctx.db)) > 0) kickDeliveries(ctx);
    },
  };
}

export async function listBans(ctx: AppContext, filter: { active?: boolean; userId?: number }): Promise<BanRecord[]> {
  const rows = await repo.listBans(ctx.db, filter);
  return rows.map((r) => ({
    id: r.id,
    user_id: r.user_id,
    username: r.username,
    reason: r.reason,
    note: r.note,
    until: r.until === null ? null : Number(r.until),
    created_at: Number(r.created_at),
    created_by: r.created_by ?? null,
    lifted_at: r.lifted_at === null ? null : Number(r.lifted_at),
    lifted_by: r.lifted_by ?? null,
    lift_reason: r.lift_reason,
    active: r.lifted_at === null,
  }));
}

export async function banCommands(ctx: AppContext): Promise<BanServerCommands[]> {
  const rows = await repo.serversWithBanCommands(ctx.db);
  return rows.map((r) => ({
    server_id: r.id,
    server_name: r.name,
    rcon: rconConfigured(r),
    ban_command: r.ban_command ?? null,
    unban_command: r.unban_command ?? null,
  }));
}

export async function setBanCommands(ctx: AppContext, actor: User, serverId: number, body: BanCommandsBody): Promise<BanServerCommands> {
  await ctx.db.transaction().execute(async (trx) => {
    const server = await repo.findServer(trx, serverId);
    if (!server) throw notFound(BAN_TEXTS.serverNotFound);
    const before = await repo.banCommandsOf(trx, serverId);
    await repo.saveBanCommands(trx, serverId, { ban_command: body.ban_command, unban_command: body.unban_command, updated_at: Date.now() });
    const was = { name: server.name, ban_command: before?.ban_command ?? null, unban_command: before?.unban_command ?? null };
    const now = { name: server.name, ban_command: body.ban_command, unban_command: body.unban_command };
    if (JSON.stringify(was) !== JSON.stringify(now))
      await recordAudit(trx, {
        actorId: actor.id,
        action: 'server.ban_commands',
        entity: 'server',
        entityId: serverId,
        before: was,
        after: now,
      });
  });
  const all = await banCommands(ctx);
  return all.find((s) => s.server_id === serverId)!;
}
