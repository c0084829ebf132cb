import type { Generated } from 'kysely';

/** Tables of the shop feature; db/types.ts merges them into the Database type. */
export interface ShopTables {
  shop_items: ShopItemsTable;
  shop_orders: ShopOrdersTable;
  shop_categories: ShopCategoriesTable;
}

export interface ShopItemsTable {
  id: Generated<number>;
  name: string;
  description: string;
  /** Icon URL. */
  icon: string;
  category: string;
  item_id_minecraft: string;
  /** 'Продаётся' is on sale; anything else is shown as inactive and cannot be bought. */
  status: string;
  /** Integer kopecks per purchase (of `pieces` pieces). */
  price: number;
  /** Purchases left; never below zero (a CHECK and the conditional purchase update keep it so). */
  count: number;
  /** The game server the item is delivered on; null until one is chosen. */
  server_id: number | null;
  /** JSON array of its own console commands; null: the server's command template. */
  commands: string | null;
  /** Pieces one purchase gives («Алмазы ×16»); 1 unless set. */
  pieces: Generated<number>;
  created_at: number;
  updated_at: number;
  /** Deleted items stay for the orders that name them. */
  deleted_at: number | null;
  /** 1: stock is not counted (`count` stays as it is); the API says `count: null`. */
  unlimited: Generated<number>;
  /** Kopecks per purchase while the sale runs (until sale_ends_at; null end: until removed). */
  sale_price: number | null;
  sale_ends_at: number | null;
  /** Purchases one player may make per limit_period ('day', 'week', 'ever'); null: no limit. */
  limit_per_player: number | null;
  limit_period: Generated<string>;
}

export interface ShopOrdersTable {
  id: Generated<number>;
  user_id: number;
  item_id: number;
  // A snapshot of the item at the time of purchase: later edits do not change what was bought.
  item_name: string;
  item_id_minecraft: string;
  /** Kopecks per piece, and the total debited. */
  price: number;
  quantity: number;
  total: number;
  /** Pieces per purchase at the time of the order; 1 unless set. */
  pieces: Generated<number>;
  created_at: number;
  /** A gift: the player who paid (user_id is the recipient); null when bought for oneself. */
  paid_by: number | null;
}

/** The owner's item categories, in their order. */
export interface ShopCategoriesTable {
  id: Generated<number>;
  name: string;
  /** The name lower-cased (categoryKey): unique, so «Еда» and «еда» are one. */
  name_key: string;
  position: number;
  created_at: number;
  updated_at: number;
  /** A sale on the category: percent off until sale_ends_at (null end: until removed). */
  sale_percent: number | null;
  sale_ends_at: number | null;
}
