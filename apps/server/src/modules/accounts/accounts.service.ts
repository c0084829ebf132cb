import type { StaffRights } from '../users/staff.ts';
import type { LoginBody, MeResponse, RegisterBody } from '@kubik/contract';
import { isLocalPath } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import { badRequest, conflict, forbidden, HttpError, isUniqueViolation, tooMany, unauthorized } from '../../lib/errors.ts';
import { toKopecks, toRoubles } from '../../lib/money.ts';
import { checkNewPassword } from '../../lib/password-policy.ts';
import { burnPasswordCheck, failedLoginFloor, hashPassword, renewedHash, stranger, verifyPassword } from '../../front-door/passwords.ts';
import { addressKey, limitText } from '../../lib/rate-limit.ts';
import { newToken } from '../../lib/tokens.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { postLedger } from '../ledger/ledger.service.ts';
import { enqueueMail, MAIL_JOB } from '../mail/mail.outbox.ts';
import { siteName } from '../site/site.settings.ts';
import { recordConsents, registerConsentsNeeded, requireConsents } from '../site/legal.service.ts';
import { refuseBannedLogin } from '../users/ban-status.ts';
import * as emailTokens from '../users/email-tokens.ts';
import {
  clearLoginFailures,
  countNetworkFailure,
  isKnownDevice,
  networkRefusedFor,
  rememberDevice,
  reserveLoginTry,
  retryText,
} from '../users/login-throttle.ts';
import { createSession, endLogins } from '../users/users.logins.ts';
import { linkedAccounts, newDeviceLogin, secondFactor, secondFactorError, userRegistered } from '../users/users.ports.ts';
import * as users from '../users/users.repo.ts';
import type { User } from '../users/users.repo.ts';
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
  resetLinkGood: 'Ссылка действует: придумайте новый пароль',
  passwordChanged: 'Пароль изменён. Другие сеансы завершены.',
  wrongOldPassword: 'Текущий пароль указан неверно',
  samePassword: 'Новый пароль совпадает с текущим',
} as const;

/** 409 for a name or address another account has: `username_exists` / `email_exists`, with the field. */
export function takenError(which: 'email' | 'username'): HttpError {
  return which === 'email'
    ? conflict(TEXTS.emailTaken, { code: 'email_exists', field: 'email' })
    : conflict(TEXTS.usernameTaken, { code: 'username_exists', field: 'username' });
}

export function toMe(user: User, rights: StaffRights): MeResponse {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    is_admin: user.is_admin === 1,
    balance: toRoubles(Number(user.balance)),
    permissions: [...rights.permissions],
    role: rights.role,
  };
}

