import type { EmailChangeResponse, EmailStatus } from '@kubik/contract';
import { siteName } from '../site/site.settings.ts';
import type { AppContext } from '../../context.ts';
import { badRequest, conflict, HttpError, isUniqueViolation } from '../../lib/errors.ts';
import { addressKey } from '../../lib/rate-limit.ts';
import { verifyPassword } from '../../front-door/passwords.ts';
import { hashToken } from '../../lib/tokens.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { enqueueMail, MAIL_JOB } from '../mail/mail.outbox.ts';
import { EmailLinkKey, expireEmailTokens } from '../users/email-tokens.ts';
import { endLogins } from '../users/users.logins.ts';
import type { User } from '../users/users.repo.ts';
import { confirmNewEmailLetter, emailChangeNoticeLetter } from './email-change.mail.ts';
import * as repo from './email-change.repo.ts';

/** The link to the new address works this long. */
export const CONFIRM_TTL_MS = 24 * 3_600_000;
/** The old address may undo the change this long after the request (confirmed or not). */
export const CANCEL_DAYS = 7;
export const CANCEL_TTL_MS = CANCEL_DAYS * 86_400_000;

export const EMAIL_TEXTS = {
  sent: 'Мы отправили письмо на новый адрес. Почта сменится, когда вы откроете ссылку из него; на старый адрес ушло уведомление.',
  wrongPassword: 'Пароль указан неверно',
  same: 'Это ваша текущая почта',
  taken: 'Пользователь с такой почтой уже зарегистрирован.',
  confirmed: 'Почта изменена',
  confirmBad: 'Ссылка подтверждения недействительна или устарела',
  cancelled: 'Смена почты отменена. Все сеансы аккаунта завершены: войдите снова и смените пароль, если почту меняли не вы.',
  cancelBad: 'Ссылка отмены недействительна или устарела',
  cancelTaken: 'Прежний адрес уже занят другим аккаунтом: вернуть его нельзя. Напишите в поддержку.',
  withdrawn: 'Запрос на смену почты отменён',
  nothingPending: 'Нет запроса на смену почты',
} as const;

const invalidConfirm = () => badRequest(EMAIL_TEXTS.confirmBad, { code: 'email_link_invalid' });
const invalidCancel = () => badRequest(EMAIL_TEXTS.cancelBad, { code: 'email_link_invalid' });

export async function emailStatus(ctx: AppContext, user: User): Promise<EmailStatus> {
  const pending = await repo.pendingChangeOf(ctx.db, user.id, Date.now());
  return { email: user.email, pending: pending ? { email: pending.new_email, expires_at: Number(pending.expires_at) } : null };
}

/**
 * Asks for a new address: the password is checked (the request is the player's, not a stolen
 * session's), the address must be free; a link goes to the new address and a notice with a
 * cancel link to the old one. A newer request replaces an older pending one.
 */
export async function requestEmailChange(ctx: AppContext, user: User, email: string, password: string): Promise<EmailChangeResponse> {
  // Each try checks the password and a good one sends two letters: as many per window as logins of an account.
  await ctx.limiter.hit(`email-change:acct:${user.id}`, ctx.config.rateLimits.loginPerAccount);
  if (!(await verifyPassword(user.password_hash, password, 'known')))
    throw new HttpError(400, EMAIL_TEXTS.wrongPassword, { code: 'wrong_password', field: 'password' });
  if (email.toLowerCase() === user.email_lower) throw badRequest(EMAIL_TEXTS.same, { code: 'same_email', field: 'email' });
  if (await repo.addressTaken(ctx.db, email, user.id)) throw conflict(EMAIL_TEXTS.taken, { code: 'email_exists', field: 'email' });
  const now = Date.now();
  // Signed, like every link the site mails: a made-up one is refused without a lookup (users/email-tokens.ts).
  const links = await EmailLinkKey.load(ctx.db);
  const confirm = links.issue('email-confirm');
  const cancel = links.issue('email-cancel');
  const expiresAt = now + CONFIRM_TTL_MS;
  const name = await siteName(ctx);
  await ctx.db.transaction().execute(async (trx) => {
    await repo.cancelUnconfirmed(trx, user.id, now);
    await repo.insertChange(trx, {
      user_id: user.id,
      old_email: user.email,
      new_email: email,
      confirm_hash: hashToken(confirm),
      cancel_hash: hashToken(cancel),
      created_at: now,
      expires_at: expiresAt,
      cancel_until: now + CANCEL_TTL_MS,
    });
    const base = ctx.config.publicUrl;
    await enqueueMail(
      trx,
      confirmNewEmailLetter(name, email, user.username, `${base}/email-change?confirm=${encodeURIComponent(confirm)}`),
      now,
    );
    await enqueueMail(
      trx,
      emailChangeNoticeLetter(
        name,
        user.email,
        user.username,
        email,
        `${base}/email-change?cancel=${encodeURIComponent(cancel)}`,
        CANCEL_DAYS,
      ),
      now,
    );
  });
  ctx.jobs.kick(MAIL_JOB);
  return { message: EMAIL_TEXTS.sent, pending: { email, expires_at: expiresAt } };
}

