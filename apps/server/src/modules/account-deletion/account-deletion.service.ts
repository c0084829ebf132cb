import type { AppContext } from '../../context.ts';
import { siteName } from '../site/site.settings.ts';
import { badRequest, HttpError } from '../../lib/errors.ts';
import { verifyPassword } from '../../front-door/passwords.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { enqueueMail, MAIL_JOB } from '../mail/mail.outbox.ts';
import { eraseAccount, ensureNotLastAdmin } from '../users/users.erase.ts';
import { SECOND_FACTOR_TEXTS, secondFactor } from '../users/users.ports.ts';
import { findActiveUser, type User } from '../users/users.repo.ts';
import { goodbyeLetter } from './account-deletion.mail.ts';

export const DELETION_TEXTS = {
  deleted: 'Аккаунт удалён. Письмо об этом отправлено на вашу почту.',
  wrongPassword: 'Пароль указан неверно',
} as const;

/** `1 250 ₽`, `35,50 ₽` */
function rub(kopecks: number): string {
  const units = String(Math.floor(kopecks / 100)).replace(/\B(?=(\d{3})+$)/g, '\u00a0');
  const cents = kopecks % 100;
  return `${units}${cents ? `,${String(cents).padStart(2, '0')}` : ''}\u00a0₽`;
}

/**
 * The player deletes their own account after typing the password (and a two-factor code when on): removed as the admin's
 * deletion removes it (eraseAccount), money history kept, a goodbye letter to the address it had.
 * The last administrator cannot leave this way either.
 */
export async function deleteOwnAccount(ctx: AppContext, user: User, password: string, code?: string): Promise<string> {
  await ctx.limiter.hit(`delete-account:acct:${user.id}`, ctx.config.rateLimits.loginPerAccount);
  if (!(await verifyPassword(user.password_hash, password, 'known')))
    throw new HttpError(400, DELETION_TEXTS.wrongPassword, { code: 'wrong_password', field: 'password' });
  // With two-factor login on, a code too: a stolen session and password alone cannot delete the account.
  // 400 rather than the login's 401, so the page is not sent to /login.
  const second = await secondFactor.ask().check(ctx, user.id, code);
  if (second === 'missing')
    throw badRequest(SECOND_FACTOR_TEXTS.required, { code: 'two_factor_required', field: 'code', extra: { two_factor_required: true } });
  if (second === 'wrong') throw badRequest(SECOND_FACTOR_TEXTS.badCode, { code: 'bad_two_factor_code', field: 'code' });
  const name = await siteName(ctx);
  await ctx.db.transaction().execute(async (trx) => {
    await ensureNotLastAdmin(trx, ctx, user);
    const current = await findActiveUser(trx, ctx.dbKind, user.id);
    if (!current) throw new HttpError(401, 'Invalid token', { code: 'invalid_token' });
    const balance = Number(current.balance);
    await enqueueMail(trx, goodbyeLetter(name, current.email, current.username, balance > 0 ? rub(balance) : null));
    const { username } = await eraseAccount(trx, user.id);
    await recordAudit(trx, {
      actorId: user.id,
      action: 'user.delete.self',
      entity: 'user',
      entityId: user.id,
      before: { username: current.username, email: current.email, balance: balance / 100 },
      after: { username, deleted: true },
    });
  });
  ctx.jobs.kick(MAIL_JOB);
  return DELETION_TEXTS.deleted;
}
