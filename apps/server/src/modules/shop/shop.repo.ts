import { ON_SALE } from '@kubik/contract';
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { ShopCategoriesTable, ShopItemsTable, ShopOrdersTable } from './shop.tables.ts';

/** The shop's queries: items, categories, orders, and a shop delivery's refund. */

export type ItemRow = Selectable<ShopItemsTable>;

// --- Items --------------------------------------------------------------------------------------

/** Categories with a sale set (whether it still runs is the caller's check). */
export function categoriesWithSale(db: Db) {
  return db.selectFrom('shop_categories').select(['name', 'sale_percent', 'sale_ends_at']).where('sale_percent', 'is not', null).execute();
}

/** Items on sale (sold-out ones too), with their server's name. */
export function itemsOnSale(db: Db) {
  return db
    .selectFrom('shop_items')
    .leftJoin('servers', 'servers.id', 'shop_items.server_id')
    .selectAll('shop_items')
    .select('servers.name as server_name')
    .where('shop_items.deleted_at', 'is', null)
    .where('shop_items.status', '=', ON_SALE)
    .orderBy('shop_items.id')
    .execute();
}

function adminItems(db: Db) {
  return db
    .selectFrom('shop_items')
    .leftJoin('servers', 'servers.id', 'shop_items.server_id')
    .selectAll('shop_items')
    .select('servers.name as server_name')
    .where('shop_items.deleted_at', 'is', null);
}

/** Every item that is not deleted, with its server's name. */
export function listAdminItems(db: Db) {
  return adminItems(db).orderBy('shop_items.id').execute();
}

export function findAdminItem(db: Db, id: number) {
  return adminItems(db).where('shop_items.id', '=', id).executeTakeFirst();
}

/** Every server, in the owner's order, with what says whether it can receive deliveries. */
export function serversForItems(db: Db) {
  return db
    .selectFrom('servers')
    .select(['id', 'name', 'rcon_password', 'rcon_host', 'ip_address'])
    .orderBy('sort_order')
    .orderBy('id')
    .execute();
}

