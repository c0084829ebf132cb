import { assertMayManage, isStaff } from '../users/staff.ts';
import { randomInt } from 'node:crypto';
import { siteName } from '../site/site.settings.ts';
import type { TwoFactorEnableResponse, TwoFactorSetupResponse, TwoFactorStatus } from '@kubik/contract';
import * as OTPAuth from 'otpauth';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { badRequest, conflict, forbidden, HttpError, notFound } from '../../lib/errors.ts';
import { verifyPassword } from '../../front-door/passwords.ts';
import { hashToken } from '../../lib/tokens.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { enqueueMail, MAIL_JOB } from '../mail/mail.outbox.ts';
import { SiteSettingsDoc } from '../site/site.settings.ts';
import { endLogins } from '../users/users.logins.ts';
import { SECOND_FACTOR_TEXTS, type SecondFactor, type SecondFactorCheck } from '../users/users.ports.ts';
import type { User } from '../users/users.repo.ts';
import { openSecret, SecretKeyMissing, sealSecret } from './two-factor.crypto.ts';
import { twoFactorChangedLetter } from './security.mail.ts';
import { SecuritySettings } from './security.settings.ts';
import * as repo from './two-factor.repo.ts';

/**
 * Two-factor login with an authenticator app (TOTP, RFC 6238: SHA-1, 6 digits, 30-second steps;
 * a code of the step before or after is accepted for clocks that drift). A code is accepted once:
 * the last accepted step is kept and only a later one passes, with a conditional update so that
 * two logins with one code at the same moment cannot both pass. Ten single-use recovery codes,
 * stored as hashes, stand in for a lost phone.
 */
export const PERIOD_SEC = 30;
export const WINDOW = 1;
export const RECOVERY_CODES = 10;
/** A secret from «setup» must be confirmed within this time. */
export const PENDING_TTL_MS = 3_600_000;

export const TWO_FACTOR_TEXTS = {
  ...SECOND_FACTOR_TEXTS,
  badSetupCode: 'Неверный код. Проверьте время на телефоне и введите код, который приложение показывает сейчас.',
  notPending: 'Время на подключение истекло: нажмите «Подключить» ещё раз и добавьте новый ключ в приложение',
  alreadyOn: 'Двухфакторная защита уже включена',
  notOn: 'Двухфакторная защита не включена',
  wrongPassword: 'Пароль указан неверно',
  enabled: 'Двухфакторная защита включена',
  disabled: 'Двухфакторная защита отключена',
  adminSetup: 'Администраторам нужна двухфакторная защита: включите её в личном кабинете, во вкладке «Настройки»',
  keyMissing: 'Проверка кодов из приложения временно недоступна: войдите с кодом восстановления или напишите администратору',
  resetNone: 'У игрока двухфакторная защита не включена',
  resetDone: 'Двухфакторная защита игрока сброшена: он войдёт по паролю и сможет включить её заново',
  enableYourself: 'Сначала включите двухфакторную защиту у себя: иначе вы сами потеряете доступ к админ-панели',
} as const;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const TOTP_RE = /^\d{6}$/;
const RECOVERY_RE = /^[a-z2-7]{10}$/;

/** What was typed, as compared: letters and digits only, lower case («123 456», «ABCDE-FGHIJ»). */
export function normalizeCode(code: string): string {
  return code.replace(/[\s-]/g, '').toLowerCase();
}

export function newRecoveryCode(): string {
  let s = '';
  for (let i = 0; i < 10; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return `${s.slice(0, 5)}-${s.slice(5)}`;
}

function totp(secret: string, label = '', issuer = ''): OTPAuth.TOTP {
  return new OTPAuth.TOTP({
    issuer,
    label,
    issuerInLabel: !!issuer,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD_SEC,
    secret: OTPAuth.Secret.fromBase32(secret),
  });
}

/** The 30-second step a 6-digit code belongs to (now ± WINDOW), or null. */
export function matchTotp(secret: string, code: string, now: number): number | null {
  const delta = totp(secret).validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD_SEC) + delta;
}

/** The secret as the app has it. A secret sealed with a TWO_FACTOR_KEY that is no longer set cannot be read: recovery codes still work. */
function secretOf(ctx: AppContext, stored: string, userId: number): string {
  try {
    return openSecret(stored, userId, ctx.config.twoFactorKey);
  } catch (err) {
    if (err instanceof SecretKeyMissing) throw new HttpError(503, TWO_FACTOR_TEXTS.keyMissing, { code: 'two_factor_unavailable' });
    throw err;
  }
}

/**
 * Checks a second factor of an account with two-factor login on and uses it up: a TOTP code's
 * step becomes the last accepted one, a recovery code is marked used. False for anything else.
 */
