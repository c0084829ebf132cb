import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { conflict } from '../../lib/errors.ts';
import { deleteEmailTokensOf } from './email-tokens.ts';
import { forgetDevices } from './login-throttle.ts';
import { endLogins } from './users.logins.ts';
import { userErased } from './users.ports.ts';
import { lockAdmins, markUserErased, type User } from './users.repo.ts';

// One query, kept in the repository; the admin's edit finds it here beside the last-admin rule.
export { lockAdmins } from './users.repo.ts';

export const LAST_ADMIN_TEXTS = {
  demote: 'Нельзя снять права с последнего администратора: сначала назначьте другого',
  delete: 'Нельзя удалить последнего администратора: сначала назначьте другого',
} as const;

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
  await markUserErased(trx, id, { username, email }, Date.now());
  await endLogins(trx, id);
  await deleteEmailTokensOf(trx, id);
  // Devices are personal data too.
  await forgetDevices(trx, id);
  await userErased.run(trx, id);
  return { username };
}
