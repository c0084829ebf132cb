import { isRoubles, PRIVILEGE_MONTH_DAYS, type PrivilegePurchaseKind } from '@kubik/contract';
import type { Db } from '../../db/index.ts';
import { conflict } from '../../lib/errors.ts';
import { enqueueDelivery, type DeliveryTarget } from '../deliveries/deliveries.queue.ts';
import { listOf } from '../donate/donate.service.ts';
import * as donateRepo from '../donate/donate.repo.ts';
import * as repo from './privileges.repo.ts';
import { DAY_MS, TEXTS, type PrivilegeRow, type TierRow } from './privileges.service.ts';

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

/** Queues a tier's grant commands for a privilege that now runs until `expiresAt`. */
export async function queueGrant(
  trx: Db,
  tier: TierRow,
  privilegeId: number,
  userId: number,
  expiresAt: number,
  now: number,
): Promise<void> {
  const commands = listOf<string>(tier.grant_commands);
  if (commands.length === 0) return;
  const days = Math.max(1, Math.ceil((expiresAt - now) / DAY_MS));
  await enqueueDelivery(trx, {
    source: 'privilege_grant',
    sourceId: privilegeId,
    userId,
    label: `${tier.title.slice(0, 150)} на ${days} дн.`,
    server: tierServers(tier),
    commands,
    params: { tier: tierWord(tier.title), days, expires: expiresWord(expiresAt) },
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
  const tier = await donateRepo.findTier(trx, row.tier_id);
  const commands = tier ? listOf<string>(tier.revoke_commands) : [];
  if (tier && commands.length > 0) {
    await enqueueDelivery(trx, {
      source: 'privilege_revoke',
      sourceId: row.id,
      userId: row.user_id,
      label: `${tier.title.slice(0, 150)}: окончание`,
      server: tierServers(tier),
      commands,
      params: { tier: tierWord(tier.title), days: 0, expires: expiresWord(expiresAt ?? Math.min(Number(row.expires_at), now)) },
    });
  }
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
