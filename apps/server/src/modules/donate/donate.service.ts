import { DonateListResponse, type DonateBodyParsed, type DonateFeature, type DonateKit, type DonateTier } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../lib/errors.ts';
import { toKopecks, toRoubles } from '../../lib/money.ts';
import type { CachedBody } from '../../lib/public-cache.ts';
import type { UserRow } from '../accounts/accounts.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';
import * as repo from './donate.repo.ts';

export const TEXTS = {
  notFound: 'Донат не найден',
  deleted: 'Донат удалён',
} as const;

/** Key of the public list in ctx.publicCache; every write drops it. */
export const LIST_CACHE_KEY = 'donate.fully';

export function toTier(row: repo.TierRow): DonateTier {
  return {
    id: row.id,
    title: row.title,
    content: row.content,
    amount: toRoubles(Number(row.amount_minor)),
    currency: row.currency,
    image_url: row.image_url,
    is_best: row.is_best === 1,
    position: Number(row.position),
    kits: JSON.parse(row.kits_json) as DonateKit[],
    features: JSON.parse(row.features_json) as DonateFeature[],
  };
}

const orNull = (v: string | null | undefined) => (v ? v : null);

/** The stored columns of a validated body; empty optional texts become null. */
function columns(body: DonateBodyParsed) {
  const kits: DonateKit[] = body.kits.map((k) => ({ name: k.name, description: k.description, command: k.command, period: k.period, kitImg: orNull(k.kitImg) }));
  const features: DonateFeature[] = body.features.map((f) => ({ title: f.title, value: orNull(f.value), description: orNull(f.description), check: f.check }));
  return {
    title: body.title,
    content: body.content,
    amount_minor: toKopecks(body.amount),
    currency: body.currency,
    image_url: orNull(body.image_url),
    is_best: body.is_best ? 1 : 0,
    kits_json: JSON.stringify(kits),
    features_json: JSON.stringify(features),
  };
}

/** GET /api/donate/fully, in the admin's order: one indexed query when the cache is cold. */
export function listBody(ctx: AppContext): Promise<CachedBody> {
  return ctx.publicCache.get(LIST_CACHE_KEY, async () => DonateListResponse.parse((await repo.listTiers(ctx.db)).map(toTier)));
}

export async function createTier(ctx: AppContext, actor: UserRow, body: DonateBodyParsed): Promise<DonateTier> {
  const now = Date.now();
  const tier = await ctx.db.transaction().execute(async (trx) => {
    const position = body.position ?? (await repo.nextPosition(trx));
    const row = await repo.insertTier(trx, { ...columns(body), position, created_at: now, updated_at: now });
    const created = toTier(row);
    await recordAudit(trx, { actorId: actor.id, action: 'donate.create', entity: 'donate', entityId: row.id, after: created });
    return created;
  });
  await ctx.publicCache.invalidate(LIST_CACHE_KEY);
  return tier;
}

export async function updateTier(ctx: AppContext, actor: UserRow, id: number, body: DonateBodyParsed): Promise<DonateTier> {
  const tier = await ctx.db.transaction().execute(async (trx) => {
    const before = await repo.findTier(trx, id);
    if (!before) throw notFound(TEXTS.notFound);
    const row = await repo.updateTier(trx, id, { ...columns(body), ...(body.position === undefined ? {} : { position: body.position }), updated_at: Date.now() });
    if (!row) throw notFound(TEXTS.notFound);
    const updated = toTier(row);
    await recordAudit(trx, { actorId: actor.id, action: 'donate.update', entity: 'donate', entityId: id, before: toTier(before), after: updated });
    return updated;
  });
  await ctx.publicCache.invalidate(LIST_CACHE_KEY);
  return tier;
}

export async function deleteTier(ctx: AppContext, actor: UserRow, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const before = await repo.findTier(trx, id);
    if (!before) throw notFound(TEXTS.notFound);
    await repo.deleteTier(trx, id);
    await recordAudit(trx, { actorId: actor.id, action: 'donate.delete', entity: 'donate', entityId: id, before: toTier(before) });
  });
  await ctx.publicCache.invalidate(LIST_CACHE_KEY);
}