async function useCode(ctx: AppContext, userId: number, secretStored: string, typed: string, now: number): Promise<boolean> {
  const code = normalizeCode(typed);
  if (TOTP_RE.test(code)) {
    const step = matchTotp(secretOf(ctx, secretStored, userId), code, now);
    if (step === null) return false;
    return repo.acceptStep(ctx.db, userId, step);
  }
  if (RECOVERY_RE.test(code)) return repo.useRecoveryCode(ctx.db, userId, hashToken(code), now);
  return false;
}

/** The second step of a login, after the password was found right. */
export async function checkSecondFactor(
  ctx: AppContext,
  userId: number,
  code: string | null | undefined,
  now = Date.now(),
): Promise<SecondFactor> {
  const row = await repo.twoFactorOf(ctx.db, userId);
  if (!row || row.enabled_at === null || row.secret === null) return 'off';
  if (!code || normalizeCode(code) === '') return 'missing';
  return (await useCode(ctx, userId, row.secret, code, now)) ? 'ok' : 'wrong';
}

/**
 * Launchers have one password field. With two-factor login on, the code is typed after the
 * password with a colon: `пароль:123456` (or `пароль:abcde-fghij`), as Ely.by's authserver takes
 * it. Split at the last colon when what follows looks like a code; a launcher that sends the code
 * separately (GravitLauncher's `totpCode`) passes it as `code`.
 */
export async function launcherCredentials(
  db: Db,
  userId: number,
  password: string,
  code: string | null | undefined,
): Promise<{ password: string; code: string | null; twoFactor: boolean }> {
  if (!(await repo.isTwoFactorOn(db, userId))) return { password, code: null, twoFactor: false };
  if (code) return { password, code, twoFactor: true };
  const at = password.lastIndexOf(':');
  if (at > 0) {
    const tail = normalizeCode(password.slice(at + 1));
    if (TOTP_RE.test(tail) || RECOVERY_RE.test(tail)) return { password: password.slice(0, at), code: tail, twoFactor: true };
  }
  return { password, code: null, twoFactor: true };
}

export async function status(ctx: AppContext, user: User): Promise<TwoFactorStatus> {
  const row = await repo.twoFactorOf(ctx.db, user.id);
  const enabledAt = row?.enabled_at ?? null;
  const left = enabledAt === null ? 0 : await repo.recoveryCodesLeft(ctx.db, user.id);
  const required = isStaff(user) && (await ctx.settings.get(SecuritySettings)).require_admin_two_factor;
  return { enabled: enabledAt !== null, enabled_at: enabledAt === null ? null : Number(enabledAt), recovery_codes_left: left, required };
}

/** A new secret, pending until a code from it is sent to enable(); replaces an earlier pending one. */
export async function setup(ctx: AppContext, user: User, now = Date.now()): Promise<TwoFactorSetupResponse> {
  const row = await repo.twoFactorOf(ctx.db, user.id);
  if (row?.enabled_at != null) throw conflict(TWO_FACTOR_TEXTS.alreadyOn, { code: 'two_factor_enabled' });
  const secret = new OTPAuth.Secret({ size: 20 }).base32;
  const sealed = sealSecret(secret, user.id, ctx.config.twoFactorKey);
  await repo.savePendingSecret(ctx.db, user.id, sealed, now);
  const issuer = (await ctx.settings.get(SiteSettingsDoc)).name;
  const url = totp(secret, user.username, issuer).toString();
  // Loaded here, not at start: only turning two-factor on draws a code (10 ms of a cold start).
  const { default: QRCode } = await import('qrcode');
  const svg = await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { secret, otpauth_url: url, qr_data_url: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

/** Guessing codes (or the password on disable) is limited per account, as logins are. */
async function limitTries(ctx: AppContext, userId: number): Promise<void> {
  await ctx.limiter.hit(`2fa:acct:${userId}`, ctx.config.rateLimits.loginPerAccount * 2);
}

export async function enable(ctx: AppContext, user: User, typed: string, now = Date.now()): Promise<TwoFactorEnableResponse> {
  await limitTries(ctx, user.id);
  const row = await repo.twoFactorOf(ctx.db, user.id);
  if (row?.enabled_at != null) throw conflict(TWO_FACTOR_TEXTS.alreadyOn, { code: 'two_factor_enabled' });
  if (!row?.pending_secret || row.pending_at === null || now - Number(row.pending_at) > PENDING_TTL_MS)
    throw badRequest(TWO_FACTOR_TEXTS.notPending, { code: 'two_factor_not_pending' });
  const code = normalizeCode(typed);
  const step = TOTP_RE.test(code) ? matchTotp(secretOf(ctx, row.pending_secret, user.id), code, now) : null;
  if (step === null) throw badRequest(TWO_FACTOR_TEXTS.badSetupCode, { code: 'bad_two_factor_code', field: 'code' });
  const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  const name = await siteName(ctx);
  const pending = row.pending_secret;
  const ok = await ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.confirmPendingSecret(trx, user.id, pending, now, step))) return false;
    await repo.replaceRecoveryCodes(
      trx,
      user.id,
      codes.map((c) => hashToken(normalizeCode(c))),
    );
    await enqueueMail(trx, twoFactorChangedLetter(name, ctx.config.publicUrl, user.email, user.username, true));
    return true;
  });
  // Another tab enabled it, or started a new setup, in between.
  if (!ok) throw conflict(TWO_FACTOR_TEXTS.notPending, { code: 'two_factor_not_pending' });
  ctx.jobs.kick(MAIL_JOB);
  return { recovery_codes: codes, message: TWO_FACTOR_TEXTS.enabled };
}

