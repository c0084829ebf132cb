import {
  DEFAULT_CATEGORY,
  DEFAULT_ITEM_ID,
  ON_SALE,
  SHOP_TEXTS,
  ShopItem as ShopItemSchema,
  type BuyBody,
  type BuyResponse,
  type ShopItem,
  type ShopItemAdmin,
  type ShopItemCreateBody,
  type ShopItemUpdateBody,
  type ShopOrder,
  type ShopServersResponse,
} from '@kubik/contract';
import { sql, type Selectable } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { badRequest, conflict, notFound, type HttpError } from '../../lib/errors.ts';
import { toKopecks, toRoubles } from '../../lib/money.ts';
import type { CachedBody } from '../../lib/public-cache.ts';
import type { User } from '../users/users.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { deliveriesOf, statusOf } from '../deliveries/deliveries.service.ts';
import type { LedgerRefDetail } from '../users/users.ports.ts';
import { enqueueDeliveries, rconConfigured, type DeliveryRequest } from '../deliveries/deliveries.queue.ts';
import { purchase } from '../purchases/purchases.service.ts';
import { dropListCache, LIST_CACHE_KEY } from './shop.cache.ts';
import { defaultCategory } from './shop.categories.ts';
import { categoryKey } from './shop.category-key.ts';
import type { ShopItemsTable } from './shop.tables.ts';

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

type ItemRow = Selectable<ShopItemsTable>;

function toPublicItem(row: ItemRow): ShopItem {
  return {
    id: row.id,
    name: row.name,
    icon: row.icon,
    price: toRoubles(Number(row.price)),
    count: Number(row.count),
    description: row.description,
    category: row.category,
    pieces: Number(row.pieces),
  };
}

const commandsOf = (row: { commands: string | null }): string[] => (row.commands ? (JSON.parse(row.commands) as string[]) : []);
const storedCommands = (commands: string[] | undefined) =>
  commands === undefined ? undefined : commands.length > 0 ? JSON.stringify(commands) : null;

