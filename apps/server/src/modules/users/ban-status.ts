import type { User } from './users.repo.ts';
import type { BanInfo } from '@kubik/contract';
import type { Db } from '../../db/index.ts';
import { forbidden } from '../../lib/errors.ts';
import { banAppealToken } from './users.ports.ts';

/**
 * Whether an account is banned, read from its own row (users.banned_at, ban_until, ban_reason),
 * so every login path — the site, Yggdrasil, GravitLauncher — and every session lookup decides
 * without another query. The bans feature sets and lifts bans and keeps their history.
 */
export type BanFields = Pick<User, 'banned_at' | 'ban_until' | 'ban_reason'>;

export interface BanState {
  reason: string;
  /** Epoch ms; null: forever. */
  until: number | null;
  since: number;
}

/** The ban in force, or null. A ban whose end has passed no longer counts, even before the expiry job lifts it. */
export function activeBan(user: BanFields, now = Date.now()): BanState | null {
  if (user.banned_at === null) return null;
  const until = user.ban_until === null ? null : Number(user.ban_until);
  if (until !== null && until <= now) return null;
  return { reason: user.ban_reason ?? '', until, since: Number(user.banned_at) };
}

const dateFormat = new Intl.DateTimeFormat('ru-RU', {
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'Europe/Moscow',
});

/** «01.12.2026, 14:05 (МСК)» — the site's players are in Moscow time unless they say otherwise. */
export function banEndText(until: number): string {
  return `${dateFormat.format(new Date(until))} (МСК)`;
}

/** «Аккаунт заблокирован до 01.12.2026, 14:05 (МСК): причина» / «Аккаунт заблокирован навсегда: причина». */
export function banText(ban: Pick<BanState, 'reason' | 'until'>): string {
  const when = ban.until === null ? 'навсегда' : `до ${banEndText(ban.until)}`;
  return `Аккаунт заблокирован ${when}${ban.reason ? `: ${ban.reason}` : ''}`;
}

/** The site login's refusal of a banned account: 403 with the reason and end (code `banned`, `ban` in the body). */
export function assertNotBanned(user: BanFields, now = Date.now()): void {
  const ban = activeBan(user, now);
  if (ban)
    throw forbidden(banText(ban), {
      code: 'banned',
      extra: { ban: { reason: ban.reason, until: ban.until, since: ban.since, text: banText(ban) } },
    });
}

/**
 * The password login's refusal of a banned account: assertNotBanned's 403, whose `ban` also
 * carries `appeal_token` (a signed appeal link's token, when support answers): the password and
 * the second factor were right, so the caller is the account's owner.
 */
export async function refuseBannedLogin(db: Db, user: BanFields & { id: number }, now = Date.now()): Promise<void> {
  const ban = activeBan(user, now);
  if (!ban) return;
  const token = await banAppealToken.ask()(db, user.id, ban.since);
  throw forbidden(banText(ban), { code: 'banned', extra: { ban: { ...banInfo(ban), ...(token ? { appeal_token: token } : {}) } } });
}

export function banInfo(state: BanState): BanInfo {
  return { reason: state.reason, until: state.until, since: state.since, text: banText(state) };
}

/** The ban in force on a user row, as the API shows it. */
export function banOf(user: BanFields, now = Date.now()): BanInfo | null {
  const state = activeBan(user, now);
  return state ? banInfo(state) : null;
}
