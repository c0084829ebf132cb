import {
  DEFAULT_CATEGORY,
  DEFAULT_ITEM_ID,
  LIMIT_PERIODS,
  ON_SALE,
  SHOP_TEXTS,
  ShopItem as ShopItemSchema,
  type LimitPeriod,
  type ShopItem,
  type ShopItemAdmin,
  type ShopItemCreateBody,
  type ShopItemUpdateBody,
  type ShopOrder,
  type ShopServersResponse,
} from '@kubik/contract';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { toKopecks, toRoubles } from '../../lib/money.ts';
import type { CachedBody } from '../../lib/public-cache.ts';
import type { User } from '../users/users.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { deliveriesOf, statusOf } from '../deliveries/deliveries.service.ts';
import type { LedgerRefDetail } from '../users/users.ports.ts';
import { rconConfigured } from '../deliveries/deliveries.queue.ts';
import { refundWorth } from './refund.service.ts';
import { dropListCache, LIST_CACHE_KEY } from './shop.cache.ts';
import { defaultCategory } from './shop.categories.ts';
import { categoryKey } from './shop.category-key.ts';
import * as repo from './shop.repo.ts';

export const TEXTS = {
  ...SHOP_TEXTS,
  notEnoughStock: (left: number) => `Недостаточно товара: в наличии ${left} шт.`,
  serverNotFound: 'Сервер не найден',
  noCategory: (name: string) => `Категории «${name}» нет в списке: выберите другую или добавьте её в категориях магазина`,
  created: 'Товар добавлен',
  updated: 'Товар обновлён',
  deleted: 'Товар удалён',
} as const;

/** Items per `give` with the server's template: up to 100 stacks are accepted, and 64 fits every item's limit. */
export const DELIVERY_CHUNK = 64;

/** A category's running sale, by its key. */
export type CategorySales = Map<string, { percent: number; endsAt: number | null }>;

export async function categorySales(db: Db, now: number): Promise<CategorySales> {
  const rows = await repo.categoriesWithSale(db);
  const out: CategorySales = new Map();
  for (const r of rows)
    if (r.sale_percent !== null && (r.sale_ends_at === null || Number(r.sale_ends_at) > now))
      out.set(categoryKey(r.name), { percent: Number(r.sale_percent), endsAt: r.sale_ends_at === null ? null : Number(r.sale_ends_at) });
  return out;
}

/**
 * What one purchase of the item costs at `now`, in kopecks: its own sale price while that runs,
 * else its category's sale, else its price; `old` is the price before the sale (null: no sale).
 */
export function priceNow(
  row: Pick<repo.ItemRow, 'price' | 'sale_price' | 'sale_ends_at' | 'category'>,
  sales: CategorySales,
  now: number,
): { price: number; old: number | null; endsAt: number | null } {
  const base = Number(row.price);
  if (row.sale_price !== null && (row.sale_ends_at === null || Number(row.sale_ends_at) > now) && Number(row.sale_price) < base)
    return { price: Number(row.sale_price), old: base, endsAt: row.sale_ends_at === null ? null : Number(row.sale_ends_at) };
  const cat = sales.get(categoryKey(row.category));
  if (cat) {
    const price = Math.round((base * (100 - cat.percent)) / 100);
    if (price < base) return { price, old: base, endsAt: cat.endsAt };
  }
  return { price: base, old: null, endsAt: null };
}

/** The first moment after `now` when a running sale ends (the public list is rebuilt then). */
export function nextSaleEnd(rows: Pick<repo.ItemRow, 'sale_ends_at'>[], sales: CategorySales, now: number): number | null {
  const ends = [...rows.map((r) => r.sale_ends_at), ...[...sales.values()].map((c) => c.endsAt)]
    .filter((e): e is number => e !== null && Number(e) > now)
    .map(Number);
  return ends.length > 0 ? Math.min(...ends) : null;
}