function toAdminItem(row: ItemRow & { server_name: string | null }): ShopItemAdmin {
  return {
    ...toPublicItem(row),
    item_id_minecraft: row.item_id_minecraft,
    status: row.status,
    server_id: row.server_id,
    server_name: row.server_name,
    commands: commandsOf(row),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

/** Items on sale, for players; sold-out ones stay in the list (shown as 'Закончился'). */
export async function listOnSale(db: Db): Promise<ShopItem[]> {
  const rows = await db
    .selectFrom('shop_items')
    .selectAll()
    .where('deleted_at', 'is', null)
    .where('status', '=', ON_SALE)
    .orderBy('id')
    .execute();
  return rows.map(toPublicItem);
}

/** The public list, kept in ctx.publicCache; every committed change of stock or items drops it. */
export function listOnSaleBody(ctx: AppContext): Promise<CachedBody> {
  return ctx.publicCache.get(LIST_CACHE_KEY, async () => z.array(ShopItemSchema).parse(await listOnSale(ctx.db)));
}

function adminItems(db: Db) {
  return db
    .selectFrom('shop_items')
    .leftJoin('servers', 'servers.id', 'shop_items.server_id')
    .selectAll('shop_items')
    .select('servers.name as server_name')
    .where('shop_items.deleted_at', 'is', null);
}

export async function listAll(db: Db): Promise<ShopItemAdmin[]> {
  const rows = await adminItems(db).orderBy('shop_items.id').execute();
  return rows.map(toAdminItem);
}

async function adminItem(db: Db, id: number): Promise<ShopItemAdmin> {
  const row = await adminItems(db).where('shop_items.id', '=', id).executeTakeFirst();
  if (!row) throw notFound(TEXTS.noItem);
  return toAdminItem(row);
}

/** Servers for the item form, and the default: the only server with RCON, when there is exactly one. */
export async function shopServers(db: Db): Promise<ShopServersResponse> {
  const rows = await db
    .selectFrom('servers')
    .select(['id', 'name', 'rcon_password', 'rcon_host', 'ip_address'])
    .orderBy('sort_order')
    .orderBy('id')
    .execute();
  const servers = rows.map((r) => ({ id: r.id, name: r.name, rcon: rconConfigured(r) }));
  const withRcon = servers.filter((s) => s.rcon);
  return { servers, default_server_id: withRcon.length === 1 ? withRcon[0]!.id : null };
}

async function checkServer(db: Db, serverId: number | null | undefined): Promise<void> {
  if (serverId == null) return;
  const found = await db.selectFrom('servers').select('id').where('id', '=', serverId).executeTakeFirst();
  if (!found) throw badRequest(TEXTS.serverNotFound, { code: 'server_not_found', field: 'server_id' });
}

/** The category as the owner's list spells it; a name not on the list is refused. */
async function checkCategory(db: Db, name: string | undefined): Promise<string | undefined> {
  if (name === undefined) return undefined;
  const found = await db.selectFrom('shop_categories').select('name').where('name_key', '=', categoryKey(name)).executeTakeFirst();
  if (!found) throw badRequest(TEXTS.noCategory(name), { code: 'category_not_found', field: 'category' });
  return found.name;
}

export async function createItem(ctx: AppContext, admin: User, body: ShopItemCreateBody): Promise<ShopItemAdmin> {
  await checkServer(ctx.db, body.server_id);
  const category = (await checkCategory(ctx.db, body.category ?? (await defaultCategory(ctx.db)) ?? DEFAULT_CATEGORY)) ?? DEFAULT_CATEGORY;
  const serverId = body.server_id === undefined ? (await shopServers(ctx.db)).default_server_id : body.server_id;
  const now = Date.now();
  const id = await ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('shop_items')
      .values({
        name: body.name,
        description: body.description ?? '',
        icon: body.icon,
        category,
        item_id_minecraft: body.item_id_minecraft ?? DEFAULT_ITEM_ID,
        status: body.status ?? ON_SALE,
        price: toKopecks(body.price),
        count: body.count,
        server_id: serverId,
        commands: storedCommands(body.commands) ?? null,
        pieces: body.pieces ?? 1,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
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
    const before = await trx.selectFrom('shop_items').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
    if (!before) throw notFound(TEXTS.noItem);
    const changes = {
      ...(body.name !== undefined && { name: body.name }),
      ...(body.description !== undefined && { description: body.description }),
      ...(body.icon !== undefined && { icon: body.icon }),
      ...(category !== undefined && { category }),
      ...(body.item_id_minecraft !== undefined && { item_id_minecraft: body.item_id_minecraft }),
      ...(body.status !== undefined && { status: body.status }),
      ...(body.price !== undefined && { price: toKopecks(body.price) }),
      ...(body.count !== undefined && { count: body.count }),
      ...(body.server_id !== undefined && { server_id: body.server_id }),
      ...(body.pieces !== undefined && { pieces: body.pieces }),
      ...(body.commands !== undefined && { commands: storedCommands(body.commands) ?? null }),
    };
    const after = await trx
      .updateTable('shop_items')
      .set({ ...changes, updated_at: Date.now() })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    if (!after) throw notFound(TEXTS.noItem);
    await recordAudit(trx, { actorId: admin.id, action: 'shop.item.update', entity: 'shop_item', entityId: id, before, after });
  });
  await dropListCache(ctx);
  return adminItem(ctx.db, id);
}

/** Deleted items are kept (marked), because orders and deliveries point at them. */
export async function deleteItem(ctx: AppContext, admin: User, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const before = await trx.selectFrom('shop_items').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
    if (!before) throw notFound(TEXTS.noItem);
    const done = await trx
      .updateTable('shop_items')
      .set({ deleted_at: Date.now(), updated_at: Date.now() })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) !== 1) throw notFound(TEXTS.noItem);
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

/**
 * One purchase (the purchases core runs it in one transaction under its Idempotency-Key): the
 * stock and the balance move by conditional updates (never read-then-write), so however many run
 * at once nothing is oversold and no balance goes below zero; the order, its ledger row and its
 * deliveries commit together or not at all.
 */
export async function buy(ctx: AppContext, user: User, body: BuyBody, key: string | undefined): Promise<BuyResponse> {
  const answer = await purchase(ctx, {
    kind: 'shop',
    userId: user.id,
    key,
    request: { shop_id: body.shop_id, quantity: body.quantity },
    async price(trx, now) {
      const item = await trx
        .updateTable('shop_items')
        .set({ count: sql<number>`count - ${body.quantity}`, updated_at: now })
        .where('id', '=', body.shop_id)
        .where('deleted_at', 'is', null)
        .where('status', '=', ON_SALE)
        .where('count', '>=', body.quantity)
        .returning(['id', 'name', 'item_id_minecraft', 'price', 'server_id', 'pieces', 'commands'])
        .executeTakeFirst();
      if (!item) throw await whyNotBuyable(trx, body);
      return { item, price: Number(item.price) * body.quantity };
    },
    async record(trx, { item }, charge, now) {
      const order = await trx
        .insertInto('shop_orders')
        .values({
          user_id: user.id,
          item_id: item.id,
          item_name: item.name,
          item_id_minecraft: item.item_id_minecraft,
          price: Number(item.price),
          quantity: body.quantity,
          total: charge.total,
          pieces: Number(item.pieces),
          created_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { item, orderId: order.id, ledger: { ref: `order:${order.id}`, note: `${item.name} × ${body.quantity}` } };
    },
    async deliver(trx, { item, orderId }, balance) {
      const pieces = Number(item.pieces);
      // Its own commands run once for the whole purchase; the server's template once per stack.
      const own = commandsOf(item);
      const delivery = (units: number): DeliveryRequest => ({
        source: 'shop',
        sourceId: orderId,
        userId: user.id,
        label: item.name,
        server: item.server_id ?? 'only',
        commands: own.length > 0 ? own : null,
        params: { item: item.item_id_minecraft, quantity: units * pieces, order: orderId },
        quantity: units,
      });
      await enqueueDeliveries(trx, own.length > 0 ? [delivery(body.quantity)] : deliveryChunks(body.quantity, pieces).map(delivery));
      return { new_balance: toRoubles(balance), message: TEXTS.bought, order_id: orderId };
    },
  });
  await dropListCache(ctx);
  return answer;
}

/** The reason the conditional stock update matched nothing, read inside the same transaction. */
async function whyNotBuyable(trx: Db, body: BuyBody): Promise<HttpError> {
  const item = await trx
    .selectFrom('shop_items')
    .select(['status', 'count', 'deleted_at'])
    .where('id', '=', body.shop_id)
    .executeTakeFirst();
  if (!item || item.deleted_at !== null) return notFound(TEXTS.noItem);
  if (item.status !== ON_SALE) return conflict(TEXTS.notOnSale, { code: 'not_on_sale' });
  if (Number(item.count) <= 0) return conflict(TEXTS.soldOut, { code: 'sold_out' });
  return conflict(TEXTS.notEnoughStock(Number(item.count)), { code: 'not_enough_stock', field: 'quantity' });
}

/** The player's purchases, newest first, each with the state of its deliveries. */
export async function listOrders(db: Db, userId: number): Promise<ShopOrder[]> {
  const orders = await db
    .selectFrom('shop_orders')
    .innerJoin('shop_items', 'shop_items.id', 'shop_orders.item_id')
    .select([
      'shop_orders.id',
      'shop_orders.item_id',
      'shop_orders.item_name',
      'shop_items.icon',
      'shop_orders.quantity',
      'shop_orders.pieces',
      'shop_orders.price',
      'shop_orders.total',
      'shop_orders.created_at',
    ])
    .where('shop_orders.user_id', '=', userId)
    .orderBy('shop_orders.id', 'desc')
    .limit(100)
    .execute();
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
    deliveries: (deliveries.get(o.id) ?? []).map((d) => ({
      id: d.id,
      quantity: d.quantity ?? 0,
      state: d.state,
      server_name: d.server_name,
      waiting: d.waiting,
      waiting_text: d.waiting_text,
      updated_at: d.updated_at,
    })),
    delivery: statusOf(deliveries.get(o.id)),
  }));
}

