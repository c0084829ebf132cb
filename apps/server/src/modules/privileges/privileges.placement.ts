import { isRoubles, PRIVILEGE_MONTH_DAYS, type PrivilegePurchaseKind } from '@kubik/contract';
import type { Db } from '../../db/index.ts';
import { conflict } from '../../lib/errors.ts';
import { enqueueDelivery, type DeliveryTarget } from '../deliveries/deliveries.queue.ts';
import { listOf } from '../donate/donate.service.ts';
import * as donateRepo from '../donate/donate.repo.ts';
import * as repo from './privileges.repo.ts';
import { DAY_MS, MONTH_MS, TEXTS, type PrivilegeRow, type TierRow } from './privileges.service.ts';

// The one running privilege of a player: what a purchase or a grant would do to it (plan), doing
// it (place), ending it (endPrivilege), and the grant and revoke commands that go with each.

/** A tier's word for {tier}: its title with anything but letters, digits and _ . : + - replaced by _. */
export function tierWord(title: string): string {
  return title.replace(/[^\p{L}\p{N}_.:+-]+/gu, '_').slice(0, 64) || 'tier';
}

const expiresWord = (ms: number) => new Date(ms).toISOString().slice(0, 19) + 'Z';

/** The servers a tier's commands run on: its own list, or every server. */
export function tierServers(tier: TierRow | undefined): DeliveryTarget {
  const ids = tier ? listOf<number>(tier.server_ids) : [];
  return ids.length > 0 ? ids : 'all';
}

/**
 * Who a tier's commands are for: an account's privilege (sourced to it), or a nickname without
 * an account whose guest order holds the tier (the guest's deliveries, taken by the account
 * registered later with that nickname).
 */
export type TierHolder = { privilegeId: number; userId: number } | { guest: { userId: number | null; playerName: string } };

function holderFields(h: TierHolder, source: 'privilege_grant' | 'privilege_revoke') {
  if ('guest' in h)
    return {
      source: 'guest' as const,
      sourceId: null,
      userId: h.guest.userId,
      ...(h.guest.userId === null ? { playerName: h.guest.playerName } : {}),
    };
  return { source, sourceId: h.privilegeId, userId: h.userId };
}

/** Queues a tier's grant commands for a privilege that now runs until `expiresAt`. */
export async function queueGrant(
  trx: Db,
  tier: TierRow,
  privilegeId: number,
  userId: number,
  expiresAt: number,
  now: number,
): Promise<void> {
  await queueTierGrant(trx, tier, { privilegeId, userId }, expiresAt, now);
}

/** Queues a tier's grant commands for its holder, the privilege running until `expiresAt`. */
export async function queueTierGrant(trx: Db, tier: TierRow, holder: TierHolder, expiresAt: number, now: number): Promise<void> {
  const commands = listOf<string>(tier.grant_commands);
  if (commands.length === 0) return;
  const days = Math.max(1, Math.ceil((expiresAt - now) / DAY_MS));
  await enqueueDelivery(trx, {
    ...holderFields(holder, 'privilege_grant'),
    label: `${tier.title.slice(0, 150)} на ${days} дн.`,
    server: tierServers(tier),
    commands,
    params: { tier: tierWord(tier.title), days, expires: expiresWord(expiresAt) },
  });
}

/** Queues the revoke commands of a tier (by id: a deleted tier has none) that ended for its holder at `endedAt`. */
export async function queueTierRevoke(trx: Db, tierId: number, holder: TierHolder, endedAt: number): Promise<void> {
  const tier = await donateRepo.findTier(trx, tierId);
  const commands = tier ? listOf<string>(tier.revoke_commands) : [];
  if (!tier || commands.length === 0) return;
  await enqueueDelivery(trx, {
    ...holderFields(holder, 'privilege_revoke'),
    label: `${tier.title.slice(0, 150)}: окончание`,
    server: tierServers(tier),
    commands,
    params: { tier: tierWord(tier.title), days: 0, expires: expiresWord(endedAt) },
  });
}

/**
 * Ends a running privilege now, once: the conditional update lets exactly one caller (the expiry
 * job on any instance, an upgrade, an admin) through, and its revoke commands are queued in the
 * same transaction. Returns whether this call ended it.
 */
export async function endPrivilege(
  trx: Db,
  row: PrivilegeRow,
  reason: 'expired' | 'upgraded' | 'revoked',
  now: number,
  expiresAt?: number,
): Promise<boolean> {
  if (!(await repo.markEnded(trx, row.id, reason, now, expiresAt))) return false;
  await queueTierRevoke(trx, row.tier_id, { privilegeId: row.id, userId: row.user_id }, expiresAt ?? Math.min(Number(row.expires_at), now));
  return true;
}

/** What putting a tier on a player for some time would do, read before doing it (the quote shows it, place does it). */
export interface Plan {
  kind: PrivilegePurchaseKind;
  /** A running privilege of another tier past its end that the expiry job has not reached: ended first, credits nothing. */
  stale: PrivilegeRow | null;
  /** The running privilege this one extends (`extend`) or replaces (`upgrade`). */
  current: PrivilegeRow | null;
  /** The replaced privilege's title and its whole unused days. */
  replaces: { title: string; unusedDays: number } | null;
  /** Kopecks of the replaced tier's unused days counted toward the price. */
  credit: number;
  /** An extension runs on from the current end; anything else from now. */
  startsAt: number;
  expiresAt: number;
}