export async function serverExists(db: Db, id: number): Promise<boolean> {
  return (await db.selectFrom('servers').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** A category's name as the owner's list spells it, by its key. */
export async function categoryNameByKey(db: Db, key: string): Promise<string | undefined> {
  return (await db.selectFrom('shop_categories').select('name').where('name_key', '=', key).executeTakeFirst())?.name;
}

export function insertItem(trx: Db, row: Insertable<ShopItemsTable>): Promise<ItemRow> {
  return trx.insertInto('shop_items').values(row).returningAll().executeTakeFirstOrThrow();
}

/** An item that is not deleted. */
export function findLiveItem(db: Db, id: number): Promise<ItemRow | undefined> {
  return db.selectFrom('shop_items').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

/** Changes an item that is not deleted; undefined when it is gone (deleted meanwhile). */
export function updateLiveItem(trx: Db, id: number, changes: Updateable<ShopItemsTable>): Promise<ItemRow | undefined> {
  return trx.updateTable('shop_items').set(changes).where('id', '=', id).where('deleted_at', 'is', null).returningAll().executeTakeFirst();
}

/** Marks the item deleted, once: false when it already was. */
export async function markItemDeleted(trx: Db, id: number, now: number): Promise<boolean> {
  const done = await trx
    .updateTable('shop_items')
    .set({ deleted_at: now, updated_at: now })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

// --- Categories ---------------------------------------------------------------------------------

export function categoriesInOrder(db: Db) {
  return db
    .selectFrom('shop_categories')
    .select(['id', 'name', 'position', 'sale_percent', 'sale_ends_at'])
    .orderBy('position')
    .orderBy('id')
    .execute();
}

/** How many items (not deleted) carry each category name as stored (several spellings of one key count apart). */
export function liveItemCountsByCategory(db: Db) {
  return db
    .selectFrom('shop_items')
    .select(['category', (eb) => eb.fn.countAll<number>().as('n')])
    .where('deleted_at', 'is', null)
    .groupBy('category')
    .execute();
}

/** The first category of the owner's list. */
export async function firstCategoryName(db: Db): Promise<string | undefined> {
  return (await db.selectFrom('shop_categories').select('name').orderBy('position').orderBy('id').limit(1).executeTakeFirst())?.name;
}

/** The highest position in the list; null when it is empty. */
export async function lastCategoryPosition(trx: Db): Promise<number | null> {
  const last = await trx
    .selectFrom('shop_categories')
    .select((eb) => eb.fn.max('position').as('p'))
    .executeTakeFirst();
  return last?.p == null ? null : Number(last.p);
}

export function insertCategory(trx: Db, row: Insertable<ShopCategoriesTable>) {
  return trx.insertInto('shop_categories').values(row).returning(['id', 'name', 'position']).executeTakeFirstOrThrow();
}

/** The category names of items on sale (not deleted), as stored. */
export async function categoriesOfItemsOnSale(db: Db): Promise<string[]> {
  const used = await db
    .selectFrom('shop_items')
    .select('category')
    .distinct()
    .where('deleted_at', 'is', null)
    .where('status', '=', ON_SALE)
    .execute();
  return used.map((u) => u.category);
}

export function findCategory(trx: Db, id: number) {
  return trx.selectFrom('shop_categories').select(['id', 'name', 'position']).where('id', '=', id).executeTakeFirst();
}

export function updateCategoryRow(trx: Db, id: number, changes: Updateable<ShopCategoriesTable>) {
  return trx
    .updateTable('shop_categories')
    .set(changes)
    .where('id', '=', id)
    .returning(['id', 'name', 'position'])
    .executeTakeFirstOrThrow();
}

/** Every item's category, deleted items too (a renamed category takes them all along). */
export function allItemCategories(trx: Db) {
  return trx.selectFrom('shop_items').select(['id', 'category']).execute();
}

export async function moveItemsToCategory(trx: Db, ids: number[], name: string, now: number): Promise<void> {
  await trx.updateTable('shop_items').set({ category: name, updated_at: now }).where('id', 'in', ids).execute();
}

/** The category of every item that is not deleted. */
export async function liveItemCategories(trx: Db): Promise<string[]> {
  const items = await trx.selectFrom('shop_items').select('category').where('deleted_at', 'is', null).execute();
  return items.map((i) => i.category);
}

export async function deleteCategoryRow(trx: Db, id: number): Promise<void> {
  await trx.deleteFrom('shop_categories').where('id', '=', id).execute();
}

// --- Purchases ----------------------------------------------------------------------------------

/** What a purchase reads of an item: what it is, its prices, its limit and whether it can be sold. */
export function itemForPurchase(trx: Db, id: number) {
  return trx
    .selectFrom('shop_items')
    .select([
      'id',
      'name',
      'category',
      'item_id_minecraft',
      'price',
      'sale_price',
      'sale_ends_at',
      'server_id',
      'pieces',
      'commands',
      'limit_per_player',
      'limit_period',
      'status',
      'count',
      'unlimited',
      'deleted_at',
    ])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Purchases of the item the player got (as the recipient) since `since`. */
export async function boughtSince(trx: Db, userId: number, itemId: number, since: number): Promise<number> {
  const had = await trx
    .selectFrom('shop_orders')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('quantity'), sql<number>`0`).as('n'))
    .where('user_id', '=', userId)
    .where('item_id', '=', itemId)
    .where('created_at', '>', since)
    .executeTakeFirst();
  return Number(had?.n ?? 0);
}

/**
 * Takes `quantity` of a counted item's stock (never below zero), only if the item is still on
 * sale at the prices it was priced at (`priced`); false otherwise. The row stays locked until
 * the commit.
 */
export async function takeStock(
  trx: Db,
  itemId: number,
  quantity: number,
  priced: Pick<ItemRow, 'price' | 'sale_price' | 'sale_ends_at'>,
  now: number,
): Promise<boolean> {
  const taken = await trx
    .updateTable('shop_items')
    .set({ count: sql<number>`count - ${quantity}`, updated_at: now })
    .where('id', '=', itemId)
    .where('deleted_at', 'is', null)
    .where('status', '=', ON_SALE)
    .where('unlimited', '=', 0)
    .where('count', '>=', quantity)
    .where('price', '=', priced.price)
    .where('sale_price', priced.sale_price === null ? 'is' : '=', priced.sale_price)
    .where('sale_ends_at', priced.sale_ends_at === null ? 'is' : '=', priced.sale_ends_at)
    .returning('id')
    .executeTakeFirst();
  return taken !== undefined;
}

/** Whether an item can be sold now: what a refused stock update reads to say why. */
export function itemSaleState(trx: Db, id: number) {
  return trx.selectFrom('shop_items').select(['status', 'count', 'unlimited', 'deleted_at']).where('id', '=', id).executeTakeFirst();
}

export async function insertOrder(trx: Db, row: Insertable<ShopOrdersTable>): Promise<number> {
  const { id } = await trx.insertInto('shop_orders').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

// --- Orders -------------------------------------------------------------------------------------

/** The player's purchases and the gifts they got or gave, newest first, with the item's icon and both names. */
export function ordersOf(db: Db, userId: number, limit: number) {
  return db
    .selectFrom('shop_orders')
    .innerJoin('shop_items', 'shop_items.id', 'shop_orders.item_id')
    .leftJoin('users as payer', 'payer.id', 'shop_orders.paid_by')
    .leftJoin('users as recipient', 'recipient.id', 'shop_orders.user_id')
    .select([
      'shop_orders.id',
      'shop_orders.user_id',
      'shop_orders.paid_by',
      'shop_orders.item_id',
      'shop_orders.item_name',
      'shop_items.icon',
      'shop_orders.quantity',
      'shop_orders.pieces',
      'shop_orders.price',
      'shop_orders.total',
      'shop_orders.created_at',
      'payer.username as payer_name',
      'recipient.username as recipient_name',
    ])
    .where((eb) => eb.or([eb('shop_orders.user_id', '=', userId), eb('shop_orders.paid_by', '=', userId)]))
    .orderBy('shop_orders.id', 'desc')
    .limit(limit)
    .execute();
}

export function orderSummaries(db: Db, ids: number[]) {
  return db.selectFrom('shop_orders').select(['id', 'item_name', 'quantity']).where('id', 'in', ids).execute();
}

/** Every order with the count and sum of its purchase rows in the ledger (`order:<id>`). */
export function ordersAgainstLedger(db: Db) {
  return db
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
}

/** Every shop delivery with its order and the count and sum of its refund rows in the ledger (`delivery:<id>`). */
export function refundsAgainstLedger(db: Db) {
  return db
    .selectFrom('deliveries')
    .innerJoin('shop_orders', 'shop_orders.id', 'deliveries.source_id')
    .leftJoin('ledger', (j) => j.on('ledger.reason', '=', 'refund').on('ledger.ref', '=', sql<string>`'delivery:' || deliveries.id`))
    .select([
      'deliveries.id',
      'deliveries.state',
      'deliveries.quantity',
      'shop_orders.total',
      'shop_orders.quantity as order_quantity',
      (eb) => eb.fn.count<number>('ledger.id').as('rows'),
      (eb) => eb.fn.sum<number>('ledger.amount').as('amount'),
    ])
    .where('deliveries.source', '=', 'shop')
    .groupBy(['deliveries.id', 'deliveries.state', 'deliveries.quantity', 'shop_orders.total', 'shop_orders.quantity'])
    .execute();
}

// --- Refunds ------------------------------------------------------------------------------------

/** A delivery with its shop order, if it has one (what a refund returns and to whom). */
export function deliveryWithOrder(trx: Db, id: number) {
  return trx
    .selectFrom('deliveries as d')
    .leftJoin('shop_orders as o', (j) => j.onRef('o.id', '=', 'd.source_id').on('d.source', '=', 'shop'))
    .select([
      'd.state',
      'd.user_id',
      'd.quantity',
      'd.source',
      'o.id as order_id',
      'o.total',
      'o.quantity as order_quantity',
      'o.paid_by',
      'o.item_id',
      'o.item_name',
    ])
    .where('d.id', '=', id)
    .executeTakeFirst();
}

/** Kopecks of an order that went back to the balance with its other deliveries' refunds (`delivery:<id>` rows). */
export async function returnedOfOrder(trx: Db, orderId: number, exceptDeliveryId: number): Promise<number> {
  const r = await trx
    .selectFrom('deliveries')
    .innerJoin('ledger', (j) => j.on('ledger.reason', '=', 'refund').on('ledger.ref', '=', sql<string>`'delivery:' || deliveries.id`))
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('ledger.amount'), eb.lit(0)).as('amount'))
    .where('deliveries.source', '=', 'shop')
    .where('deliveries.source_id', '=', orderId)
    .where('deliveries.id', '!=', exceptDeliveryId)
    .executeTakeFirst();
  return Number(r?.amount ?? 0);
}

/**
 * → refunded, once, and the row's claim is dropped: only a row not given (pending, failed,
 * unknown) and never refunded; false otherwise, so a second refund or one racing the worker
 * changes nothing.
 */
export async function markDeliveryRefunded(trx: Db, id: number, now: number): Promise<boolean> {
  const changed = await trx
    .updateTable('deliveries')
    .set({ state: 'refunded', waiting: null, refunded_at: now, lock_token: null, locked_until: null, updated_at: now })
    .where('id', '=', id)
    .where('state', 'in', ['pending', 'failed', 'unknown'])
    .where('refunded_at', 'is', null)
    .executeTakeFirst();
  return Number(changed.numUpdatedRows) === 1;
}

export async function deliveryState(trx: Db, id: number): Promise<string> {
  return (await trx.selectFrom('deliveries').select('state').where('id', '=', id).executeTakeFirstOrThrow()).state;
}

/** Puts purchases back in stock (nothing for an unlimited item). */
export async function restock(trx: Db, itemId: number, quantity: number, now: number): Promise<void> {
  await trx
    .updateTable('shop_items')
    .set({ count: sql<number>`count + (case when unlimited = 1 then 0 else ${quantity} end)`, updated_at: now })
    .where('id', '=', itemId)
    .execute();
}
