import type { LoginBody, MeResponse, RegisterBody } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import { badRequest, conflict, forbidden, HttpError, isUniqueViolation, unauthorized } from '../../lib/errors.ts';
import { toKopecks, toRoubles } from '../../lib/money.ts';
import { burnPasswordCheck, hashPassword, verifyPassword } from '../../lib/passwords.ts';
import { newToken } from '../../lib/tokens.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { revokeGameTokens } from '../game-auth/game-auth.service.ts';
import { postLedger } from '../ledger/ledger.service.ts';
import { enqueueMail, MAIL_JOB } from '../mail/mail.outbox.ts';
import * as repo from './accounts.repo.ts';
import { confirmationLetter, resetLetter } from './accounts.mail.ts';

export const VERIFY_TTL_MS = 24 * 3_600_000;
export const RESET_TTL_MS = 3_600_000;
const RESEND_GAP_MS = 60_000;

export const TEXTS = {
  badCredentials: 'Неверное имя пользователя или пароль',
  notConfirmed: 'Почта не подтверждена',
  emailTaken: 'Email already exists',
  usernameTaken: 'Username already exists',
  registered: 'Письмо с подтверждением отправлено на вашу почту. Проверьте почту!',
  created: 'Пользователь создан',
  forgotSent: 'Если такая почта зарегистрирована, мы отправили на неё письмо со ссылкой для сброса пароля',
  resendSent: 'Если такая почта зарегистрирована и ещё не подтверждена, мы отправили на неё новое письмо',
  resetDone: 'Пароль успешно сброшен',
  resetBad: 'Ссылка для сброса пароля недействительна или устарела',
  passwordChanged: 'Пароль изменён. Другие сеансы завершены.',
  wrongOldPassword: 'Текущий пароль указан неверно',
  samePassword: 'Новый пароль совпадает с текущим',
} as const;

/** 409 for a name or address another account has: `username_exists` / `email_exists`, with the field. */
export function takenError(which: 'email' | 'username'): HttpError {
  return which === 'email' ? conflict(TEXTS.emailTaken, { code: 'email_exists', field: 'email' }) : conflict(TEXTS.usernameTaken, { code: 'username_exists', field: 'username' });
}

export function toMe(user: repo.UserRow, token?: string): MeResponse {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    is_admin: user.is_admin === 1,
    balance: toRoubles(Number(user.balance)),
    ...(token ? { token } : {}),
  };
}

