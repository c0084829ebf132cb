import { sql, type Kysely, type Migration } from 'kysely';
import { SHOP_CATEGORIES } from '@kubik/contract';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';
import { categoryKey } from './shop.category-key.ts';

// Names 2026112230_…, and 2026112311_… (with the delivery queue). Migrations of the shop feature, merged by db/migrations/index.ts and run in order of name.
export const shopMigrations: Record<string, Migration> = {
  '2026112230_shop': {
    async up(db: Kysely<unknown>) {
      // No foreign key to servers: the servers feature deletes its rows freely; a delivery whose
      // server is gone waits and shows why.
      await withId(db, db.schema.createTable('shop_items'))
        .addColumn('name', 'varchar(100)', notNull)
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('icon', 'varchar(2048)', notNull)
        .addColumn('category', 'varchar(32)', (c) => c.notNull().defaultTo('Предметы'))
        .addColumn('item_id_minecraft', 'varchar(100)', (c) => c.notNull().defaultTo('stone'))
        .addColumn('status', 'varchar(32)', (c) => c.notNull().defaultTo('Продаётся'))
        .addColumn('price', bigint, notNull)
        .addColumn('count', 'integer', notNull)
        .addColumn('server_id', 'integer')
        .addColumn('created_at', bigint, notNull)
        .addColumn('updated_at', bigint, notNull)
        .addColumn('deleted_at', bigint)
        .addCheckConstraint('shop_items_count_check', sql`count >= 0`)
        .addCheckConstraint('shop_items_price_check', sql`price >= 0`)
        .execute();

      await withId(db, db.schema.createTable('shop_orders'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('item_id', 'integer', (c) => c.notNull().references('shop_items.id'))
        .addColumn('item_name', 'varchar(100)', notNull)
        .addColumn('item_id_minecraft', 'varchar(100)', notNull)
        .addColumn('price', bigint, notNull)
        .addColumn('quantity', 'integer', notNull)
        .addColumn('total', bigint, notNull)
        .addColumn('created_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('shop_orders_user_idx').on('shop_orders').columns(['user_id', 'id']).execute();
      await db.schema.createIndex('shop_orders_item_idx').on('shop_orders').column('item_id').execute();

      await withId(db, db.schema.createTable('shop_deliveries'))
        .addColumn('order_id', 'integer', (c) => c.notNull().references('shop_orders.id'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('server_id', 'integer')
        .addColumn('quantity', 'integer', notNull)
        .addColumn('state', 'varchar(16)', notNull)
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('retries', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', bigint, notNull)
        .addColumn('lock_token', 'varchar(64)')
        .addColumn('locked_until', bigint)
        .addColumn('command', 'text')
        .addColumn('reply', 'text')
        .addColumn('last_error', 'text')
        .addColumn('sent_at', bigint)
        .addColumn('done_at', bigint)
        .addColumn('refunded_at', bigint)
        .addColumn('created_at', bigint, notNull)
        .addColumn('updated_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('shop_deliveries_due_idx').on('shop_deliveries').columns(['state', 'next_attempt_at']).execute();
      await db.schema.createIndex('shop_deliveries_order_idx').on('shop_deliveries').column('order_id').execute();

      await db.schema
        .createTable('shop_idempotency')
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('key', 'varchar(100)', notNull)
        .addColumn('request', 'varchar(64)', notNull)
        .addColumn('order_id', 'integer')
        .addColumn('response', 'text')
        .addColumn('created_at', bigint, notNull)
        .addPrimaryKeyConstraint('shop_idempotency_pk', ['user_id', 'key'])
        .execute();
      await db.schema.createIndex('shop_idempotency_created_idx').on('shop_idempotency').column('created_at').execute();
    },
  },
  '2026112311_shop_item_commands': {
    async up(db: Kysely<unknown>) {
      // An item's own console commands (JSON array; null: the server's template) and pieces per purchase.
      await db.schema.alterTable('shop_items').addColumn('commands', 'text').execute();
      await db.schema
        .alterTable('shop_items')
        .addColumn('pieces', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      // What one purchase gave at the time of the order.
      await db.schema
        .alterTable('shop_orders')
        .addColumn('pieces', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();

      // The owner's categories, the spec's seven to start with (and any other an item already uses).
      await withId(db, db.schema.createTable('shop_categories'))
        .addColumn('name', 'varchar(32)', notNull)
        // lower-cased in JS: SQLite's lower() knows only ASCII, and «Еда» and «еда» are one category.
        .addColumn('name_key', 'varchar(32)', notNull)
        .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', bigint, notNull)
        .addColumn('updated_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('shop_categories_name_key_idx').on('shop_categories').column('name_key').unique().execute();
      const used = await sql<{ category: string }>`select distinct category from shop_items`.execute(db);
      const names: string[] = [...SHOP_CATEGORIES];
      for (const r of used.rows) if (!names.some((n) => categoryKey(n) === categoryKey(r.category))) names.push(r.category);
      const now = Date.now();
      await sql`insert into shop_categories (name, name_key, position, created_at, updated_at) values ${sql.join(names.map((n, i) => sql`(${n}, ${categoryKey(n)}, ${i}, ${now}, ${now})`))}`.execute(
        db,
      );
    },
  },
  '2026112630_shop_storefront': {
    async up(db: Kysely<unknown>) {
      // Unlimited stock, sales (items and categories), per-player limits, gifts.
      const add = async (table: string, column: string, type: 'integer' | 'bigint' | 'varchar(8)', def?: number | string) =>
        db.schema
          .alterTable(table)
          .addColumn(column, type, (c) => (def === undefined ? c : c.notNull().defaultTo(def)))
          .execute();
      await add('shop_items', 'unlimited', 'integer', 0);
      await add('shop_items', 'sale_price', bigint);
      await add('shop_items', 'sale_ends_at', bigint);
      await add('shop_items', 'limit_per_player', 'integer');
      await add('shop_items', 'limit_period', 'varchar(8)', 'ever');
      await add('shop_categories', 'sale_percent', 'integer');
      await add('shop_categories', 'sale_ends_at', bigint);
      await add('shop_orders', 'paid_by', 'integer');
      // Per-player limits count a player's orders of one item.
      await db.schema.createIndex('shop_orders_user_item_idx').on('shop_orders').columns(['user_id', 'item_id', 'created_at']).execute();
      await db.schema.createIndex('shop_orders_paid_by_idx').on('shop_orders').column('paid_by').execute();
    },
  },
};
