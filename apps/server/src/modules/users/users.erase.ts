import type { AppContext } from '../../context.ts';
import type { Db, DbKind } from '../../db/index.ts';
import { conflict } from '../../lib/errors.ts';
import { deleteEmailTokensOf } from './email-tokens.ts';
import { forgetDevices } from './login-throttle.ts';
import { endLogins } from './users.logins.ts';
import { userErased } from './users.ports.ts';
import type { User } from './users.repo.ts';

export const LAST_ADMIN_TEXTS = {
  demote: 'Нельзя снять права с последнего администратора: сначала назначьте другого',
  delete: 'Нельзя удалить последнего администратора: сначала назначьте другого',
} as const;

/**
 * Ids of the current administrators. On PostgreSQL their rows are locked in id order first,
 * so two admins demoting or deleting each other at once are serialised (and cannot deadlock)
 * and the second sees the first one's result. SQLite runs one write transaction at a time.
 */
export async function lockAdmins(db: Db, kind: DbKind): Promise<number[]> {
  let q = db.selectFrom('users').select('id').where('is_admin', '=', 1).where('deleted_at', 'is', null).orderBy('id');
  if (kind === 'pg') q = q.forUpdate();
  return (await q.execute()).map((r) => r.id);
}

/** Ends the transaction with a 409 when `leaving` is the only administrator: the site never loses its last one. */
export async function ensureAnotherAdmin(trx: Db, ctx: AppContext, leaving: number, text: string): Promise<void> {
  const admins = await lockAdmins(trx, ctx.dbKind);
  if (!admins.some((id) => id !== leaving)) throw conflict(text, { code: 'last_admin' });
}

/** The last-admin rule for a player deleting their own account (the same text as the admin's). */
export async function ensureNotLastAdmin(trx: Db, ctx: AppContext, user: User): Promise<void> {
  if (ctx.dbKind === 'pg') await lockAdmins(trx, ctx.dbKind);
  if (user.is_admin === 1) await ensureAnotherAdmin(trx, ctx, user.id, LAST_ADMIN_TEXTS.delete);
}

/**
 * What deleting an account removes, by an admin or by the player: the name, address and password
 * are replaced by ones registration can never produce (so both are free for a new account),
 * every login and e-mail link ends, known devices are forgotten, and each feature forgets what
 * else it keeps of the person (userErased: pending address changes, the authenticator).
 * Purchases, payments and ledger rows keep pointing at the row. The caller holds the transaction
 * and has checked the last-admin rule.
 */
export async function eraseAccount(trx: Db, id: number): Promise<{ username: string }> {
  const username = `Удалён #${id}`;
  const email = `deleted#${id}`;
  await trx
    .updateTable('users')
    .set({
      username,
      username_lower: username.toLowerCase(),
      email,
      email_lower: email,
      // Not a hash any password can match.
      password_hash: '!',
      is_admin: 0,
      role_id: null,
      deleted_at: Date.now(),
    })
    .where('id', '=', id)
    .execute();
  await endLogins(trx, id);
  await deleteEmailTokensOf(trx, id);
  // Devices are personal data too.
  await forgetDevices(trx, id);
  await userErased.run(trx, id);
  return { username };
}