export async function register(ctx: AppContext, input: RegisterBody, actor: repo.UserRow | null, ip: string): Promise<{ message: string; id: number }> {
  const byAdmin = actor?.is_admin === 1;
  if (!byAdmin) await ctx.limiter.hit(`register:ip:${ip}`, ctx.config.rateLimits.registerPerIp);

  const taken = await repo.nameOrEmailTaken(ctx.db, input.username, input.email);
  if (taken) throw takenError(taken);

  const passwordHash = await hashPassword(input.password);
  const verifyToken = newToken();
  const now = Date.now();
  let id: number;
  try {
    id = await ctx.db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('users')
        .values({
          username: input.username,
          username_lower: input.username.toLowerCase(),
          email: input.email,
          email_lower: input.email.toLowerCase(),
          password_hash: passwordHash,
          // An administrator vouches for the accounts they create: those need no letter.
          is_admin: byAdmin && input.is_admin ? 1 : 0,
          balance: 0,
          email_verified_at: byAdmin ? now : null,
          created_at: now,
          deleted_at: null,
          uuid: await repo.profileUuidFor(trx, input.username),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (byAdmin) {
        const kopecks = toKopecks(input.balance ?? 0);
        if (kopecks > 0) await postLedger(trx, { userId: row.id, amount: kopecks, reason: 'adjustment', authorId: actor.id, note: 'Начальный баланс' });
        await recordAudit(trx, {
          actorId: actor.id,
          action: 'user.create',
          entity: 'user',
          entityId: row.id,
          after: { username: input.username, email: input.email, is_admin: !!input.is_admin, balance: toRoubles(kopecks) },
        });
      } else {
        await repo.createEmailToken(trx, row.id, 'verify', verifyToken, VERIFY_TTL_MS);
        const link = `${ctx.config.publicUrl}/api/user/confirm/${verifyToken}`;
        await enqueueMail(trx, confirmationLetter(ctx.config.siteName, input.email, input.username, link));
      }
      return row.id;
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // Lost a race with a simultaneous registration of the same name or address.
    const again = await repo.nameOrEmailTaken(ctx.db, input.username, input.email);
    throw takenError(again === 'username' ? 'username' : 'email');
  }
  ctx.jobs.kick(MAIL_JOB);
  return { id, message: byAdmin ? TEXTS.created : TEXTS.registered };
}

export async function confirmEmail(ctx: AppContext, token: string): Promise<boolean> {
  return ctx.db.transaction().execute(async (trx) => {
    const userId = await repo.consumeEmailToken(trx, 'verify', token);
    if (userId === null) return false;
    await trx.updateTable('users').set({ email_verified_at: Date.now() }).where('id', '=', userId).where('email_verified_at', 'is', null).execute();
    return true;
  });
}

export async function login(ctx: AppContext, input: LoginBody, meta: { ip: string; userAgent?: string }): Promise<{ token: string; user: repo.UserRow }> {
  const accountKey = `login:acct:${input.username.toLowerCase()}`;
  await ctx.limiter.hit(`login:ip:${meta.ip}`, ctx.config.rateLimits.loginPerIp);
  await ctx.limiter.hit(accountKey, ctx.config.rateLimits.loginPerAccount);

  const user = await repo.findUserByLogin(ctx.db, input.username);
  if (!user) {
    await burnPasswordCheck(input.password);
    throw unauthorized(TEXTS.badCredentials, { code: 'bad_credentials' });
  }
  if (!(await verifyPassword(user.password_hash, input.password))) throw unauthorized(TEXTS.badCredentials, { code: 'bad_credentials' });
  await ctx.limiter.reset(accountKey);
  if (user.email_verified_at === null) throw forbidden(TEXTS.notConfirmed, { code: 'email_not_confirmed' });

  const token = newToken();
  await repo.createSession(ctx.db, user.id, token, ctx.config.sessionTtlMs, meta);
  return { token, user };
}

export async function forgotPassword(ctx: AppContext, email: string, ip: string): Promise<string> {
  await ctx.limiter.hit(`forgot:ip:${ip}`, ctx.config.rateLimits.forgotPerIp);
  await ctx.limiter.hit(`forgot:acct:${email.toLowerCase()}`, ctx.config.rateLimits.forgotPerAccount);
  const user = await repo.findUserByEmail(ctx.db, email);
  if (user) {
    const token = newToken();
    await ctx.db.transaction().execute(async (trx) => {
      await repo.expireEmailTokens(trx, user.id, 'reset');
      await repo.createEmailToken(trx, user.id, 'reset', token, RESET_TTL_MS);
      const link = `${ctx.config.publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
      await enqueueMail(trx, resetLetter(ctx.config.siteName, user.email, user.username, link));
    });
    ctx.jobs.kick(MAIL_JOB);
  }
  // The same answer either way: the form must not tell who is registered.
  return TEXTS.forgotSent;
}

export async function resendConfirmation(ctx: AppContext, email: string, ip: string): Promise<string> {
  await ctx.limiter.hit(`forgot:ip:${ip}`, ctx.config.rateLimits.forgotPerIp);
  await ctx.limiter.hit(`resend:acct:${email.toLowerCase()}`, ctx.config.rateLimits.forgotPerAccount);
  const user = await repo.findUserByEmail(ctx.db, email);
  if (user && user.email_verified_at === null) {
    const last = await repo.lastTokenAt(ctx.db, user.id, 'verify');
    if (last === null || Date.now() - last > RESEND_GAP_MS) {
      const token = newToken();
      await ctx.db.transaction().execute(async (trx) => {
        await repo.expireEmailTokens(trx, user.id, 'verify');
        await repo.createEmailToken(trx, user.id, 'verify', token, VERIFY_TTL_MS);
        const link = `${ctx.config.publicUrl}/api/user/confirm/${token}`;
        await enqueueMail(trx, confirmationLetter(ctx.config.siteName, user.email, user.username, link));
      });
      ctx.jobs.kick(MAIL_JOB);
    }
  }
  return TEXTS.resendSent;
}

export async function resetPassword(ctx: AppContext, token: string, newPassword: string): Promise<void> {
  const passwordHash = await hashPassword(newPassword);
  const ok = await ctx.db.transaction().execute(async (trx) => {
    const userId = await repo.consumeEmailToken(trx, 'reset', token);
    if (userId === null) return false;
    const now = Date.now();
    await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
    // Opening the link proved the address, so an unconfirmed account is confirmed too.
    await trx.updateTable('users').set({ email_verified_at: now }).where('id', '=', userId).where('email_verified_at', 'is', null).execute();
    await repo.deleteSessionsOf(trx, userId);
    await revokeGameTokens(trx, userId);
    return true;
  });
  if (!ok) throw badRequest(TEXTS.resetBad, { code: 'reset_link_invalid' });
}

export async function changePassword(ctx: AppContext, user: repo.UserRow, currentToken: string, oldPassword: string, newPassword: string): Promise<void> {
  await ctx.limiter.hit(`login:acct:${user.username_lower}`, ctx.config.rateLimits.loginPerAccount);
  if (!(await verifyPassword(user.password_hash, oldPassword))) throw new HttpError(400, TEXTS.wrongOldPassword, { code: 'wrong_password', field: 'old_password' });
  if (oldPassword === newPassword) throw badRequest(TEXTS.samePassword, { code: 'same_password', field: 'new_password' });
  const passwordHash = await hashPassword(newPassword);
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', user.id).execute();
    await repo.deleteSessionsOf(trx, user.id, currentToken);
    // Launchers hold the password's game logins: a new password ends them all.
    await revokeGameTokens(trx, user.id);
  });
}
