import type { AuthMeEmailBody } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import { stranger } from '../../front-door/passwords.ts';
import { conflict, isUniqueViolation, unauthorized } from '../../lib/errors.ts';
import { addressKey } from '../../lib/rate-limit.ts';
import { enqueueMail, MAIL_JOB } from '../mail/mail.outbox.ts';
import { siteName } from '../site/site.settings.ts';
import * as emailTokens from '../users/email-tokens.ts';
import { findUserByLogin } from '../users/users.repo.ts';
import { addressLetter } from './authme.mail.ts';
import * as repo from './authme.repo.ts';
import { checkPassword, TEXTS } from './authme.service.ts';

/** The confirmation link's life, as a registration's. */
const LINK_TTL_MS = 24 * 3_600_000;

/**
 * An account that came from AuthMe without an address gets one: the name and password are
 * checked again (the login form still holds them; any other answer is the login's own «wrong»),
 * the address is set unconfirmed and a confirmation letter goes to it. The player logs in once it
 * is confirmed, as after a registration.
 */
export async function giveEmail(ctx: AppContext, body: AuthMeEmailBody, ip: string): Promise<string> {
  await ctx.limiter.hit(`register:ip:${addressKey(ip)}`, ctx.config.rateLimits.registerPerIp);
  const wrong = () => unauthorized('Неверное имя пользователя или пароль', { code: 'bad_credentials' });
  const user = await findUserByLogin(ctx.db, body.username);
  if (!user) throw wrong();
  const verdict = await checkPassword(ctx, { name: body.username, password: body.password, user, caller: stranger(ip), launcher: false });
  if (verdict.kind !== 'refused' || verdict.code !== 'authme_email_required') throw wrong();
  const email = body.email.trim();
  const taken = await ctx.db.selectFrom('users').select('id').where('email_lower', '=', email.toLowerCase()).executeTakeFirst();
  if (taken) throw conflict('Email already exists', { code: 'email_exists', field: 'email' });
  const token = (await emailTokens.EmailLinkKey.load(ctx.db)).issue('verify');
  const name = await siteName(ctx);
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('users')
        .set({ email, email_lower: email.toLowerCase() })
        .where('id', '=', user.id)
        .where('email_verified_at', 'is', null)
        .execute();
      await repo.updateLink(trx, user.id, { needs_email: 0 });
      await emailTokens.expireEmailTokens(trx, user.id, 'verify');
      await emailTokens.createEmailToken(trx, user.id, 'verify', token, LINK_TTL_MS);
      await enqueueMail(trx, addressLetter(name, email, user.username, `${ctx.config.publicUrl}/api/user/confirm/${token}`));
    });
  } catch (err) {
    // Taken by another account meanwhile.
    if (isUniqueViolation(err)) throw conflict('Email already exists', { code: 'email_exists', field: 'email' });
    throw err;
  }
  ctx.jobs.kick(MAIL_JOB);
  return TEXTS.emailSent;
}
