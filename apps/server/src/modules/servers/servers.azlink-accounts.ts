import { Email, NewPassword, USERNAME_RE } from '@kubik/contract';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { hashPassword } from '../../front-door/passwords.ts';
import { badRequest, conflict, forbidden } from '../../lib/errors.ts';
import { passwordProblem } from '../../lib/password-policy.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { deleteSessionsOf, profileUuidFor } from '../users/users.repo.ts';
import { isStaff } from '../users/staff.ts';
import * as repo from './servers.repo.ts';
import type { LinkCaller } from './servers.repo.ts';

/*
 * AzLink's account calls: with AuthMe, nLogin or LimboAuth on the game server, the plugin tells the
 * site about a registration in the game (POST /api/azlink/register), a new address
 * (/api/azlink/email) and a new password (/api/azlink/password). Only when the owner turned it on
 * for that server; never for a staff member's or the owner's account; rate-limited per server. The
 * password arrives in plain text: it is hashed before anything else is done with it and never
 * written anywhere as it came.
 */

export const ACCOUNT_TEXTS = {
  off: 'Аккаунты из игры на этом сервере выключены: включите их в настройках плагина',
  staff: 'Аккаунт сотрудника сайта нельзя менять из игры',
  nameTaken: 'Аккаунт с таким именем уже есть на сайте',
  notFound: 'На сайте нет аккаунта этого игрока',
  emailTaken: 'Этот адрес почты уже занят на сайте',
  badName: 'Имя игрока не подходит для сайта: от 3 до 16 символов — латинские буквы, цифры и «_»',
} as const;

/** Account calls one server may make in a rate-limit window. */
export const ACCOUNT_CALLS_PER_WINDOW = 30;
/** The domain of the address an account made without one gets (RFC 2606: never delivered). */
const NO_EMAIL_DOMAIN = 'azlink.invalid';

const GameId = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'Недопустимый UUID игрока');

/** AzLink's registerUser (Gson leaves the null address and IP out). */
export const AzLinkRegister = z.object({
  name: z.string().max(32),
  email: Email.nullish(),
  game_id: GameId,
  password: NewPassword,
  ip: z.string().max(64).nullish(),
});
export const AzLinkEmail = z.object({ game_id: GameId, email: Email });
export const AzLinkPassword = z.object({ game_id: GameId, password: NewPassword });

async function allowed(ctx: AppContext, server: LinkCaller): Promise<void> {
  if (Number(server.link_accounts) !== 1) throw forbidden(ACCOUNT_TEXTS.off, { code: 'azlink_accounts_off' });
  await ctx.limiter.hit(`azlink-accounts:${server.id}`, ACCOUNT_CALLS_PER_WINDOW);
}

/** The account the game knows by this UUID (its profile UUID), refused when it is staff's. */
async function accountOf(db: Db, gameId: string) {
  const user = await repo.accountByUuid(db, gameId.toLowerCase());
  if (!user) throw badRequest(ACCOUNT_TEXTS.notFound, { code: 'azlink_no_account' });
  if (isStaff(user)) throw forbidden(ACCOUNT_TEXTS.staff, { code: 'azlink_staff_account' });
  return user;
}

const emailFree = async (db: Db, email: string, except?: number) => {
  const other = await repo.accountByEmail(db, email.toLowerCase());
  return !other || other.id === except;
};

/**
 * A registration in the game: a new site account of that name with that password, or — for the
 * account whose profile UUID the game gave — its new password. Another account of that name is
 * left alone (409): a registration on a game server does not take over a site account.
 */
export async function registerFromGame(ctx: AppContext, server: LinkCaller, body: z.infer<typeof AzLinkRegister>): Promise<void> {
  await allowed(ctx, server);
  const hash = await hashPassword(body.password);
  if (!USERNAME_RE.test(body.name)) throw badRequest(ACCOUNT_TEXTS.badName, { code: 'invalid', field: 'name' });
  const problem = passwordProblem(body.password, { username: body.name, ...(body.email && { email: body.email }) });
  if (problem) throw badRequest(problem, { code: 'invalid', field: 'password' });
  const now = Date.now();
  await ctx.db.transaction().execute(async (trx) => {
    const existing = await repo.accountByName(trx, body.name.toLowerCase());
    if (existing) {
      if (isStaff(existing)) throw forbidden(ACCOUNT_TEXTS.staff, { code: 'azlink_staff_account' });
      if (existing.uuid.toLowerCase() !== body.game_id.toLowerCase())
        throw conflict(ACCOUNT_TEXTS.nameTaken, { code: 'azlink_name_taken' });
      await repo.setAccountPassword(trx, existing.id, hash);
      await deleteSessionsOf(trx, existing.id, null);
      await recordAudit(trx, {
        actorId: null,
        action: 'user.game_password',
        entity: 'user',
        entityId: existing.id,
        after: { server_id: server.id },
      });
      return;
    }
    const email = body.email && (await emailFree(trx, body.email)) ? body.email : null;
    const address = email ?? `${body.name.toLowerCase()}@${NO_EMAIL_DOMAIN}`;
    const id = await repo.insertAccount(trx, {
      username: body.name,
      username_lower: body.name.toLowerCase(),
      email: address,
      email_lower: address.toLowerCase(),
      password_hash: hash,
      is_admin: 0,
      balance: 0,
      email_verified_at: null,
      created_at: now,
      deleted_at: null,
      uuid: await profileUuidFor(trx, body.name),
    });
    await recordAudit(trx, { actorId: null, action: 'user.game_register', entity: 'user', entityId: id, after: { server_id: server.id } });
  });
}

/** A new address typed in the game: set (unconfirmed) when no other account holds it. */
export async function emailFromGame(ctx: AppContext, server: LinkCaller, body: z.infer<typeof AzLinkEmail>): Promise<void> {
  await allowed(ctx, server);
  await ctx.db.transaction().execute(async (trx) => {
    const user = await accountOf(trx, body.game_id);
    if (!(await emailFree(trx, body.email, user.id))) throw conflict(ACCOUNT_TEXTS.emailTaken, { code: 'azlink_email_taken' });
    await repo.setAccountEmail(trx, user.id, body.email);
    await recordAudit(trx, {
      actorId: null,
      action: 'user.game_email',
      entity: 'user',
      entityId: user.id,
      after: { server_id: server.id },
    });
  });
}

/** A new password typed in the game: hashed at once; the account's sessions end. */
export async function passwordFromGame(ctx: AppContext, server: LinkCaller, body: z.infer<typeof AzLinkPassword>): Promise<void> {
  await allowed(ctx, server);
  const hash = await hashPassword(body.password);
  await ctx.db.transaction().execute(async (trx) => {
    const user = await accountOf(trx, body.game_id);
    const problem = passwordProblem(body.password, { username: user.username, email: user.email });
    if (problem) throw badRequest(problem, { code: 'invalid', field: 'password' });
    await repo.setAccountPassword(trx, user.id, hash);
    await deleteSessionsOf(trx, user.id, null);
    await recordAudit(trx, {
      actorId: null,
      action: 'user.game_password',
      entity: 'user',
      entityId: user.id,
      after: { server_id: server.id },
    });
  });
}
