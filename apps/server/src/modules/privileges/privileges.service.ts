import { PRIVILEGE_MONTH_DAYS, PRIVILEGE_TEXTS, type UserPrivilege } from '@kubik/contract';
import type { Db } from '../../db/index.ts';
import { deliveriesOf, latestBatch, statusOf } from '../deliveries/deliveries.service.ts';
import { kitsOf } from '../donate/donate.service.ts';
import * as donateRepo from '../donate/donate.repo.ts';
import type { LedgerRefDetail } from '../users/users.ports.ts';
import * as repo from './privileges.repo.ts';

// The player's privileges as they stand. Changing them: privileges.placement.ts (the one running
// privilege), privileges.purchase.ts, privileges.kits.ts, privileges.admin.ts.

export const TEXTS = {
  ...PRIVILEGE_TEXTS,
  noKitCommands: (command: string) => (command ? `Этот набор получают в игре: ${command}` : 'Этот набор получают в игре'),
} as const;

export const DAY_MS = 86_400_000;
export const MONTH_MS = PRIVILEGE_MONTH_DAYS * DAY_MS;
/** The reminder letter goes this long before the end. */
export const REMIND_BEFORE_MS = 3 * DAY_MS;

export type PrivilegeRow = repo.PrivilegeRow;
export type TierRow = donateRepo.TierRow;

export const running = (p: Pick<PrivilegeRow, 'ended_at' | 'expires_at' | 'starts_at'>, now: number) =>
  p.ended_at === null && Number(p.expires_at) > now && Number(p.starts_at) <= now;

/** The player's privileges, newest first; the running one with its kits and when each can be claimed. */
export async function listMine(db: Db, userId: number, now = Date.now()): Promise<UserPrivilege[]> {
  const rows = await repo.recentPrivileges(db, userId, 50);
  const claims = await repo.lastKitClaims(db, userId);
  const lastClaim = new Map(claims.map((c) => [Number(c.kit_id), Number(c.last)]));
  // What the card says about the game: the privilege's last grant, each kit's last claim.
  const claimOf = new Map(claims.map((c) => [Number(c.kit_id), Number(c.claim_id)]));
  const grants = await deliveriesOf(
    db,
    'privilege_grant',
    rows.map((r) => r.id),
  );
  const kitDeliveries = await deliveriesOf(db, 'kit', [...claimOf.values()]);
  const tiers = new Map((await donateRepo.listTiers(db)).map((t) => [t.id, t]));
  return rows.map((r) => {
    const active = running(r, now);
    const tier = tiers.get(r.tier_id);
    const kits = active && tier ? kitsOf(tier) : [];
    return {
      id: r.id,
      tier_id: r.tier_id,
      title: tier?.title ?? r.tier_title,
      starts_at: Number(r.starts_at),
      expires_at: Number(r.expires_at),
      active,
      ended_at: r.ended_at === null ? null : Number(r.ended_at),
      delivery: statusOf(latestBatch(grants.get(r.id))),
      kits: kits.map((k) => {
        const last = lastClaim.get(k.id);
        const next = last === undefined ? null : last + k.period * DAY_MS;
        const claimId = claimOf.get(k.id);
        return {
          id: k.id,
          name: k.name,
          description: k.description,
          command: k.command,
          period: k.period,
          kitImg: k.kitImg,
          in_game: k.give_commands.length === 0,
          next_claim_at: next !== null && next > now ? next : null,
          last_claimed_at: last ?? null,
          delivery: claimId === undefined ? null : statusOf(kitDeliveries.get(claimId)),
        };
      }),
    };
  });
}

/**
 * The privilege running now (the latest-ending one), as a public profile shows it: not one whose
 * last grant the game refused — the cabinet (listMine) and the history call that «Ошибка выдачи»,
 * so the profile does not show it as held either.
 */
export async function currentTierOf(db: Db, userId: number, now: number): Promise<{ title: string; expires_at: number } | null> {
  const row = await repo.currentPrivilege(db, userId, now);
  if (!row) return null;
  const grants = await deliveriesOf(db, 'privilege_grant', [row.id]);
  if (statusOf(latestBatch(grants.get(row.id)))?.state === 'failed') return null;
  return { title: row.tier_title, expires_at: Number(row.expires_at) };
}

/**
 * The history's view of tier purchases (ledger refs `privilege:<purchase id>`): the tier and its
 * months, an upgrade told apart, and the grant deliveries that purchase queued — those of its
 * privilege queued with it, before the next purchase of the same privilege.
 */
export async function purchaseDetails(db: Db, ids: number[]): Promise<Map<number, LedgerRefDetail>> {
  const out = new Map<number, LedgerRefDetail>();
  if (ids.length === 0) return out;
  const rows = await repo.purchasesWithTitles(db, ids);
  if (rows.length === 0) return out;
  const privilegeIds = [...new Set(rows.map((r) => r.privilege_id))];
  const later = await repo.purchaseTimes(db, privilegeIds);
  const grants = await deliveriesOf(db, 'privilege_grant', privilegeIds);
  for (const r of rows) {
    const at = Number(r.created_at);
    const next = Math.min(
      at + 60_000,
      ...later.filter((l) => l.privilege_id === r.privilege_id && Number(l.created_at) > at).map((l) => Number(l.created_at)),
    );
    out.set(r.id, {
      title: `${r.tier_title} на ${r.months} мес.`,
      label: r.replaced_id !== null ? 'Улучшение привилегии' : null,
      deliveries: (grants.get(r.privilege_id) ?? []).filter((d) => d.created_at >= at && d.created_at < next),
    });
  }
  return out;
}