/**
 * Plans `tier` on the player for `addMs` more: extends the running privilege of the same tier
 * from its end; replaces a lower one (crediting its unused days, up to `creditUpTo` kopecks, when
 * that tier is sold in roubles); refuses (409 downgrade) while a higher one runs. A deleted tier
 * ranks lowest: anything replaces it.
 */
export async function plan(
  trx: Db,
  opts: { userId: number; tier: TierRow; tiers: TierRow[]; addMs: number; now: number; creditUpTo: number },
): Promise<Plan> {
  const { tier, tiers, addMs, now } = opts;
  const rank = (id: number) => tiers.findIndex((t) => t.id === id);
  let current: PrivilegeRow | null = (await repo.runningRow(trx, opts.userId)) ?? null;
  let stale: PrivilegeRow | null = null;
  if (current && current.tier_id !== tier.id && Number(current.expires_at) <= now) [stale, current] = [current, null];
  if (current && current.tier_id === tier.id) {
    const startsAt = Math.max(Number(current.expires_at), now);
    return { kind: 'extend', stale, current, replaces: null, credit: 0, startsAt, expiresAt: startsAt + addMs };
  }
  if (!current) return { kind: 'new', stale, current, replaces: null, credit: 0, startsAt: now, expiresAt: now + addMs };
  const held = tiers.find((t) => t.id === current.tier_id);
  if (held && rank(held.id) > rank(tier.id)) throw conflict(TEXTS.downgrade(held.title, tier.title), { code: 'downgrade' });
  const unusedDays = Math.floor((Number(current.expires_at) - now) / DAY_MS);
  const credit =
    held && isRoubles(held.currency)
      ? Math.min(opts.creditUpTo, Math.floor((Number(held.amount_minor) * unusedDays) / PRIVILEGE_MONTH_DAYS))
      : 0;
  return {
    kind: 'upgrade',
    stale,
    current,
    replaces: { title: held?.title ?? current.tier_title, unusedDays },
    credit,
    startsAt: now,
    expiresAt: now + addMs,
  };
}

/** Does what the plan says: ends what it ends, then extends the running row or starts a new one. Returns the privilege's id. */
export async function place(
  trx: Db,
  p: Plan,
  opts: { userId: number; tier: TierRow; now: number; grantedBy: number | null },
): Promise<number> {
  const { tier, now } = opts;
  if (p.stale) await endPrivilege(trx, p.stale, 'expired', now);
  if (p.kind === 'extend' && p.current) {
    await repo.extend(trx, p.current.id, p.expiresAt, tier.title, now);
    return p.current.id;
  }
  if (p.current) await endPrivilege(trx, p.current, 'upgraded', now);
  return repo.insertPrivilege(trx, {
    user_id: opts.userId,
    tier_id: tier.id,
    tier_title: tier.title,
    starts_at: now,
    expires_at: p.expiresAt,
    ended_at: null,
    end_reason: null,
    reminded_at: null,
    granted_by: opts.grantedBy,
    created_at: now,
    updated_at: now,
  });
}

/**
 * A tier paid straight to a provider for an account (a guest's order for its nickname), by the
 * purchase's rules without a credit (the payer cannot see the holder's privilege, and the sum was
 * fixed when the order was made): placed, recorded as its purchase (no ledger row: no balance
 * was used), its grant queued. Throws what the purchase refuses (409 downgrade).
 */
export async function placePaid(
  trx: Db,
  opts: { userId: number; tier: TierRow; tiers: TierRow[]; months: number; amount: number; now: number },
): Promise<{ privilegeId: number; expiresAt: number }> {
  const { userId, tier, months, now } = opts;
  const p = await plan(trx, { userId, tier, tiers: opts.tiers, addMs: months * MONTH_MS, now, creditUpTo: 0 });
  const privilegeId = await place(trx, p, { userId, tier, now, grantedBy: null });
  await repo.insertPurchase(trx, {
    privilege_id: privilegeId,
    user_id: userId,
    paid_by: null,
    tier_id: tier.id,
    months,
    price: opts.amount,
    credit: 0,
    total: opts.amount,
    replaced_id: p.kind === 'upgrade' ? (p.current?.id ?? null) : null,
    created_at: now,
  });
  await queueTierGrant(trx, tier, { privilegeId, userId }, p.expiresAt, now);
  return { privilegeId, expiresAt: p.expiresAt };
}

/**
 * A new account takes a tier its nickname holds through a paid guest order: the privilege as it
 * runs (from the payment to its end), recorded as its purchase. Its grant ran in the game for the
 * nickname already, so nothing is queued. Null when the account already runs one (the order keeps
 * holding its tier until its end).
 */
export async function adoptPaid(
  trx: Db,
  opts: { userId: number; tierId: number; title: string; months: number; amount: number; startsAt: number; expiresAt: number; now: number },
): Promise<number | null> {
  if (await repo.runningRow(trx, opts.userId)) return null;
  const privilegeId = await repo.insertPrivilege(trx, {
    user_id: opts.userId,
    tier_id: opts.tierId,
    tier_title: opts.title.slice(0, 100),
    starts_at: opts.startsAt,
    expires_at: opts.expiresAt,
    ended_at: null,
    end_reason: null,
    reminded_at: null,
    granted_by: null,
    created_at: opts.now,
    updated_at: opts.now,
  });
  await repo.insertPurchase(trx, {
    privilege_id: privilegeId,
    user_id: opts.userId,
    paid_by: null,
    tier_id: opts.tierId,
    months: opts.months,
    price: opts.amount,
    credit: 0,
    total: opts.amount,
    replaced_id: null,
    created_at: opts.startsAt,
  });
  return privilegeId;
}
