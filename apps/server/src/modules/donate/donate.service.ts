import {
  tierAmountNow,
  DonateListResponse,
  isRoubles,
  periodTotalKopecks,
  type DonateBodyParsed,
  type DonateFeature,
  type DonateKit,
  type DonateTier,
  type TierPeriod,
} from '@kubik/contract';
import type { Db } from '../../db/index.ts';
import type { AppContext } from '../../context.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { toKopecks, toRoubles } from '../../lib/money.ts';
import type { CachedBody } from '../../lib/public-cache.ts';
import type { User } from '../users/users.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';
import * as repo from './donate.repo.ts';

export const TEXTS = {
  notFound: 'Донат не найден',
  deleted: 'Донат удалён',
} as const;

/** Key of the public list in ctx.publicCache; every write drops it. */
export const LIST_CACHE_KEY = 'donate.fully';

/** Kits as stored; rows written before kits had ids or commands read with none. */
export function kitsOf(row: Pick<repo.TierRow, 'kits_json'>): DonateKit[] {
  return (JSON.parse(row.kits_json) as Partial<DonateKit>[]).map((k) => ({
    id: k.id ?? 0,
    name: k.name ?? '',
    description: k.description ?? '',
    command: k.command ?? '',
    period: k.period ?? 7,
    kitImg: k.kitImg ?? null,
    give_commands: k.give_commands ?? [],
  }));
}

/** Kopecks per month at `now`: the sale's while it runs. */
export function amountNow(row: Pick<repo.TierRow, 'amount_minor' | 'sale_amount_minor' | 'sale_ends_at'>, now: number): number {
  return tierAmountNow(
    {
      amount: Number(row.amount_minor),
      sale_amount: row.sale_amount_minor === null ? null : Number(row.sale_amount_minor),
      sale_ends_at: row.sale_ends_at === null ? null : Number(row.sale_ends_at),
    },
    now,
  ).amount;
}

export const periodsOf = (row: Pick<repo.TierRow, 'periods_json'>): TierPeriod[] => JSON.parse(row.periods_json) as TierPeriod[];
export const listOf = <T>(json: string): T[] => JSON.parse(json) as T[];

export function toTier(row: repo.TierRow): DonateTier {
  const amount = Number(row.amount_minor);
  return {
    id: row.id,
    title: row.title,
    content: row.content,
    amount: toRoubles(Number(row.amount_minor)),
    currency: row.currency,
    image_url: row.image_url,
    is_best: row.is_best === 1,
    position: Number(row.position),
    kits: kitsOf(row),
    features: JSON.parse(row.features_json) as DonateFeature[],
    server_ids: listOf<number>(row.server_ids),
    grant_commands: listOf<string>(row.grant_commands),
    revoke_commands: listOf<string>(row.revoke_commands),
    periods: periodsOf(row).map((p) => ({
      months: p.months,
      discount: p.discount,
      total: toRoubles(periodTotalKopecks(amount, p.months, p.discount)),
    })),
    sellable: isRoubles(row.currency),
    sale_amount: row.sale_amount_minor === null ? null : toRoubles(Number(row.sale_amount_minor)),
    sale_ends_at: row.sale_ends_at === null ? null : Number(row.sale_ends_at),
    subscription: Number(row.subscription) === 1,
    subscription_months: Number(row.subscription_months),
  };
}

const orNull = (v: string | null | undefined) => (v ? v : null);

/**
 * The stored columns of a validated body; empty optional texts become null. A kit keeps its id
 * when the tier already has a kit with it (its claims stay with it); any other kit gets a new one.
 */