/**
 * Shop rows without their ledger counterpart: every order has exactly one purchase row of minus
 * its total, every refunded delivery exactly one refund row of its worth (should be none).
 */
export async function findShopLedgerMismatches(db: Db): Promise<string[]> {
  const problems: string[] = [];
  const orders = await db
    .selectFrom('shop_orders')
    .leftJoin('ledger', (j) => j.on('ledger.reason', '=', 'purchase').on('ledger.ref', '=', sql<string>`'order:' || shop_orders.id`))
    .select([
      'shop_orders.id',
      'shop_orders.total',
      'shop_orders.user_id',
      (eb) => eb.fn.count<number>('ledger.id').as('rows'),
      (eb) => eb.fn.sum<number>('ledger.amount').as('amount'),
    ])
    .groupBy(['shop_orders.id', 'shop_orders.total', 'shop_orders.user_id'])
    .execute();
  for (const o of orders) {
    if (Number(o.rows) !== 1 || Number(o.amount) !== -Number(o.total))
      problems.push(
        `Заказ №${o.id}: записей о покупке в журнале ${Number(o.rows)}, сумма ${toRoubles(Number(o.amount ?? 0))} ₽ вместо −${toRoubles(Number(o.total))} ₽`,
      );
  }
  const refunds = await db
    .selectFrom('deliveries')
    .innerJoin('shop_orders', 'shop_orders.id', 'deliveries.source_id')
    .leftJoin('ledger', (j) => j.on('ledger.reason', '=', 'refund').on('ledger.ref', '=', sql<string>`'delivery:' || deliveries.id`))
    .select([
      'deliveries.id',
      'deliveries.state',
      'deliveries.quantity',
      'shop_orders.price',
      (eb) => eb.fn.count<number>('ledger.id').as('rows'),
      (eb) => eb.fn.sum<number>('ledger.amount').as('amount'),
    ])
    .where('deliveries.source', '=', 'shop')
    .groupBy(['deliveries.id', 'deliveries.state', 'deliveries.quantity', 'shop_orders.price'])
    .execute();
  for (const d of refunds) {
    const expected = d.state === 'refunded' ? 1 : 0;
    const worth = Number(d.price) * Number(d.quantity);
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
  const rows = await db.selectFrom('shop_orders').select(['id', 'item_name', 'quantity']).where('id', 'in', ids).execute();
  const deliveries = await deliveriesOf(
    db,
    'shop',
    rows.map((r) => r.id),
  );
  for (const r of rows)
    out.set(r.id, { title: `${r.item_name} × ${Number(r.quantity)}`, label: null, deliveries: deliveries.get(r.id) ?? [] });
  return out;
}