/** Turning it off needs both the password and a code (or a recovery code): a stolen session alone cannot. */
export async function disable(ctx: AppContext, user: User, password: string, code: string, now = Date.now()): Promise<void> {
  await limitTries(ctx, user.id);
  const row = await repo.twoFactorOf(ctx.db, user.id);
  if (!row || row.enabled_at === null || row.secret === null) throw badRequest(TWO_FACTOR_TEXTS.notOn, { code: 'two_factor_off' });
  if (!(await verifyPassword(user.password_hash, password, 'known')))
    throw badRequest(TWO_FACTOR_TEXTS.wrongPassword, { code: 'wrong_password', field: 'password' });
  if (!(await useCode(ctx, user.id, row.secret, code, now)))
    throw badRequest(TWO_FACTOR_TEXTS.badCode, { code: 'bad_two_factor_code', field: 'code' });
  const name = await siteName(ctx);
  await ctx.db.transaction().execute(async (trx) => {
    await repo.forgetTwoFactor(trx, user.id);
    await enqueueMail(trx, twoFactorChangedLetter(name, ctx.config.publicUrl, user.email, user.username, false));
  });
  ctx.jobs.kick(MAIL_JOB);
}

/** What the users core asks of two-factor login (users.ports.ts: secondFactor); provided in two-factor.routes.ts. */
export const secondFactorCheck: SecondFactorCheck = { check: checkSecondFactor, launcherCredentials, isOn: repo.isTwoFactorOn };

/**
 * Admin routes, when the owner requires two-factor login of administrators: an administrator
 * without it gets 403 `two_factor_setup_required` until they turn it on in the profile.
 */
export async function requireAdminTwoFactor(ctx: AppContext, user: User): Promise<void> {
  if (!(await ctx.settings.get(SecuritySettings)).require_admin_two_factor) return;
  if (!(await repo.isTwoFactorOn(ctx.db, user.id))) throw forbidden(TWO_FACTOR_TEXTS.adminSetup, { code: 'two_factor_setup_required' });
}

/** Turning the requirement on is refused to an administrator who has no second factor (they would lock themselves out). */
export async function setSecuritySettings(ctx: AppContext, user: User, body: { require_admin_two_factor: boolean }) {
  if (body.require_admin_two_factor && !(await repo.isTwoFactorOn(ctx.db, user.id)))
    throw conflict(TWO_FACTOR_TEXTS.enableYourself, { code: 'two_factor_setup_required', field: 'require_admin_two_factor' });
  return ctx.settings.set(SecuritySettings, body, { actorId: user.id });
}

/**
 * A player lost both the phone and the recovery codes: an administrator turns two-factor login
 * off for them (audited, and the player gets the usual letter). Their sessions and game logins
 * end too, in case the request came from whoever has the password.
 */
export async function resetByAdmin(ctx: AppContext, actor: User, userId: number): Promise<void> {
  const user = await repo.accountToReset(ctx.db, userId);
  if (user) assertMayManage(actor, user);
  if (!user || !(await repo.isTwoFactorOn(ctx.db, userId))) throw notFound(TWO_FACTOR_TEXTS.resetNone, { code: 'two_factor_off' });
  const name = await siteName(ctx);
  await ctx.db.transaction().execute(async (trx) => {
    await repo.forgetTwoFactor(trx, userId);
    await endLogins(trx, userId);
    await recordAudit(trx, {
      actorId: actor.id,
      action: 'user.2fa_reset',
      entity: 'user',
      entityId: userId,
      before: { two_factor: true },
      after: { two_factor: false },
    });
    await enqueueMail(trx, twoFactorChangedLetter(name, ctx.config.publicUrl, user.email, user.username, false));
  });
  ctx.jobs.kick(MAIL_JOB);
}
