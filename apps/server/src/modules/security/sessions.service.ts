import { createHash } from 'node:crypto';
import { siteName } from '../site/site.settings.ts';
import type { SessionInfo } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { notFound } from '../../lib/errors.ts';
import { hashToken } from '../../lib/tokens.ts';
import { enqueueMail, MAIL_JOB } from '../mail/mail.outbox.ts';
import { forgetDevices } from '../users/login-throttle.ts';
import { endLogins } from '../users/users.logins.ts';
import type { User } from '../users/users.repo.ts';
import { deviceName } from './device-name.ts';
import { newDeviceLetter } from './security.mail.ts';
import * as repo from './security.repo.ts';

/**
 * The player's open logins (profile → Настройки → «Сеансы и устройства»): list, end one, end all
 * others. Sessions are stored by the hash of their token only; the list names each by a hash of
 * that hash, so nothing in it can be turned back into a usable cookie.
 */
export const SESSION_TEXTS = {
  notFound: 'Сеанс не найден: возможно, он уже завершён',
  ended: 'Сеанс завершён',
  endedAll: 'Все другие сеансы завершены, лаунчеры вышли из аккаунта',
} as const;

export function sessionId(tokenHash: string): string {
  return createHash('sha256').update(`session:${tokenHash}`).digest('hex').slice(0, 24);
}

export async function listSessions(db: Db, userId: number, currentToken: string | null, now = Date.now()): Promise<SessionInfo[]> {
  const rows = await repo.liveSessionsOf(db, userId, now);
  const current = currentToken ? hashToken(currentToken) : null;
  return rows
    .map((r) => ({
      id: sessionId(r.token_hash),
      device: deviceName(r.user_agent),
      ip: r.last_ip ?? r.ip,
      created_at: Number(r.created_at),
      last_seen_at: Number(r.last_seen_at ?? r.created_at),
      current: r.token_hash === current,
    }))
    .sort((a, b) => Number(b.current) - Number(a.current) || b.last_seen_at - a.last_seen_at);
}

/** Ends one session of the player by its id from the list; true when it was the caller's own. */
export async function endSession(ctx: AppContext, user: User, id: string, currentToken: string | null): Promise<{ current: boolean }> {
  const hit = (await repo.sessionHashesOf(ctx.db, user.id)).find((hash) => sessionId(hash) === id);
  if (!hit) throw notFound(SESSION_TEXTS.notFound, { code: 'session_not_found' });
  await repo.deleteSessionOf(ctx.db, user.id, hit);
  return { current: currentToken !== null && hashToken(currentToken) === hit };
}

/**
 * «Выйти на всех устройствах»: every session but the caller's own ends, every launcher's game
 * login too, and other browsers stop counting as known devices (they get the login delay and a
 * new-device letter again). The caller's own session stays, so they can go on securing the account.
 */
export async function endOtherSessions(
  ctx: AppContext,
  user: User,
  currentToken: string | null,
  deviceToken: string | undefined,
): Promise<number> {
  return ctx.db.transaction().execute(async (trx) => {
    const ended = await endLogins(trx, user.id, { keep: currentToken });
    await forgetDevices(trx, user.id, deviceToken);
    return ended;
  });
}

/** «23.11.2026, 14:05 (МСК)»: letters are read far from the server, so the zone is named. */
export function moscowTime(ms: number): string {
  const text = new Intl.DateTimeFormat('ru-RU', {
    timeZone: 'Europe/Moscow',
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  }).format(ms);
  return `${text} (МСК)`;
}

/**
 * A login from a browser the account has not used before: a letter with the time, address and
 * device and a link to the sessions list. Not for the account's very first device (nothing to
 * compare with), and once per device: the login runs it (users core: newDeviceLogin) only when
 * rememberDevice() added the device.
 */
export async function notifyNewDevice(
  ctx: AppContext,
  user: { id: number; email: string; username: string },
  deviceToken: string,
  meta: { ip: string; userAgent?: string },
  now = Date.now(),
): Promise<void> {
  if (!(await repo.knowsOtherDevice(ctx.db, user.id, hashToken(deviceToken)))) return;
  await enqueueMail(
    ctx.db,
    newDeviceLetter(await siteName(ctx), ctx.config.publicUrl, user.email, user.username, {
      when: moscowTime(now),
      ip: meta.ip,
      device: deviceName(meta.userAgent),
    }),
  );
  ctx.jobs.kick(MAIL_JOB);
}