export async function register(
  ctx: AppContext,
  input: RegisterBody,
  actor: User | null,
  ip: string,
  cookies: Record<string, string | undefined> = {},
  userAgent: string | null = null,
): Promise<{ message: string; id: number }> {
  const byAdmin = actor?.is_admin === 1;
  if (!byAdmin) await ctx.limiter.hit(`register:ip:${addressKey(ip)}`, ctx.config.rateLimits.registerPerIp);

  checkNewPassword(input.password, input, 'password');
  // The owner's published offer and personal-data policy are accepted by the player, each apart.
  const consents = byAdmin ? [] : await registerConsentsNeeded(ctx.db);
  requireConsents(consents, input.consents);
  const taken = await users.nameOrEmailTaken(ctx.db, input.username, input.email);
  if (taken) throw takenError(taken);
  // A player of the game server who never came to the site has this name there (AuthMe).
  if (await linkedAccounts.ask().nameTaken(ctx, input.username)) throw takenError('username');

  const passwordHash = await hashPassword(input.password, byAdmin ? 'known' : stranger(ip));
  const verifyToken = (await emailTokens.EmailLinkKey.load(ctx.db)).issue('verify');
  const now = Date.now();
  // Letters name the site as the owner set it (Настройки); read before the transaction (it is cached).
  const name = byAdmin ? '' : await siteName(ctx);
  let id: number;
  try {
    id = await ctx.db.transaction().execute(async (trx) => {
      const row = await users.insertUser(trx, {
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
        uuid: await users.profileUuidFor(trx, input.username),
      });
      if (byAdmin) {
        const kopecks = toKopecks(input.balance ?? 0);
        if (kopecks > 0)
          await postLedger(trx, { userId: row.id, amount: kopecks, reason: 'adjustment', authorId: actor.id, note: 'Начальный баланс' });
        await recordAudit(trx, {
          actorId: actor.id,
          action: 'user.create',
          entity: 'user',
          entityId: row.id,
          after: { username: input.username, email: input.email, is_admin: !!input.is_admin, balance: toRoubles(kopecks) },
        });
      } else {
        await emailTokens.createEmailToken(trx, row.id, 'verify', verifyToken, VERIFY_TTL_MS);
        // The player's way back (the page they registered from) rides along, checked again when the link is opened.
        const back = input.return_to && isLocalPath(input.return_to) ? `?next=${encodeURIComponent(input.return_to)}` : '';
        const link = `${ctx.config.publicUrl}/api/user/confirm/${verifyToken}${back}`;
        await enqueueMail(trx, confirmationLetter(name, input.email, input.username, link));
        await recordConsents(trx, row.id, input.consents ?? [], { ip, userAgent, source: 'register' });
        await userRegistered.run(trx, row.id, { username: input.username, ip, cookies });
      }
      return row.id;
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // Lost a race with a simultaneous registration of the same name or address.
    const again = await users.nameOrEmailTaken(ctx.db, input.username, input.email);
    throw takenError(again === 'username' ? 'username' : 'email');
  }
  ctx.jobs.kick(MAIL_JOB);
  // The same name and password in the game (AuthMe): /login there takes it at once.
  await linkedAccounts.ask().passwordSet(ctx, { id }, input.password, byAdmin ? 'known' : stranger(ip));
  return { id, message: byAdmin ? TEXTS.created : TEXTS.registered };
}

export async function confirmEmail(ctx: AppContext, token: string): Promise<boolean> {
  if (!(await emailTokens.EmailLinkKey.load(ctx.db)).signed('verify', token)) return false;
  return ctx.db.transaction().execute(async (trx) => {
    const userId = await emailTokens.consumeEmailToken(trx, 'verify', token);
    if (userId === null) return false;
    await users.confirmEmail(trx, userId, Date.now());
    return true;
  });
}

export interface LoginMeta {
  ip: string;
  userAgent?: string;
  /** The browser's `kubik_device` cookie, when it sent one. */
  deviceToken?: string;
  /**
   * The user id of the live session the request came with: a check for that same account goes
   * first in the queue of password checks (a session of another account makes no one known).
   */
  signedInAs?: number | null;
}

/**
 * Checks the password and opens a session. Throttled per address (a fixed window) and per
 * account by user id (modules/users/login-throttle.ts): from an unknown device, tries
 * after a few failures wait a growing delay; a known device (its cookie came from a successful
 * login of this account) only has a per-device window, so guessing elsewhere never locks out
 * the owner's own browser.
 */
export async function login(
  ctx: AppContext,
  input: LoginBody,
  meta: LoginMeta,
): Promise<{ token: string; deviceToken: string; user: User }> {
  const started = performance.now();
  const limits = ctx.config.rateLimits;
  // A stranger from a network refused for its failed logins (users/login-throttle.ts) gets no
  // hash. The refusal stands for the failures that earned it and waits their floor: answered at
  // once, a loop of them turned a hundred times faster than a loop of guesses and kept the cores
  // as busy with refusals as they had been with hashes.
  const refuseFailingNetwork = async () => {
    const left = networkRefusedFor(ctx.limiter, meta.ip);
    if (left <= 0) return;
    await failedLoginFloor(started, ctx.config.loginFailureDelayMs);
    throw tooMany(limitText(left), { code: 'rate_limited', extra: { retry_after: Math.ceil(left / 1000) } });
  };
  // Without a device cookie or a session nothing can make the caller known: decided from memory
  // before any query.
  if (!meta.deviceToken && !meta.signedInAs) await refuseFailingNetwork();
  await ctx.limiter.hit(`login:ip:${addressKey(meta.ip)}`, limits.loginPerIp);

  const failed = async (byStranger: boolean) => {
    if (byStranger) await countNetworkFailure(ctx.limiter, meta.ip, limits.loginFailuresPerNetwork);
    await failedLoginFloor(started, ctx.config.loginFailureDelayMs);
    return unauthorized(TEXTS.badCredentials, { code: 'bad_credentials' });
  };

  const linked = linkedAccounts.ask();
  let user = await users.findUserByLogin(ctx.db, input.username);
  if (!user) await refuseFailingNetwork();
  // A player only the game server's AuthMe knows: its password makes the account now.
  const first = user ? null : await linked.checkPassword(ctx, { ...loginOf(input), user, caller: stranger(meta.ip), launcher: false });
  if (first?.kind === 'refused') throw forbidden(first.message, { code: first.code });
  if (first?.kind === 'right') user = first.user;
  if (!user) {
    // No hash for a name nobody has: the same admission, and the floor every failed login waits.
    if (first?.kind !== 'wrong') await burnPasswordCheck(stranger(meta.ip));
    throw await failed(true);
  }
  // A browser that logged in to this account before goes first in the queue of password checks and
  // skips the account's delay (a session of this account only goes first); strangers wait, and may
  // be refused when their wait would be long.
  const knownDevice = await isKnownDevice(ctx.db, user.id, meta.deviceToken);
  const known = knownDevice || meta.signedInAs === user.id;
  if (!known) await refuseFailingNetwork();
  if (limits.enabled) {
    if (knownDevice) {
      await ctx.limiter.hit(`login:device:${user.id}:${meta.deviceToken}`, limits.loginPerAccount * 2);
    } else {
      const reserved = await reserveLoginTry(ctx.db, user.id, limits.loginPerAccount);
      if (!reserved.ok)
        throw tooMany(retryText(reserved.retryInMs), {
          code: 'rate_limited',
          extra: { retry_after: Math.ceil(reserved.retryInMs / 1000) },
        });
    }
  }
  const caller = known ? 'known' : stranger(meta.ip);
  // A linked game account (AuthMe) may have changed its password in the game: it is asked first.
  const verdict = first ?? (await linked.checkPassword(ctx, { ...loginOf(input), user, caller, launcher: false }));
  const right = verdict.kind === 'site' ? await verifyPassword(user.password_hash, input.password, caller) : verdict.kind !== 'wrong';
  if (!right) throw await failed(!known);
  if (verdict.kind === 'refused') throw forbidden(verdict.message, { code: verdict.code });
  if (verdict.kind === 'right') user = verdict.user;
  else await users.replacePasswordHash(ctx.db, user, await renewedHash(user.password_hash, input.password));
  // Two-factor login (answered by modules/security): a missing or wrong code leaves the try
  // counted by the throttle above, so codes cannot be guessed faster than passwords.
  const second = await secondFactor.ask().check(ctx, user.id, input.code);
  if (second === 'wrong') await failedLoginFloor(started, ctx.config.loginFailureDelayMs);
  if (second === 'missing' || second === 'wrong') throw secondFactorError(second);
  await clearLoginFailures(ctx.db, user.id);
  await refuseBannedLogin(ctx.db, user);
  if (user.email_verified_at === null) throw forbidden(TEXTS.notConfirmed, { code: 'email_not_confirmed' });

  const token = await createSession(ctx.db, user.id, ctx.config.sessionTtlMs, meta);
  const deviceToken = meta.deviceToken && meta.deviceToken.length <= 200 ? meta.deviceToken : newToken();
  // A browser the account never used: a letter (modules/security). Bearer clients (scripts) have
  // no device cookie, so each of their logins would count as new.
  if ((await rememberDevice(ctx.db, user.id, deviceToken, meta)) && !input.bearer) await newDeviceLogin.run(ctx, user, deviceToken, meta);
  return { token, deviceToken, user };
}

const loginOf = (input: LoginBody) => ({ name: input.username, password: input.password });

export async function forgotPassword(ctx: AppContext, email: string, ip: string): Promise<string> {
  await ctx.limiter.hit(`forgot:ip:${addressKey(ip)}`, ctx.config.rateLimits.forgotPerIp);
  await ctx.limiter.hit(`forgot:acct:${email.toLowerCase()}`, ctx.config.rateLimits.forgotPerAccount);
  const user = await users.findUserByEmail(ctx.db, email);
  if (user) {
    const token = (await emailTokens.EmailLinkKey.load(ctx.db)).issue('reset');
    const name = await siteName(ctx);
    await ctx.db.transaction().execute(async (trx) => {
      await emailTokens.expireEmailTokens(trx, user.id, 'reset');
      await emailTokens.createEmailToken(trx, user.id, 'reset', token, RESET_TTL_MS);
      const link = `${ctx.config.publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
      await enqueueMail(trx, resetLetter(name, user.email, user.username, link));
    });
    ctx.jobs.kick(MAIL_JOB);
  }
  // The same answer either way: the form must not tell who is registered.
  return TEXTS.forgotSent;
}

export async function resendConfirmation(ctx: AppContext, email: string, ip: string): Promise<string> {
  await ctx.limiter.hit(`forgot:ip:${addressKey(ip)}`, ctx.config.rateLimits.forgotPerIp);
  await ctx.limiter.hit(`resend:acct:${email.toLowerCase()}`, ctx.config.rateLimits.forgotPerAccount);
  const user = await users.findUserByEmail(ctx.db, email);
  if (user && user.email_verified_at === null) {
    const last = await emailTokens.lastTokenAt(ctx.db, user.id, 'verify');
    if (last === null || Date.now() - last > RESEND_GAP_MS) {
      const token = (await emailTokens.EmailLinkKey.load(ctx.db)).issue('verify');
      const name = await siteName(ctx);
      await ctx.db.transaction().execute(async (trx) => {
        await emailTokens.expireEmailTokens(trx, user.id, 'verify');
        await emailTokens.createEmailToken(trx, user.id, 'verify', token, VERIFY_TTL_MS);
        const link = `${ctx.config.publicUrl}/api/user/confirm/${token}`;
        await enqueueMail(trx, confirmationLetter(name, user.email, user.username, link));
      });
      ctx.jobs.kick(MAIL_JOB);
    }
  }
  return TEXTS.resendSent;
}

/**
 * The link is checked before the new password is hashed (argon2 costs tens of milliseconds
 * and memory: hashing for any token let anyone slow the site), and tries are limited per address.
 */
/**
 * Whether a reset link is still good (signed, stored, unused, not expired), without using it:
 * one indexed read of the token's hash. Not counted against the address (a made-up link never
 * gets here: the route checks its signature first), and it says nothing about the account.
 */
export async function checkResetLink(ctx: AppContext, token: string): Promise<void> {
  if (!(await emailTokens.EmailLinkKey.load(ctx.db)).signed('reset', token))
    throw badRequest(TEXTS.resetBad, { code: 'reset_link_invalid' });
  if ((await emailTokens.findEmailTokenUser(ctx.db, 'reset', token)) === null)
    throw badRequest(TEXTS.resetBad, { code: 'reset_link_invalid' });
}

export async function resetPassword(ctx: AppContext, token: string, newPassword: string, ip: string): Promise<void> {
  if (!(await emailTokens.EmailLinkKey.load(ctx.db)).signed('reset', token))
    throw badRequest(TEXTS.resetBad, { code: 'reset_link_invalid' });
  await ctx.limiter.hit(`reset:ip:${addressKey(ip)}`, ctx.config.rateLimits.resetPerIp);
  const owner = await emailTokens.findEmailTokenUser(ctx.db, 'reset', token);
  if (owner === null) throw badRequest(TEXTS.resetBad, { code: 'reset_link_invalid' });
  const account = await users.nameAndEmailOf(ctx.db, owner);
  checkNewPassword(newPassword, account ?? {}, 'new_password');
  const passwordHash = await hashPassword(newPassword);
  const ok = await ctx.db.transaction().execute(async (trx) => {
    const userId = await emailTokens.consumeEmailToken(trx, 'reset', token);
    if (userId === null) return false;
    const now = Date.now();
    await users.setPasswordHash(trx, userId, passwordHash);
    // Opening the link proved the address, so an unconfirmed account is confirmed too.
    await users.confirmEmail(trx, userId, now);
    await endLogins(trx, userId);
    return true;
  });
  if (!ok) throw badRequest(TEXTS.resetBad, { code: 'reset_link_invalid' });
  await linkedAccounts.ask().passwordSet(ctx, { id: owner }, newPassword, 'known');
}

export async function changePassword(
  ctx: AppContext,
  user: User,
  currentToken: string,
  oldPassword: string,
  newPassword: string,
): Promise<void> {
  await ctx.limiter.hit(`password:acct:${user.id}`, ctx.config.rateLimits.loginPerAccount);
  if (!(await verifyPassword(user.password_hash, oldPassword, 'known')))
    throw new HttpError(400, TEXTS.wrongOldPassword, { code: 'wrong_password', field: 'old_password' });
  if (oldPassword === newPassword) throw badRequest(TEXTS.samePassword, { code: 'same_password', field: 'new_password' });
  checkNewPassword(newPassword, user, 'new_password');
  const passwordHash = await hashPassword(newPassword);
  await ctx.db.transaction().execute(async (trx) => {
    await users.setPasswordHash(trx, user.id, passwordHash);
    // Launchers' game logins end too: only the session where the password was changed stays.
    await endLogins(trx, user.id, { keep: currentToken });
  });
  await linkedAccounts.ask().passwordSet(ctx, user, newPassword, 'known');
}