async function columns(trx: Db, body: DonateBodyParsed, tierId: number | null, kept: ReadonlySet<number>) {
  const kits: DonateKit[] = [];
  for (const k of body.kits) {
    const id =
      k.id !== undefined && kept.has(k.id) && !kits.some((o) => o.id === k.id) ? k.id : await repo.issueKitId(trx, tierId ?? 0, Date.now());
    kits.push({
      id,
      name: k.name,
      description: k.description,
      command: k.command,
      period: k.period,
      kitImg: orNull(k.kitImg),
      give_commands: k.give_commands,
    });
  }
  const features: DonateFeature[] = body.features.map((f) => ({
    title: f.title,
    value: orNull(f.value),
    description: orNull(f.description),
    check: f.check,
  }));
  return {
    title: body.title,
    content: body.content,
    amount_minor: toKopecks(body.amount),
    currency: body.currency,
    image_url: orNull(body.image_url),
    is_best: body.is_best ? 1 : 0,
    kits_json: JSON.stringify(kits),
    features_json: JSON.stringify(features),
    server_ids: JSON.stringify([...new Set(body.server_ids)]),
    grant_commands: JSON.stringify(body.grant_commands),
    revoke_commands: JSON.stringify(body.revoke_commands),
    periods_json: JSON.stringify([...body.periods].sort((a, b) => a.months - b.months)),
    sale_amount_minor: body.sale_amount === null ? null : toKopecks(body.sale_amount),
    sale_ends_at: body.sale_ends_at,
    subscription: body.subscription ? 1 : 0,
    subscription_months: body.subscription_months,
  };
}

/** Servers a tier names must exist. */
async function checkServers(trx: Db, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const found = await repo.existingServerIds(trx, ids);
  const missing = ids.find((id) => !found.includes(id));
  if (missing !== undefined) throw badRequest(`Сервер №${missing} не найден`, { code: 'server_not_found', field: 'server_ids' });
}

/** GET /api/donate/fully, in the admin's order: one indexed query when the cache is cold. */
export function listBody(ctx: AppContext): Promise<CachedBody> {
  return ctx.publicCache.get(LIST_CACHE_KEY, async () => DonateListResponse.parse((await repo.listTiers(ctx.db)).map(toTier)));
}

export async function createTier(ctx: AppContext, actor: User, body: DonateBodyParsed): Promise<DonateTier> {
  const now = Date.now();
  const tier = await ctx.db.transaction().execute(async (trx) => {
    await checkServers(trx, body.server_ids);
    const position = body.position ?? (await repo.nextPosition(trx));
    const row = await repo.insertTier(trx, { ...(await columns(trx, body, null, new Set())), position, created_at: now, updated_at: now });
    const created = toTier(row);
    await recordAudit(trx, { actorId: actor.id, action: 'donate.create', entity: 'donate', entityId: row.id, after: created });
    return created;
  });
  await ctx.publicCache.invalidate(LIST_CACHE_KEY);
  return tier;
}

export async function updateTier(ctx: AppContext, actor: User, id: number, body: DonateBodyParsed): Promise<DonateTier> {
  const tier = await ctx.db.transaction().execute(async (trx) => {
    const before = await repo.findTier(trx, id);
    if (!before) throw notFound(TEXTS.notFound);
    await checkServers(trx, body.server_ids);
    const kept = new Set(kitsOf(before).map((k) => k.id));
    const row = await repo.updateTier(trx, id, {
      ...(await columns(trx, body, id, kept)),
      ...(body.position === undefined ? {} : { position: body.position }),
      updated_at: Date.now(),
    });
    if (!row) throw notFound(TEXTS.notFound);
    const updated = toTier(row);
    await recordAudit(trx, {
      actorId: actor.id,
      action: 'donate.update',
      entity: 'donate',
      entityId: id,
      before: toTier(before),
      after: updated,
    });
    return updated;
  });
  await ctx.publicCache.invalidate(LIST_CACHE_KEY);
  return tier;
}

export async function deleteTier(ctx: AppContext, actor: User, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const before = await repo.findTier(trx, id);
    if (!before) throw notFound(TEXTS.notFound);
    await repo.deleteTier(trx, id);
    await recordAudit(trx, { actorId: actor.id, action: 'donate.delete', entity: 'donate', entityId: id, before: toTier(before) });
  });
  await ctx.publicCache.invalidate(LIST_CACHE_KEY);
}
