import type { AdminUser, AdminUserUpdateBody } from '@kubik/contract';
import type { Updateable } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import type { UsersTable } from '../../db/types.ts';
import { conflict, isUniqueViolation, notFound } from '../../lib/errors.ts';
import { toKopecks, toRoubles } from '../../lib/money.ts';
import { checkNewPassword } from '../../lib/password-policy.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { postLedger } from '../ledger/ledger.service.ts';
import { revokeGameTokens } from '../game-auth/game-auth.service.ts';
import { deleteSessionsOf, type UserRow } from './accounts.repo.ts';
import { takenError } from './accounts.service.ts';
import * as repo from './admin-users.repo.ts';

export const TEXTS = {
  notFound: 'Пользователь не найден',
  lastAdminDemote: 'Нельзя снять права с последнего администратора: сначала назначьте другого',
  lastAdminDelete: 'Нельзя удалить последнего администратора: сначала назначьте другого',
  deleted: 'Пользователь удалён',
  balanceNote: 'Изменение баланса администратором',
} as const;

export function toAdminUser(user: UserRow): AdminUser {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    is_admin: user.is_admin === 1,
    balance: toRoubles(Number(user.balance)),
    email_confirmed: user.email_verified_at !== null,
    created_at: new Date(Number(user.created_at)).toISOString(),
  };
}

/** What the audit log keeps of a user: no hash, balance in roubles. */
function snapshot(user: UserRow) {
  return { username: user.username, email: user.email, is_admin: user.is_admin === 1, balance: toRoubles(Number(user.balance)) };
}

/** Ends the transaction with a 409 when `leaving` is the only administrator. */
async function ensureAnotherAdmin(trx: Db, ctx: AppContext, leaving: number, text: string): Promise<void> {
  const admins = await repo.lockAdmins(trx, ctx.dbKind);
  if (!admins.some((id) => id !== leaving)) throw conflict(text, { code: 'last_admin' });
}

export async function listUsers(ctx: AppContext): Promise<AdminUser[]> {
  return (await repo.listActiveUsers(ctx.db)).map(toAdminUser);
}

export async function updateUser(ctx: AppContext, actor: UserRow, actorToken: string | null, id: number, body: AdminUserUpdateBody): Promise<AdminUser> {
  if (body.password) {
    const current = await ctx.db.selectFrom('users').select(['username', 'email']).where('id', '=', id).executeTakeFirst();
    checkNewPassword(body.password, { username: body.username ?? current?.username, email: body.email ?? current?.email }, 'password');
  }
  const passwordHash = body.password ? await hashPassword(body.password) : null;
  try {
    const updated = await ctx.db.transaction().execute(async (trx) => {
      // Administrators first, then the target: one lock order for every admin change.
      if (ctx.dbKind === 'pg') await repo.lockAdmins(trx, ctx.dbKind);
      const before = await repo.findActiveUser(trx, ctx.dbKind, id);
      if (!before) throw notFound(TEXTS.notFound);
      if (before.is_admin === 1 && body.is_admin === false) await ensureAnotherAdmin(trx, ctx, id, TEXTS.lastAdminDemote);

      const username = body.username !== undefined && body.username !== before.username ? body.username : undefined;
      const email = body.email !== undefined && body.email !== before.email ? body.email : undefined;
      const taken = await repo.takenByOther(trx, id, username, email);
      if (taken) throw takenError(taken);

      const set: Updateable<UsersTable> = {};
      if (username !== undefined) Object.assign(set, { username, username_lower: username.toLowerCase() });
      if (email !== undefined) Object.assign(set, { email, email_lower: email.toLowerCase() });
      if (body.is_admin !== undefined && (body.is_admin ? 1 : 0) !== before.is_admin) set.is_admin = body.is_admin ? 1 : 0;
      if (passwordHash) set.password_hash = passwordHash;
      if (Object.keys(set).length > 0) await repo.updateUser(trx, id, set);

      // The balance only moves through the ledger, so it always equals the sum of its rows.
      if (body.balance !== undefined) {
        const difference = toKopecks(body.balance) - Number(before.balance);
        if (difference !== 0) await postLedger(trx, { userId: id, amount: difference, reason: 'adjustment', authorId: actor.id, note: TEXTS.balanceNote });
      }
      // A new password logs the account out everywhere, except the admin's own current session.
      if (passwordHash) {
        await deleteSessionsOf(trx, id, id === actor.id ? (actorToken ?? undefined) : undefined);
        await revokeGameTokens(trx, id);
      }

      const after = await repo.findActiveUser(trx, ctx.dbKind, id);
      if (!after) throw notFound(TEXTS.notFound);
      const was = snapshot(before);
      const now = { ...snapshot(after), ...(passwordHash ? { password: 'изменён' } : {}) };
      if (JSON.stringify(was) !== JSON.stringify(now)) await recordAudit(trx, { actorId: actor.id, action: 'user.update', entity: 'user', entityId: id, before: was, after: now });
      return after;
    });
    return toAdminUser(updated);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // Lost a race with a registration or another edit taking the same name or address.
    const again = await repo.takenByOther(ctx.db, id, body.username, body.email);
    throw takenError(again === 'username' ? 'username' : 'email');
  }
}

/**
 * A soft delete: purchases and ledger rows keep pointing at the row, while the name and address
 * are replaced by ones registration can never produce, so both are free for a new account.
 */
export async function deleteUser(ctx: AppContext, actor: UserRow, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    if (ctx.dbKind === 'pg') await repo.lockAdmins(trx, ctx.dbKind);
    const before = await repo.findActiveUser(trx, ctx.dbKind, id);
    if (!before) throw notFound(TEXTS.notFound);
    if (before.is_admin === 1) await ensureAnotherAdmin(trx, ctx, id, TEXTS.lastAdminDelete);
    const username = `Удалён #${id}`;
    const email = `deleted#${id}`;
    await repo.updateUser(trx, id, {
      username,
      username_lower: username.toLowerCase(),
      email,
      email_lower: email,
      // Not a hash any password can match.
      password_hash: '!',
      is_admin: 0,
      deleted_at: Date.now(),
    });
    await deleteSessionsOf(trx, id);
    await revokeGameTokens(trx, id);
    await repo.deleteEmailTokensOf(trx, id);
    await recordAudit(trx, { actorId: actor.id, action: 'user.delete', entity: 'user', entityId: id, before: snapshot(before), after: { username, deleted: true } });
  });
}
