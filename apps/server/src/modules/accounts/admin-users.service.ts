import { assertMayManage, STAFF_TEXTS } from '../users/staff.ts';
import type {
  AdminUser,
  AdminUserPage,
  AdminUserQuery,
  AdminUserUpdateBody,
  BalanceChangeBody,
  BalanceChangeResponse,
  LedgerEntryView,
  UserCard,
} from '@kubik/contract';
import { ADMIN_USERS_PAGE_SIZE, ZERO_KOPECKS_TEXT } from '@kubik/contract';
import type { Updateable } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { UsersTable } from '../../db/types.ts';
import { badRequest, conflict, forbidden, isUniqueViolation, notFound } from '../../lib/errors.ts';
import { toKopecks, toRoubles } from '../../lib/money.ts';
import { checkNewPassword } from '../../lib/password-policy.ts';
import { hashPassword } from '../../front-door/passwords.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { notify, rubles } from '../notices/notices.service.ts';
import { InsufficientFunds, postLedger } from '../ledger/ledger.service.ts';
import { banOf } from '../users/ban-status.ts';
import { ensureAnotherAdmin, eraseAccount, LAST_ADMIN_TEXTS, lockAdmins } from '../users/users.erase.ts';
import { endLogins } from '../users/users.logins.ts';
import { linkedAccounts, secondFactor, userPayments } from '../users/users.ports.ts';
import { findActiveUser, nameAndEmailOf, type User } from '../users/users.repo.ts';
import { takenError } from './accounts.service.ts';
import * as repo from './admin-users.repo.ts';

export const TEXTS = {
  notFound: 'Пользователь не найден',
  deleted: 'Пользователь удалён',
  balanceNote: 'Изменение баланса администратором',
  balanceChanged: 'Баланс изменён',
  balanceBelowZero: (rub: string) => `Баланс не может стать отрицательным: сейчас на счету ${rub}`,
} as const;

export function toAdminUser(user: User): AdminUser {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    is_admin: user.is_admin === 1,
    balance: toRoubles(Number(user.balance)),
    email_confirmed: user.email_verified_at !== null,
    created_at: new Date(Number(user.created_at)).toISOString(),
    ban: banOf(user),
  };
}

/** What the audit log keeps of a user: no hash, balance in roubles. */
function snapshot(user: User) {
  return { username: user.username, email: user.email, is_admin: user.is_admin === 1, balance: toRoubles(Number(user.balance)) };
}

export async function listUsers(ctx: AppContext): Promise<AdminUser[]> {
  return (await repo.listActiveUsers(ctx.db)).map(toAdminUser);
}

export async function updateUser(
  ctx: AppContext,
  actor: User,
  actorToken: string | null,
  id: number,
  body: AdminUserUpdateBody,
): Promise<AdminUser> {
  if (body.password) {
    const current = await nameAndEmailOf(ctx.db, id);
    checkNewPassword(body.password, { username: body.username ?? current?.username, email: body.email ?? current?.email }, 'password');
  }
  const passwordHash = body.password ? await hashPassword(body.password) : null;
  try {
    const updated = await ctx.db.transaction().execute(async (trx) => {
      // Administrators first, then the target: one lock order for every admin change.
      if (ctx.dbKind === 'pg') await lockAdmins(trx, ctx.dbKind);
      const before = await findActiveUser(trx, ctx.dbKind, id);
      if (!before) throw notFound(TEXTS.notFound);
      assertMayManage(actor, before);
      if (body.is_admin !== undefined && actor.is_admin !== 1 && (body.is_admin ? 1 : 0) !== before.is_admin)
        throw forbidden(STAFF_TEXTS.ownerRights, { code: 'owner_only', field: 'is_admin' });
      if (before.is_admin === 1 && body.is_admin === false) await ensureAnotherAdmin(trx, ctx, id, LAST_ADMIN_TEXTS.demote);

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
        if (difference !== 0) {
          await postLedger(trx, { userId: id, amount: difference, reason: 'adjustment', authorId: actor.id, note: TEXTS.balanceNote });
          await notify(trx, id, {
            kind: 'balance',
            title: `${difference > 0 ? 'Начислено' : 'Списано'} ${rubles(difference)}`,
            body: TEXTS.balanceNote,
            link: '/profile',
            data: { amount: toRoubles(difference) },
          });
        }
      }
      // A new password logs the account out everywhere, except the admin's own current session.
      if (passwordHash) await endLogins(trx, id, { keep: id === actor.id ? actorToken : null });

      const after = await findActiveUser(trx, ctx.dbKind, id);
      if (!after) throw notFound(TEXTS.notFound);
      const was = snapshot(before);
      const now = { ...snapshot(after), ...(passwordHash ? { password: 'изменён' } : {}) };
      if (JSON.stringify(was) !== JSON.stringify(now))
        await recordAudit(trx, { actorId: actor.id, action: 'user.update', entity: 'user', entityId: id, before: was, after: now });
      return after;
    });
    // AuthMe (a game plugin's accounts) gets the same password, after the site has it.
    if (body.password) await linkedAccounts.ask().passwordSet(ctx, { id }, body.password, 'known');
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
export async function deleteUser(ctx: AppContext, actor: User, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    if (ctx.dbKind === 'pg') await lockAdmins(trx, ctx.dbKind);
    const before = await findActiveUser(trx, ctx.dbKind, id);
    if (!before) throw notFound(TEXTS.notFound);
    assertMayManage(actor, before);
    if (before.is_admin === 1) await ensureAnotherAdmin(trx, ctx, id, LAST_ADMIN_TEXTS.delete);
    const { username } = await eraseAccount(trx, id);
    await recordAudit(trx, {
      actorId: actor.id,
      action: 'user.delete',
      entity: 'user',
      entityId: id,
      before: snapshot(before),
      after: { username, deleted: true },
    });
  });
}

