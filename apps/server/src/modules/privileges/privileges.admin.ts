import type { AdminPrivilege, AdminPrivilegeGrantBody } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import { recordAudit } from '../audit/audit.service.ts';
import * as donateRepo from '../donate/donate.repo.ts';
import { lockPlayer } from '../purchases/purchases.service.ts';
import { endPrivilege, place, plan, queueGrant } from './privileges.placement.ts';
import * as repo from './privileges.repo.ts';
import { DAY_MS, running, TEXTS, type PrivilegeRow } from './privileges.service.ts';

// The admin's privileges: who holds what, grants by hand, a new end, a revoke; each audited.

function toAdmin(r: PrivilegeRow & { username: string }, now: number): AdminPrivilege {
  return {
    id: r.id,
    user_id: r.user_id,
    username: r.username,
    tier_id: r.tier_id,
    title: r.tier_title,
    starts_at: Number(r.starts_at),
    expires_at: Number(r.expires_at),
    ended_at: r.ended_at === null ? null : Number(r.ended_at),
    end_reason: r.end_reason,
    active: running(r, now),
    granted_by: r.granted_by,
    created_at: Number(r.created_at),
  };
}

export async function listAdmin(db: Db, query: { active?: '1' | '0'; username?: string }): Promise<AdminPrivilege[]> {
  const ended = query.active === '1' ? false : query.active === '0' ? true : undefined;
  const rows = await repo.listWithHolders(db, { ended, username: query.username }, 500);
  const now = Date.now();
  return rows.map((r) => toAdmin(r, now));
}

async function adminOne(db: Db, id: number): Promise<AdminPrivilege> {
  const row = await repo.findWithHolder(db, id);
  if (!row) throw notFound(TEXTS.privilegeNotFound);
  return toAdmin(row, Date.now());
}

/** A grant by hand: as a purchase without money or credit (extends the same tier, replaces a lower one, refuses a downgrade). */
export async function grant(ctx: AppContext, actorId: number, body: AdminPrivilegeGrantBody): Promise<AdminPrivilege> {
  const id = await ctx.db.transaction().execute(async (trx) => {
    const user = await repo.findLivePlayer(trx, body.username);
    if (!user) throw badRequest(TEXTS.userNotFound, { code: 'user_not_found', field: 'username' });
    await lockPlayer(trx, ctx.dbKind, user.id);
    const now = Date.now();
    const tiers = await donateRepo.listTiers(trx);
    const tier = tiers.find((t) => t.id === body.tier_id);
    if (!tier) throw badRequest(TEXTS.notFound, { code: 'tier_not_found', field: 'tier_id' });
    const p = await plan(trx, { userId: user.id, tier, tiers, addMs: body.days * DAY_MS, now, creditUpTo: 0 });
    const privilegeId = await place(trx, p, { userId: user.id, tier, now, grantedBy: actorId });
    await queueGrant(trx, tier, privilegeId, user.id, p.expiresAt, now);
    await recordAudit(trx, {
      actorId,
      action: 'privilege.grant',
      entity: 'privilege',
      entityId: privilegeId,
      after: {
        player: user.username,
        tier: tier.title,
        days: body.days,
        expires_at: p.expiresAt,
        ...(p.kind === 'upgrade' && p.current && { replaced: p.current.tier_title }),
      },
    });
    return privilegeId;
  });
  return adminOne(ctx.db, id);
}

/** A new end; one not in the future ends the privilege now (its revoke commands queued). */
export async function setEnd(ctx: AppContext, actorId: number, id: number, expiresAt: number): Promise<AdminPrivilege> {
  await ctx.db.transaction().execute(async (trx) => {
    const now = Date.now();
    const row = await repo.findPrivilege(trx, id);
    if (!row) throw notFound(TEXTS.privilegeNotFound);
    await lockPlayer(trx, ctx.dbKind, row.user_id);
    if (row.ended_at !== null) throw conflict(TEXTS.alreadyEnded, { code: 'ended' });
    const before = { expires_at: Number(row.expires_at), ended_at: null };
    let after: { expires_at: number; ended_at: number | null };
    if (expiresAt <= now) {
      if (!(await endPrivilege(trx, row, 'expired', now, now))) throw conflict(TEXTS.alreadyEnded, { code: 'ended' });
      after = { expires_at: now, ended_at: now };
    } else {
      await repo.moveEnd(trx, id, expiresAt, now);
      after = { expires_at: expiresAt, ended_at: null };
    }
    await recordAudit(trx, {
      actorId,
      action: 'privilege.update',
      entity: 'privilege',
      entityId: id,
      before: { tier: row.tier_title, ...before },
      after: { tier: row.tier_title, ...after },
    });
  });
  return adminOne(ctx.db, id);
}

export async function revoke(ctx: AppContext, actorId: number, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const now = Date.now();
    const row = await repo.findPrivilege(trx, id);
    if (!row) throw notFound(TEXTS.privilegeNotFound);
    await lockPlayer(trx, ctx.dbKind, row.user_id);
    if (!(await endPrivilege(trx, row, 'revoked', now))) throw conflict(TEXTS.alreadyEnded, { code: 'ended' });
    await recordAudit(trx, {
      actorId,
      action: 'privilege.revoke',
      entity: 'privilege',
      entityId: id,
      before: { tier: row.tier_title, expires_at: Number(row.expires_at), ended_at: null },
      after: { tier: row.tier_title, ended_at: now, end_reason: 'revoked' },
    });
  });
}