function toPublicItem(row: repo.ItemRow & { server_name: string | null }, sales: CategorySales, now: number): ShopItem {
  const p = priceNow(row, sales, now);
  return {
    id: row.id,
    name: row.name,
    icon: row.icon,
    price: toRoubles(p.price),
    count: Number(row.unlimited) === 1 ? null : Number(row.count),
    description: row.description,
    category: row.category,
    pieces: Number(row.pieces),
    old_price: p.old === null ? null : toRoubles(p.old),
    sale_ends_at: p.endsAt,
    limit_per_player: row.limit_per_player === null ? null : Number(row.limit_per_player),
    limit_period: (LIMIT_PERIODS as readonly string[]).includes(row.limit_period) ? (row.limit_period as LimitPeriod) : 'ever',
    server_name: row.server_name,
  };
}

export const commandsOf = (row: { commands: string | null }): string[] => (row.commands ? (JSON.parse(row.commands) as string[]) : []);
const storedCommands = (commands: string[] | undefined) =>
  commands === undefined ? undefined : commands.length > 0 ? JSON.stringify(commands) : null;

function toAdminItem(row: repo.ItemRow & { server_name: string | null }, sales: CategorySales, now: number): ShopItemAdmin {
  return {
    ...toPublicItem(row, sales, now),
    item_id_minecraft: row.item_id_minecraft,
    status: row.status,
    server_id: row.server_id,
    sale_price: row.sale_price === null ? null : toRoubles(Number(row.sale_price)),
    stored_sale_ends_at: row.sale_ends_at === null ? null : Number(row.sale_ends_at),
    commands: commandsOf(row),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

/** Items on sale, for players; sold-out ones stay in the list (shown as 'Закончился'). */
export async function listOnSale(db: Db, now = Date.now()): Promise<{ items: ShopItem[]; nextChange: number | null }> {
  const [rows, sales] = await Promise.all([repo.itemsOnSale(db), categorySales(db, now)]);
  return { items: rows.map((r) => toPublicItem(r, sales, now)), nextChange: nextSaleEnd(rows, sales, now) };
}

/** When the cached list of each app stops being true by itself (a sale ends); no write drops it then. */
const cacheGoodUntil = new WeakMap<AppContext, number>();

/** The public list, kept in ctx.publicCache; every committed change of stock or items drops it, and so does the end of a sale. */
export async function listOnSaleBody(ctx: AppContext): Promise<CachedBody> {
  const until = cacheGoodUntil.get(ctx);
  if (until !== undefined && Date.now() >= until) {
    cacheGoodUntil.delete(ctx);
    await dropListCache(ctx);
  }
  return ctx.publicCache.get(LIST_CACHE_KEY, async () => {
    const { items, nextChange } = await listOnSale(ctx.db);
    if (nextChange !== null) cacheGoodUntil.set(ctx, Math.min(nextChange, cacheGoodUntil.get(ctx) ?? Infinity));
    return z.array(ShopItemSchema).parse(items);
  });
}

/** `?category=&q=`: the list narrowed to one category and to names or descriptions holding the words (any case). */
export async function searchOnSale(db: Db, query: { category?: string; q?: string }): Promise<ShopItem[]> {
  const { items } = await listOnSale(db);
  const category = query.category?.trim() ? categoryKey(query.category) : null;
  const words = (query.q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  return items.filter(
    (i) =>
      (category === null || categoryKey(i.category) === category) &&
      words.every((w) => i.name.toLowerCase().includes(w) || i.description.toLowerCase().includes(w)),
  );
}

export async function listAll(db: Db): Promise<ShopItemAdmin[]> {
  const now = Date.now();
  const [rows, sales] = await Promise.all([repo.listAdminItems(db), categorySales(db, now)]);
  return rows.map((r) => toAdminItem(r, sales, now));
}

async function adminItem(db: Db, id: number): Promise<ShopItemAdmin> {
  const now = Date.now();
  const row = await repo.findAdminItem(db, id);
  if (!row) throw notFound(TEXTS.noItem);
  return toAdminItem(row, await categorySales(db, now), now);
}

/** Servers for the item form, and the default: the only server with RCON, when there is exactly one. */
export async function shopServers(db: Db): Promise<ShopServersResponse> {
  const rows = await repo.serversForItems(db);
  const servers = rows.map((r) => ({ id: r.id, name: r.name, rcon: rconConfigured(r) }));
  const withRcon = servers.filter((s) => s.rcon);
  return { servers, default_server_id: withRcon.length === 1 ? withRcon[0]!.id : null };
}

async function checkServer(db: Db, serverId: number | null | undefined): Promise<void> {
  if (serverId == null) return;
  if (!(await repo.serverExists(db, serverId))) throw badRequest(TEXTS.serverNotFound, { code: 'server_not_found', field: 'server_id' });
}

/** The category as the owner's list spells it; a name not on the list is refused. */
async function checkCategory(db: Db, name: string | undefined): Promise<string | undefined> {
  if (name === undefined) return undefined;
  const found = await repo.categoryNameByKey(db, categoryKey(name));
  if (found === undefined) throw badRequest(TEXTS.noCategory(name), { code: 'category_not_found', field: 'category' });
  return found;
}

export async function createItem(ctx: AppContext, admin: User, body: ShopItemCreateBody): Promise<ShopItemAdmin> {
  await checkServer(ctx.db, body.server_id);
  const category = (await checkCategory(ctx.db, body.category ?? (await defaultCategory(ctx.db)) ?? DEFAULT_CATEGORY)) ?? DEFAULT_CATEGORY;
  const serverId = body.server_id === undefined ? (await shopServers(ctx.db)).default_server_id : body.server_id;
  const now = Date.now();
  const id = await ctx.db.transaction().execute(async (trx) => {
    const row = await repo.insertItem(trx, {
      name: body.name,
      description: body.description ?? '',
      icon: body.icon,
      category,
      item_id_minecraft: body.item_id_minecraft ?? DEFAULT_ITEM_ID,
      status: body.status ?? ON_SALE,
      price: toKopecks(body.price),
      count: body.count ?? 0,
      unlimited: body.count === null ? 1 : 0,
      server_id: serverId,
      commands: storedCommands(body.commands) ?? null,
      pieces: body.pieces ?? 1,
      sale_price: body.sale_price == null ? null : toKopecks(body.sale_price),
      sale_ends_at: body.sale_ends_at ?? null,
      limit_per_player: body.limit_per_player ?? null,
      limit_period: body.limit_period ?? 'ever',
      created_at: now,
      updated_at: now,
      deleted_at: null,
    });
    await recordAudit(trx, { actorId: admin.id, action: 'shop.item.create', entity: 'shop_item', entityId: row.id, after: row });
    return row.id;
  });
  await dropListCache(ctx);
  return adminItem(ctx.db, id);
}

export async function updateItem(ctx: AppContext, admin: User, id: number, body: ShopItemUpdateBody): Promise<ShopItemAdmin> {
  await checkServer(ctx.db, body.server_id);
  const category = await checkCategory(ctx.db, body.category);
  await ctx.db.transaction().execute(async (trx) => {
    const before = await repo.findLiveItem(trx, id);
    if (!before) throw notFound(TEXTS.noItem);
    const changes = {
      ...(body.name !== undefined && { name: body.name }),
      ...(body.description !== undefined && { description: body.description }),
      ...(body.icon !== undefined && { icon: body.icon }),
      ...(category !== undefined && { category }),
      ...(body.item_id_minecraft !== undefined && { item_id_minecraft: body.item_id_minecraft }),
      ...(body.status !== undefined && { status: body.status }),
      ...(body.price !== undefined && { price: toKopecks(body.price) }),
      ...(body.count !== undefined && (body.count === null ? { unlimited: 1 } : { count: body.count, unlimited: 0 })),
      ...(body.sale_price !== undefined && { sale_price: body.sale_price === null ? null : toKopecks(body.sale_price) }),
      ...(body.sale_ends_at !== undefined && { sale_ends_at: body.sale_ends_at }),
      ...(body.limit_per_player !== undefined && { limit_per_player: body.limit_per_player }),
      ...(body.limit_period !== undefined && { limit_period: body.limit_period }),
      ...(body.server_id !== undefined && { server_id: body.server_id }),
      ...(body.pieces !== undefined && { pieces: body.pieces }),
      ...(body.commands !== undefined && { commands: storedCommands(body.commands) ?? null }),
    };
    const after = await repo.updateLiveItem(trx, id, { ...changes, updated_at: Date.now() });
    if (!after) throw notFound(TEXTS.noItem);
    await recordAudit(trx, { actorId: admin.id, action: 'shop.item.update', entity: 'shop_item', entityId: id, before, after });
  });
  await dropListCache(ctx);
  return adminItem(ctx.db, id);
}

/** Deleted items are kept (marked), because orders and deliveries point at them. */
export async function deleteItem(ctx: AppContext, admin: User, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const before = await repo.findLiveItem(trx, id);
    if (!before) throw notFound(TEXTS.noItem);
    if (!(await repo.markItemDeleted(trx, id, Date.now()))) throw notFound(TEXTS.noItem);
    await recordAudit(trx, { actorId: admin.id, action: 'shop.item.delete', entity: 'shop_item', entityId: id, before });
  });
  await dropListCache(ctx);
}

/** Purchases per delivery row with the server's template: as many as make at most 64 items (one purchase at least). */
export function deliveryChunks(quantity: number, pieces = 1): number[] {
  const perRow = Math.max(1, Math.floor(DELIVERY_CHUNK / pieces));
  const chunks: number[] = [];
  for (let left = quantity; left > 0; left -= perRow) chunks.push(Math.min(left, perRow));
  return chunks;
}

/** The player's purchases and the gifts they got or gave, newest first, each with the state of its deliveries. */
export async function listOrders(db: Db, userId: number): Promise<ShopOrder[]> {
  const orders = await repo.ordersOf(db, userId, 100);
  if (orders.length === 0) return [];
  const deliveries = await deliveriesOf(
    db,
    'shop',
    orders.map((o) => o.id),
  );
  return orders.map((o) => ({
    id: o.id,
    item_id: o.item_id,
    item_name: o.item_name,
    icon: o.icon,
    quantity: Number(o.quantity),
    pieces: Number(o.pieces),
    price: toRoubles(Number(o.price)),
    total: toRoubles(Number(o.total)),
    created_at: Number(o.created_at),
    gift_from: o.paid_by !== null && o.user_id === userId ? (o.payer_name ?? '') : null,
    gift_to: o.paid_by === userId && o.user_id !== userId ? (o.recipient_name ?? '') : null,
    deliveries:
      o.user_id === userId
        ? (deliveries.get(o.id) ?? []).map((d) => ({
            id: d.id,
            quantity: d.quantity ?? 0,
            state: d.state,
            server_name: d.server_name,
            waiting: d.waiting,
            waiting_text: d.waiting_text,
            updated_at: d.updated_at,
          }))
        : [],
    delivery: statusOf(o.user_id === userId ? deliveries.get(o.id) : undefined),
  }));
}

/**
 * Shop rows without their ledger counterpart: every order has exactly one purchase row of minus
 * its total, every refunded delivery exactly one refund row of its worth (should be none).
 */
export async function findShopLedgerMismatches(db: Db): Promise<string[]> {
  const problems: string[] = [];
  const orders = await repo.ordersAgainstLedger(db);
  for (const o of orders) {
    if (Number(o.rows) !== 1 || Number(o.amount) !== -Number(o.total))
      problems.push(
        `Заказ №${o.id}: записей о покупке в журнале ${Number(o.rows)}, сумма ${toRoubles(Number(o.amount ?? 0))} ₽ вместо −${toRoubles(Number(o.total))} ₽`,
      );
  }
  const refunds = await repo.refundsAgainstLedger(db);
  for (const d of refunds) {
    const expected = d.state === 'refunded' ? 1 : 0;
    const worth = refundWorth(Number(d.total), Number(d.order_quantity), Number(d.quantity));
    if (Number(d.rows) !== expected || (expected === 1 && Number(d.amount) !== worth)) {
      problems.push(`Доставка №${d.id} (${d.state}): записей о возврате в журнале ${Number(d.rows)} вместо ${expected}`);
    }
  }
  return problems;
}

/** The history's view of shop purchases (ledger refs `order:<id>`): the item and its deliveries. */
export async function orderDetails(db: Db, ids: number[]): Promise<Map<number, LedgerRefDetail>> {
  const out = new Map<number, LedgerRefDetail>();
  if (ids.length === 0) return out;
  const rows = await repo.orderSummaries(db, ids);
  const deliveries = await deliveriesOf(
    db,
    'shop',
    rows.map((r) => r.id),
  );
  for (const r of rows)
    out.set(r.id, { title: `${r.item_name} × ${Number(r.quantity)}`, label: null, deliveries: deliveries.get(r.id) ?? [] });
  return out;
}
