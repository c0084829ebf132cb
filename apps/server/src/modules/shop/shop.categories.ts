import { type ShopCategory, type ShopCategoryBody, type ShopPublicCategories } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { conflict, isUniqueViolation, notFound } from '../../lib/errors.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { categoryKey } from './shop.category-key.ts';
import { dropListCache } from './shop.cache.ts';
import * as repo from './shop.repo.ts';

export const CATEGORY_TEXTS = {
  notFound: 'Категория не найдена',
  exists: (name: string) => `Категория «${name}» уже есть`,
  inUse: (name: string, items: number) =>
    `В категории «${name}» есть товары (${items}): перенесите их в другую категорию, затем удалите её`,
  created: 'Категория добавлена',
  updated: 'Категория изменена',
  deleted: 'Категория удалена',
} as const;

/** The owner's categories in their order, with how many items (not deleted) each holds. */
export async function listCategories(db: Db): Promise<ShopCategory[]> {
  const [rows, counts] = await Promise.all([repo.categoriesInOrder(db), repo.liveItemCountsByCategory(db)]);
  const byKey = new Map<string, number>();
  for (const c of counts) byKey.set(categoryKey(c.category), (byKey.get(categoryKey(c.category)) ?? 0) + Number(c.n));
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    position: Number(r.position),
    items: byKey.get(categoryKey(r.name)) ?? 0,
    sale_percent: r.sale_percent === null ? null : Number(r.sale_percent),
    sale_ends_at: r.sale_ends_at === null ? null : Number(r.sale_ends_at),
  }));
}

/** The category new items get when none is given: the first of the list. */
export function defaultCategory(db: Db): Promise<string | undefined> {
  return repo.firstCategoryName(db);
}

async function one(db: Db, id: number): Promise<ShopCategory> {
  const found = (await listCategories(db)).find((c) => c.id === id);
  if (!found) throw notFound(CATEGORY_TEXTS.notFound);
  return found;
}

export async function createCategory(ctx: AppContext, adminId: number, body: ShopCategoryBody): Promise<ShopCategory> {
  const now = Date.now();
  try {
    const id = await ctx.db.transaction().execute(async (trx) => {
      const last = await repo.lastCategoryPosition(trx);
      const row = await repo.insertCategory(trx, {
        name: body.name,
        name_key: categoryKey(body.name),
        position: body.position ?? (last ?? -1) + 1,
        sale_percent: body.sale_percent ?? null,
        sale_ends_at: body.sale_ends_at ?? null,
        created_at: now,
        updated_at: now,
      });
      await recordAudit(trx, { actorId: adminId, action: 'shop.category.create', entity: 'shop_category', entityId: row.id, after: row });
      return row.id;
    });
    await dropListCache(ctx);
    return one(ctx.db, id);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(CATEGORY_TEXTS.exists(body.name), { code: 'category_exists', field: 'name' });
    throw err;
  }
}

/** The public tabs of /shop: the owner's categories in order that hold an item on sale, with their sale. */
export async function publicCategories(db: Db): Promise<ShopPublicCategories> {
  const now = Date.now();
  const list = await listCategories(db);
  const keys = new Set((await repo.categoriesOfItemsOnSale(db)).map(categoryKey));
  return list
    .filter((c) => keys.has(categoryKey(c.name)))
    .map((c) => {
      const running = c.sale_percent !== null && (c.sale_ends_at === null || c.sale_ends_at > now);
      return { name: c.name, sale_percent: running ? c.sale_percent : null, sale_ends_at: running ? c.sale_ends_at : null };
    });
}

/** Renames (the items in it move along) or reorders a category. */
export async function updateCategory(ctx: AppContext, adminId: number, id: number, body: ShopCategoryBody): Promise<ShopCategory> {
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const before = await repo.findCategory(trx, id);
      if (!before) throw notFound(CATEGORY_TEXTS.notFound);
      const now = Date.now();
      const after = await repo.updateCategoryRow(trx, id, {
        name: body.name,
        name_key: categoryKey(body.name),
        position: body.position ?? before.position,
        ...(body.sale_percent !== undefined && { sale_percent: body.sale_percent }),
        ...(body.sale_ends_at !== undefined && { sale_ends_at: body.sale_ends_at }),
        updated_at: now,
      });
      if (before.name !== body.name) {
        const items = await repo.allItemCategories(trx);
        const ids = items.filter((i) => categoryKey(i.category) === categoryKey(before.name)).map((i) => i.id);
        if (ids.length > 0) await repo.moveItemsToCategory(trx, ids, body.name, now);
      }
      await recordAudit(trx, { actorId: adminId, action: 'shop.category.update', entity: 'shop_category', entityId: id, before, after });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(CATEGORY_TEXTS.exists(body.name), { code: 'category_exists', field: 'name' });
    throw err;
  }
  await dropListCache(ctx);
  return one(ctx.db, id);
}

/** Only an empty category can go: items are never left in a category that is not on the list. */
export async function deleteCategory(ctx: AppContext, adminId: number, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const before = await repo.findCategory(trx, id);
    if (!before) throw notFound(CATEGORY_TEXTS.notFound);
    const inside = (await repo.liveItemCategories(trx)).filter((c) => categoryKey(c) === categoryKey(before.name)).length;
    if (inside > 0) throw conflict(CATEGORY_TEXTS.inUse(before.name, inside), { code: 'category_in_use' });
    await repo.deleteCategoryRow(trx, id);
    await recordAudit(trx, { actorId: adminId, action: 'shop.category.delete', entity: 'shop_category', entityId: id, before });
  });
}
