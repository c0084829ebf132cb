import type { Generated } from 'kysely';

/** Tables of the shop feature; db/types.ts merges them into the Database type. */
export interface ShopTables {
  shop_items: ShopItemsTable;
  shop_orders: ShopOrdersTable;
  shop_deliveries: ShopDeliveriesTable;
  shop_idempotency: ShopIdempotencyTable;
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
  /** Integer kopecks per piece. */
  price: number;
  /** Pieces left; never below zero (a CHECK and the conditional purchase update keep it so). */
  count: number;
  /** The game server the item is delivered on; null until one is chosen. */
  server_id: number | null;
  created_at: number;
  updated_at: number;
  /** Deleted items stay for the orders that name them. */
  deleted_at: number | null;
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
  created_at: number;
}

export interface ShopDeliveriesTable {
  id: Generated<number>;
  order_id: number;
  user_id: number;
  /** Where to send it; null: the only server with RCON, resolved when it is sent. */
  server_id: number | null;
  /** Pieces in this delivery (an order is split into stacks of at most 64). */
  quantity: number;
  /** pending | sent | done | failed | unknown | refunded */
  state: string;
  /** Commands sent for this row. */
  attempts: number;
  /** Consecutive waits (server unreachable, player not in the game); drives the backoff. */
  retries: number;
  next_attempt_at: number;
  /** Claim of one worker: set by a conditional update, so two instances never send the same row. */
  lock_token: string | null;
  locked_until: number | null;
  command: string | null;
  reply: string | null;
  last_error: string | null;
  sent_at: number | null;
  done_at: number | null;
  refunded_at: number | null;
  created_at: number;
  updated_at: number;
}

/** The first answer to a purchase made with an Idempotency-Key, per user. */
export interface ShopIdempotencyTable {
  user_id: number;
  key: string;
  /** `shop_id:quantity` of the first request; the same key with another request is refused. */
  request: string;
  order_id: number | null;
  /** JSON of the answer. */
  response: string | null;
  created_at: number;
}