/** Withdraws the player's own pending request (settings). */
export async function withdrawEmailChange(ctx: AppContext, user: User): Promise<string> {
  if ((await repo.cancelUnconfirmed(ctx.db, user.id, Date.now())) === 0)
    throw conflict(EMAIL_TEXTS.nothingPending, { code: 'no_pending_change' });
  return EMAIL_TEXTS.withdrawn;
}

/**
 * The link from the new address. One this site did not sign is refused before anything is
 * counted or looked up; a signed one costs a SHA-256 lookup (tries limited per address); the
 * change is a conditional update, so a link works once.
 */
export async function confirmEmailChange(ctx: AppContext, token: string, ip: string): Promise<string> {
  if (!(await EmailLinkKey.load(ctx.db)).signed('email-confirm', token)) throw invalidConfirm();
  await ctx.limiter.hit(`email-link:ip:${addressKey(ip)}`, ctx.config.rateLimits.resetPerIp);
  const now = Date.now();
  const change = await repo.changeByConfirmHash(ctx.db, hashToken(token));
  if (!change || change.confirmed_at !== null || change.cancelled_at !== null || Number(change.expires_at) <= now) throw invalidConfirm();
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const user = await repo.accountOf(trx, change.user_id);
      // The address changed some other way since (an admin's edit): this link is for the old state.
      if (!user || user.deleted_at !== null || user.email_lower !== change.old_email.toLowerCase()) throw invalidConfirm();
      if (await repo.addressTaken(trx, change.new_email, user.id)) throw conflict(EMAIL_TEXTS.taken, { code: 'email_exists' });
      if (!(await repo.markConfirmed(trx, change.id, now))) throw invalidConfirm();
      // Opening the link proves the new address, so an unconfirmed account is confirmed too.
      await repo.setAccountEmail(trx, user.id, change.new_email);
      await repo.markEmailVerified(trx, user.id, now);
      // Letters sent to the old address (reset, confirmation) stop working.
      await expireEmailTokens(trx, user.id, 'reset', now);
      await expireEmailTokens(trx, user.id, 'verify', now);
      await recordAudit(trx, {
        actorId: user.id,
        action: 'user.email.change',
        entity: 'user',
        entityId: user.id,
        before: { username: user.username, email: user.email },
        after: { username: user.username, email: change.new_email },
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(EMAIL_TEXTS.taken, { code: 'email_exists' });
    throw err;
  }
  return EMAIL_TEXTS.confirmed;
}

/**
 * The link from the old address: undoes the change — a pending one is dropped, a confirmed one
 * is reverted — and ends every session and game login of the account (someone who knew the
 * password asked for it).
 */
export async function cancelEmailChange(ctx: AppContext, token: string, ip: string): Promise<string> {
  if (!(await EmailLinkKey.load(ctx.db)).signed('email-cancel', token)) throw invalidCancel();
  await ctx.limiter.hit(`email-link:ip:${addressKey(ip)}`, ctx.config.rateLimits.resetPerIp);
  const now = Date.now();
  const change = await repo.changeByCancelHash(ctx.db, hashToken(token));
  if (!change || change.cancelled_at !== null || Number(change.cancel_until) <= now) throw invalidCancel();
  try {
    await ctx.db.transaction().execute(async (trx) => {
      if (!(await repo.markCancelled(trx, change.id, now))) throw invalidCancel();
      const user = await repo.accountOf(trx, change.user_id);
      if (!user || user.deleted_at !== null) throw invalidCancel();
      // Re-read: a confirmation may have landed between the first look and this transaction.
      if ((await repo.confirmedAt(trx, change.id)) !== null && user.email_lower === change.new_email.toLowerCase()) {
        if (await repo.addressTaken(trx, change.old_email, user.id)) throw conflict(EMAIL_TEXTS.cancelTaken, { code: 'email_exists' });
        await repo.setAccountEmail(trx, user.id, change.old_email);
        await expireEmailTokens(trx, user.id, 'reset', now);
        await recordAudit(trx, {
          actorId: user.id,
          action: 'user.email.revert',
          entity: 'user',
          entityId: user.id,
          before: { username: user.username, email: user.email },
          after: { username: user.username, email: change.old_email },
        });
      }
      await endLogins(trx, user.id);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(EMAIL_TEXTS.cancelTaken, { code: 'email_exists' });
    throw err;
  }
  return EMAIL_TEXTS.cancelled;
}
