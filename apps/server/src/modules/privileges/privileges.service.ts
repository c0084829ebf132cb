import {
  durationText,
  isRoubles,
  periodTotalKopecks,
  PRIVILEGE_MONTH_DAYS,
  PRIVILEGE_TEXTS,
  type AdminPrivilege,
  type AdminPrivilegeGrantBody,
  type KitClaimResponse,
  type PrivilegeBuyResponse,
  type UserPrivilege,
} from '@kubik/contract';
import type { Selectable } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Db, DbKind } from '../../db/index.ts';
import { badRequest, conflict, HttpError, isUniqueViolation, notFound } from '../../lib/errors.ts';
import type { ScheduledJobSpec } from '../../lib/jobs/index.ts';
import { toRoubles } from '../../lib/money.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { enqueueDelivery, type DeliveryTarget } from '../deliveries/deliveries.queue.ts';
import { kitsOf, listOf, periodsOf } from '../donate/donate.service.ts';
import * as donateRepo from '../donate/donate.repo.ts';
import { InsufficientFunds, postLedger } from '../ledger/ledger.service.ts';
import type { PrivilegesTable } from './privileges.tables.ts';

export const TEXTS = {
  ...PRIVILEGE_TEXTS,
  keyReused: 'Этот ключ Idempotency-Key уже использован для другой покупки',
  keyInFlight: 'Эта покупка уже выполняется. Обновите страницу через несколько секунд.',
  noKitCommands: (command: string) => (command ? `Этот набор получают в игре: ${command}` : 'Этот набор получают в игре'),
} as const;

export const DAY_MS = 86_400_000;
export const MONTH_MS = PRIVILEGE_MONTH_DAYS * DAY_MS;
/** The reminder letter goes this long before the end. */
export const REMIND_BEFORE_MS = 3 * DAY_MS;

type PrivilegeRow = Selectable<PrivilegesTable>;
type TierRow = donateRepo.TierRow;

const running = (p: Pick<PrivilegeRow, 'ended_at' | 'expires_at' | 'starts_at'>, now: number) =>
  p.ended_at === null && Number(p.expires_at) > now && Number(p.starts_at) <= now;

/**
 * Serializes a player's privilege changes: on PostgreSQL the user's row is locked for the rest of
 * the transaction, so concurrent purchases and claims by one player run one after another and
 * each sees what the previous one wrote. SQLite has one writer at a time already.
 */
async function lockUser(trx: Db, kind: DbKind, userId: number): Promise<void> {
  if (kind === 'pg') await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
}

/** A tier's word for {tier}: its title with anything but letters, digits and _ . : + - replaced by _. */
export function tierWord(title: string): string {
  return title.replace(/[^\p{L}\p{N}_.:+-]+/gu, '_').slice(0, 64) || 'tier';
}

const expiresWord = (ms: number) => new Date(ms).toISOString().slice(0, 19) + 'Z';

function target(tier: TierRow | undefined): DeliveryTarget {
  const ids = tier ? listOf<number>(tier.server_ids) : [];
  return ids.length > 0 ? ids : 'all';
}