/** `1 250 ₽`, `35,50 ₽` for the texts the server writes itself. */
function rub(kopecks: number): string {
  const units = String(Math.floor(Math.abs(kopecks) / 100)).replace(/\B(?=(\d{3})+$)/g, '\u00a0');
  const cents = Math.abs(kopecks) % 100;
  return `${kopecks < 0 ? '−' : ''}${units}${cents ? `,${String(cents).padStart(2, '0')}` : ''}\u00a0₽`;
}

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

/** The spec's plain list when nothing is asked; a page of the search otherwise. */
export async function findUsers(ctx: AppContext, query: AdminUserQuery): Promise<AdminUser[] | AdminUserPage> {
  if (query.q === undefined && query.page === undefined && query.per_page === undefined) return listUsers(ctx);
  const page = Number(query.page ?? 1);
  const perPage = Number(query.per_page ?? ADMIN_USERS_PAGE_SIZE);
  const { rows, total } = await repo.searchActiveUsers(ctx.db, query.q ?? '', page, perPage);
  return { users: rows.map(toAdminUser), page, per_page: perPage, total };
}

// Worst first: the card shows an order's most troubling delivery.
const DELIVERY_SEVERITY = ['failed', 'unknown', 'pending', 'sent', 'refunded', 'done'];

function ledgerView(r: {
  id: number;
  amount: number | string;
  reason: string;
  note: string | null;
  author: string | null;
  created_at: number | string;
}): LedgerEntryView {
  return { id: r.id, amount: toRoubles(Number(r.amount)), reason: r.reason, note: r.note, author: r.author, created_at: iso(r.created_at) };
}

/** A player's card: the account, and the latest of its orders, top-ups, privileges, balance moves and sessions. */
export async function userCard(ctx: AppContext, id: number): Promise<UserCard> {
  const user = await findActiveUser(ctx.db, 'sqlite', id);
  if (!user) throw notFound(TEXTS.notFound);
  const now = Date.now();
  const [orders, ledger, sessions, privileges, payments] = await Promise.all([
    repo.ordersOf(ctx.db, id, 50),
    repo.ledgerOf(ctx.db, id, 100),
    repo.sessionsOf(ctx.db, id, now),
    repo.privilegesOf(ctx.db, id),
    userPayments.ask()(ctx, id, 50),
  ]);
  const states = new Map<number, string>();
  for (const d of await repo.deliveryStatesOf(
    ctx.db,
    orders.map((o) => o.id),
  )) {
    if (d.source_id === null) continue;
    const had = states.get(d.source_id);
    if (had === undefined || DELIVERY_SEVERITY.indexOf(d.state) < DELIVERY_SEVERITY.indexOf(had)) states.set(d.source_id, d.state);
  }
  return {
    user: toAdminUser(user),
    uuid: user.uuid,
    orders: orders.map((o) => ({
      id: o.id,
      item_name: o.item_name,
      quantity: o.quantity,
      total: toRoubles(Number(o.total)),
      delivery: states.get(o.id) ?? null,
      created_at: iso(o.created_at),
    })),
    payments,
    privileges: privileges.map((p) => ({
      title: p.tier_title,
      ends_at: iso(p.expires_at),
      active: p.ended_at === null && Number(p.expires_at) > now,
    })),
    ledger: ledger.map(ledgerView),
    sessions: sessions.map((s) => ({ created_at: iso(s.created_at), expires_at: iso(s.expires_at), user_agent: s.user_agent, ip: s.ip })),
    two_factor: await secondFactor.ask().isOn(ctx.db, id),
  };
}

/**
 * «+ / − сумма» with a comment: one `adjustment` row in the ledger carrying the comment, the
 * balance moved by a conditional update (never below zero), the audit entry in the same transaction.
 */
export async function changeBalance(ctx: AppContext, actor: User, id: number, body: BalanceChangeBody): Promise<BalanceChangeResponse> {
  const kopecks = Math.round(body.amount * 100);
  // The schema refuses these too; a ledger row of 0 kopecks is never written.
  if (kopecks === 0) throw badRequest(ZERO_KOPECKS_TEXT, { code: 'zero_amount', field: 'amount' });
  return ctx.db.transaction().execute(async (trx) => {
    const before = await findActiveUser(trx, ctx.dbKind, id);
    if (!before) throw notFound(TEXTS.notFound);
    assertMayManage(actor, before);
    let balance: number;
    try {
      balance = await postLedger(trx, { userId: id, amount: kopecks, reason: 'adjustment', authorId: actor.id, note: body.comment });
    } catch (err) {
      if (err instanceof InsufficientFunds)
        throw conflict(TEXTS.balanceBelowZero(rub(Number(before.balance))), { code: 'insufficient_funds', field: 'amount' });
      throw err;
    }
    await notify(trx, id, {
      kind: 'balance',
      title: `${kopecks > 0 ? 'Начислено' : 'Списано'} ${rubles(kopecks)}`,
      body: body.comment,
      link: '/profile',
      data: { amount: toRoubles(kopecks) },
    });
    const [entry] = await repo.ledgerOf(trx, id, 1);
    await recordAudit(trx, {
      actorId: actor.id,
      action: 'user.balance',
      entity: 'user',
      entityId: id,
      before: { username: before.username, balance: toRoubles(Number(before.balance)) },
      after: { username: before.username, balance: toRoubles(balance), change: toRoubles(kopecks), comment: body.comment },
    });
    return { balance: toRoubles(balance), entry: ledgerView(entry!), message: TEXTS.balanceChanged };
  });
}