/** Queues a tier's grant commands for a privilege that now runs until `expiresAt`. */
async function queueGrant(trx: Db, tier: TierRow, privilegeId: number, userId: number, expiresAt: number, now: number): Promise<void> {
  const commands = listOf<string>(tier.grant_commands);
  if (commands.length === 0) return;
  const days = Math.max(1, Math.ceil((expiresAt - now) / DAY_MS));
  await enqueueDelivery(trx, {
    source: 'privilege_grant',
    sourceId: privilegeId,
    userId,
    label: `${tier.title.slice(0, 150)} на ${days} дн.`,
    server: target(tier),
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
  const done = await trx
    .updateTable('privileges')
    .set({ ended_at: now, end_reason: reason, updated_at: now, ...(expiresAt !== undefined && { expires_at: expiresAt }) })
    .where('id', '=', row.id)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  if (Number(done.numUpdatedRows) !== 1) return false;
  const tier = await donateRepo.findTier(trx, row.tier_id);
  const commands = tier ? listOf<string>(tier.revoke_commands) : [];
  if (tier && commands.length > 0) {
    await enqueueDelivery(trx, {
      source: 'privilege_revoke',
      sourceId: row.id,
      userId: row.user_id,
      label: `${tier.title.slice(0, 150)}: окончание`,
      server: target(tier),
      commands,
      params: { tier: tierWord(tier.title), days: 0, expires: expiresWord(expiresAt ?? Math.min(Number(row.expires_at), now)) },
    });
  }
  return true;
}

function runningRow(trx: Db, userId: number) {
  return trx.selectFrom('privileges').selectAll().where('user_id', '=', userId).where('ended_at', 'is', null).executeTakeFirst();
}

interface Placement {
  privilegeId: number;
  expiresAt: number;
  credit: number;
  replacedId: number | null;
  kind: 'new' | 'extended' | 'upgraded';
  replacedTitle: string | null;
}

/**
 * Puts `tier` on the player for `addMs` more: extends the running privilege of the same tier from
 * its end; ends a lower one (crediting its unused days when `credit` is on) and starts this one;
 * refuses when a higher one runs. A privilege whose time ran out but that the expiry job has not
 * reached yet is ended here first (or, of the same tier, continued from now).
 */
async function place(
  trx: Db,
  opts: {
    userId: number;
    tier: TierRow;
    tiers: TierRow[];
    addMs: number;
    now: number;
    credit: boolean;
    grantedBy: number | null;
    maxCredit: number;
  },
): Promise<Placement> {
  const { userId, tier, tiers, addMs, now } = opts;
  const rank = (id: number) => tiers.findIndex((t) => t.id === id);
  let current = await runningRow(trx, userId);
  if (current && current.tier_id !== tier.id && Number(current.expires_at) <= now) {
    await endPrivilege(trx, current, 'expired', now);
    current = undefined;
  }
  if (current && current.tier_id === tier.id) {
    const expiresAt = Math.max(Number(current.expires_at), now) + addMs;
    await trx
      .updateTable('privileges')
      .set({ expires_at: expiresAt, tier_title: tier.title, reminded_at: null, updated_at: now })
      .where('id', '=', current.id)
      .execute();
    return { privilegeId: current.id, expiresAt, credit: 0, replacedId: null, kind: 'extended', replacedTitle: null };
  }
  let credit = 0;
  let replaced: PrivilegeRow | null = null;
  if (current) {
    const held = tiers.find((t) => t.id === current.tier_id);
    // A deleted tier ranks lowest: anything replaces it.
    if (held && rank(held.id) > rank(tier.id)) throw conflict(TEXTS.downgrade(held.title, tier.title), { code: 'downgrade' });
    if (opts.credit && held && isRoubles(held.currency)) {
      const unusedDays = Math.floor((Number(current.expires_at) - now) / DAY_MS);
      credit = Math.min(opts.maxCredit, Math.floor((Number(held.amount_minor) * unusedDays) / PRIVILEGE_MONTH_DAYS));
    }
    await endPrivilege(trx, current, 'upgraded', now);
    replaced = current;
  }
  const expiresAt = now + addMs;
  const row = await trx
    .insertInto('privileges')
    .values({
      user_id: userId,
      tier_id: tier.id,
      tier_title: tier.title,
      starts_at: now,
      expires_at: expiresAt,
      ended_at: null,
      end_reason: null,
      reminded_at: null,
      granted_by: opts.grantedBy,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return {
    privilegeId: row.id,
    expiresAt,
    credit,
    replacedId: replaced?.id ?? null,
    kind: replaced ? 'upgraded' : 'new',
    replacedTitle: replaced?.tier_title ?? null,
  };
}

function replay(prev: { request: string; response: string | null }, request: string): PrivilegeBuyResponse {
  if (prev.request !== request) throw conflict(TEXTS.keyReused, { code: 'idempotency_key_reused' });
  if (!prev.response) throw conflict(TEXTS.keyInFlight, { code: 'idempotency_key_in_flight' });
  return JSON.parse(prev.response) as PrivilegeBuyResponse;
}

function findKey(db: Db, userId: number, key: string) {
  return db
    .selectFrom('privilege_idempotency')
    .select(['request', 'response'])
    .where('user_id', '=', userId)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Idempotency keys are kept a week, as the shop's. */
export function idempotencyCleanupJob(db: Db): ScheduledJobSpec {
  return {
    name: 'privileges.idempotency-cleanup',
    everyMs: 3_600_000,
    run: () =>
      db
        .deleteFrom('privilege_idempotency')
        .where('created_at', '<', Date.now() - 7 * DAY_MS)
        .execute(),
  };
}

/**
 * POST /api/donate/{id}/buy: in one transaction the player's row is locked, the privilege placed
 * (new, extended from its end, or replacing a lower tier with its unused days credited), the
 * balance debited by a conditional update with its ledger row, and the grant commands queued.
 * Anything refused leaves nothing behind.
 */
export async function buy(
  ctx: AppContext,
  userId: number,
  tierId: number,
  months: number,
  key: string | undefined,
): Promise<PrivilegeBuyResponse> {
  const request = `${tierId}:${months}`;
  if (key) {
    const prev = await findKey(ctx.db, userId, key);
    if (prev) return replay(prev, request);
  }
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      if (key)
        await trx
          .insertInto('privilege_idempotency')
          .values({ user_id: userId, key, request, response: null, created_at: Date.now() })
          .execute();
      await lockUser(trx, ctx.dbKind, userId);
      // Read after the lock: the previous purchase of this player has committed by now.
      const now = Date.now();
      const tiers = await donateRepo.listTiers(trx);
      const tier = tiers.find((t) => t.id === tierId);
      if (!tier) throw notFound(TEXTS.notFound);
      if (!isRoubles(tier.currency)) throw conflict(TEXTS.notSold, { code: 'not_sold' });
      const period = periodsOf(tier).find((p) => p.months === months);
      if (!period) throw badRequest(TEXTS.periodNotSold(months), { code: 'period_not_sold', field: 'months' });
      const price = periodTotalKopecks(Number(tier.amount_minor), months, period.discount);

      const placed = await place(trx, {
        userId,
        tier,
        tiers,
        addMs: months * MONTH_MS,
        now,
        credit: true,
        grantedBy: null,
        maxCredit: price,
      });
      const total = price - placed.credit;
      const purchase = await trx
        .insertInto('privilege_purchases')
        .values({
          privilege_id: placed.privilegeId,
          user_id: userId,
          tier_id: tier.id,
          months,
          price,
          credit: placed.credit,
          total,
          replaced_id: placed.replacedId,
          created_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      let balance: number;
      try {
        balance = await postLedger(trx, {
          userId,
          amount: -total,
          reason: 'purchase',
          authorId: userId,
          ref: `privilege:${purchase.id}`,
          note: `${tier.title} на ${months} мес.${placed.credit > 0 ? `, зачтено ${toRoubles(placed.credit)} ₽` : ''}`,
        });
      } catch (err) {
        if (err instanceof InsufficientFunds) throw badRequest(TEXTS.noFunds, { code: 'insufficient_funds' });
        throw err;
      }
      await queueGrant(trx, tier, placed.privilegeId, userId, placed.expiresAt, now);
      const message =
        placed.kind === 'extended'
          ? TEXTS.extended(tier.title)
          : placed.kind === 'upgraded'
            ? TEXTS.upgraded(placed.replacedTitle ?? '', tier.title)
            : TEXTS.bought(tier.title);
      const result: PrivilegeBuyResponse = {
        new_balance: toRoubles(balance),
        message,
        expires_at: placed.expiresAt,
        privilege_id: placed.privilegeId,
      };
      if (key)
        await trx
          .updateTable('privilege_idempotency')
          .set({ response: JSON.stringify(result) })
          .where('user_id', '=', userId)
          .where('key', '=', key)
          .execute();
      return result;
    });
  } catch (err) {
    if (key && isUniqueViolation(err)) {
      const prev = await findKey(ctx.db, userId, key);
      if (prev) return replay(prev, request);
    }
    throw err;
  }
}

/** The player's privileges, newest first; the running one with its kits and when each can be claimed. */
export async function listMine(db: Db, userId: number, now = Date.now()): Promise<UserPrivilege[]> {
  const rows = await db.selectFrom('privileges').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').limit(50).execute();
  const claims = await db
    .selectFrom('kit_claims')
    .select(['kit_id', (eb) => eb.fn.max<number>('claimed_at').as('last')])
    .where('user_id', '=', userId)
    .groupBy('kit_id')
    .execute();
  const lastClaim = new Map(claims.map((c) => [Number(c.kit_id), Number(c.last)]));
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
      kits: kits.map((k) => {
        const last = lastClaim.get(k.id);
        const next = last === undefined ? null : last + k.period * DAY_MS;
        return {
          id: k.id,
          name: k.name,
          description: k.description,
          command: k.command,
          period: k.period,
          kitImg: k.kitImg,
          next_claim_at: next !== null && next > now ? next : null,
        };
      }),
    };
  });
}

/** POST /api/donate/kits/{kitId}/claim: the holder and the period are checked under the player's lock; the claim and its delivery commit together. */
export async function claimKit(ctx: AppContext, userId: number, kitId: number): Promise<KitClaimResponse> {
  return ctx.db.transaction().execute(async (trx) => {
    await lockUser(trx, ctx.dbKind, userId);
    const now = Date.now();
    const tiers = await donateRepo.listTiers(trx);
    let found: { tier: TierRow; kit: ReturnType<typeof kitsOf>[number] } | undefined;
    for (const tier of tiers) {
      const kit = kitsOf(tier).find((k) => k.id === kitId);
      if (kit) found = { tier, kit };
    }
    if (!found) throw notFound(TEXTS.kitNotFound);
    const { tier, kit } = found;
    const held = await runningRow(trx, userId);
    if (!held || held.tier_id !== tier.id || !running(held, now))
      throw new HttpError(403, TEXTS.kitNotHeld(tier.title), { code: 'not_holder' });
    const last = await trx
      .selectFrom('kit_claims')
      .select((eb) => eb.fn.max<number>('claimed_at').as('last'))
      .where('user_id', '=', userId)
      .where('kit_id', '=', kitId)
      .executeTakeFirst();
    const lastAt = last?.last == null ? null : Number(last.last);
    if (lastAt !== null && lastAt + kit.period * DAY_MS > now) {
      const next = lastAt + kit.period * DAY_MS;
      throw conflict(TEXTS.kitCooldown(durationText(next - now)), { code: 'kit_cooldown', extra: { next_claim_at: next } });
    }
    if (kit.give_commands.length === 0) throw conflict(TEXTS.noKitCommands(kit.command), { code: 'kit_in_game' });
    const claim = await trx
      .insertInto('kit_claims')
      .values({ user_id: userId, kit_id: kitId, tier_id: tier.id, privilege_id: held.id, kit_name: kit.name, claimed_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    await enqueueDelivery(trx, {
      source: 'kit',
      sourceId: claim.id,
      userId,
      label: `Набор «${kit.name.slice(0, 150)}»`,
      server: target(tier),
      commands: kit.give_commands,
      params: { tier: tierWord(tier.title) },
    });
    return { message: TEXTS.kitClaimed(kit.name), next_claim_at: now + kit.period * DAY_MS };
  });
}

// ——— Admin ———

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

function adminRows(db: Db) {
  return db.selectFrom('privileges').innerJoin('users', 'users.id', 'privileges.user_id').selectAll('privileges').select('users.username');
}

export async function listAdmin(db: Db, query: { active?: '1' | '0'; username?: string }): Promise<AdminPrivilege[]> {
  let q = adminRows(db);
  if (query.active === '1') q = q.where('privileges.ended_at', 'is', null);
  if (query.active === '0') q = q.where('privileges.ended_at', 'is not', null);
  if (query.username) q = q.where('users.username_lower', '=', query.username.toLowerCase());
  const rows = await q.orderBy('privileges.id', 'desc').limit(500).execute();
  const now = Date.now();
  return rows.map((r) => toAdmin(r, now));
}

async function adminOne(db: Db, id: number): Promise<AdminPrivilege> {
  const row = await adminRows(db).where('privileges.id', '=', id).executeTakeFirst();
  if (!row) throw notFound(TEXTS.privilegeNotFound);
  return toAdmin(row, Date.now());
}

/** A grant by hand: as a purchase without money or credit (extends the same tier, replaces a lower one, refuses a downgrade). */
export async function grant(ctx: AppContext, actorId: number, body: AdminPrivilegeGrantBody): Promise<AdminPrivilege> {
  const id = await ctx.db.transaction().execute(async (trx) => {
    const user = await trx
      .selectFrom('users')
      .select(['id', 'username'])
      .where('username_lower', '=', body.username.toLowerCase())
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!user) throw badRequest(TEXTS.userNotFound, { code: 'user_not_found', field: 'username' });
    await lockUser(trx, ctx.dbKind, user.id);
    const now = Date.now();
    const tiers = await donateRepo.listTiers(trx);
    const tier = tiers.find((t) => t.id === body.tier_id);
    if (!tier) throw badRequest(TEXTS.notFound, { code: 'tier_not_found', field: 'tier_id' });
    const placed = await place(trx, {
      userId: user.id,
      tier,
      tiers,
      addMs: body.days * DAY_MS,
      now,
      credit: false,
      grantedBy: actorId,
      maxCredit: 0,
    });
    await queueGrant(trx, tier, placed.privilegeId, user.id, placed.expiresAt, now);
    await recordAudit(trx, {
      actorId,
      action: 'privilege.grant',
      entity: 'privilege',
      entityId: placed.privilegeId,
      after: {
        player: user.username,
        tier: tier.title,
        days: body.days,
        expires_at: placed.expiresAt,
        ...(placed.replacedId !== null && { replaced: placed.replacedTitle }),
      },
    });
    return placed.privilegeId;
  });
  return adminOne(ctx.db, id);
}

/** A new end; one not in the future ends the privilege now (its revoke commands queued). */
export async function setEnd(ctx: AppContext, actorId: number, id: number, expiresAt: number): Promise<AdminPrivilege> {
  await ctx.db.transaction().execute(async (trx) => {
    const now = Date.now();
    const row = await trx.selectFrom('privileges').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound(TEXTS.privilegeNotFound);
    await lockUser(trx, ctx.dbKind, row.user_id);
    if (row.ended_at !== null) throw conflict(TEXTS.alreadyEnded, { code: 'ended' });
    const before = { expires_at: Number(row.expires_at), ended_at: null };
    let after: { expires_at: number; ended_at: number | null };
    if (expiresAt <= now) {
      if (!(await endPrivilege(trx, row, 'expired', now, now))) throw conflict(TEXTS.alreadyEnded, { code: 'ended' });
      after = { expires_at: now, ended_at: now };
    } else {
      await trx
        .updateTable('privileges')
        .set({ expires_at: expiresAt, reminded_at: null, updated_at: now })
        .where('id', '=', id)
        .where('ended_at', 'is', null)
        .execute();
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
    const row = await trx.selectFrom('privileges').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound(TEXTS.privilegeNotFound);
    await lockUser(trx, ctx.dbKind, row.user_id);
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

/** The tiers a player holds at `now` (capes given to a tier). */
export async function heldTierIds(db: Db, userId: number, now: number): Promise<number[]> {
  const rows = await db
    .selectFrom('privileges')
    .select('tier_id')
    .where('user_id', '=', userId)
    .where('ended_at', 'is', null)
    .where('starts_at', '<=', now)
    .where('expires_at', '>', now)
    .execute();
  return rows.map((r) => r.tier_id);
}
