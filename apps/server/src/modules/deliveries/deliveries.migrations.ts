import { sql, type Kysely, type Migration } from 'kysely';
import { bigint, isPg, notNull, withId } from '../../db/schema-helpers.ts';

// Names 2026112310_…–19_…, 2026120701_…. Merged by db/migrations/index.ts and run in order of name.
export const deliveriesMigrations: Record<string, Migration> = {
  '2026112310_deliveries': {
    async up(db: Kysely<unknown>) {
      // One queue for everything sent into the game. It replaces shop_deliveries (tied to shop
      // orders by a required order_id, which SQLite cannot relax in place): its rows move over with
      // their ids, so ledger refunds (ref 'delivery:<id>') still point at them.
      await withId(db, db.schema.createTable('deliveries'))
        .addColumn('source', 'varchar(32)', notNull)
        .addColumn('source_id', 'integer')
        .addColumn('user_id', 'integer', (c) => c.references('users.id'))
        .addColumn('label', 'varchar(200)', notNull)
        .addColumn('server_id', 'integer')
        .addColumn('server_scope', 'varchar(8)', (c) => c.notNull().defaultTo('server'))
        .addColumn('commands', 'text')
        .addColumn('params', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('step', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('quantity', 'integer')
        .addColumn('state', 'varchar(16)', notNull)
        .addColumn('waiting', 'varchar(16)')
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

      const params = isPg(db)
        ? sql`json_build_object('item', o.item_id_minecraft, 'quantity', d.quantity, 'order', d.order_id)::text`
        : sql`json_object('item', o.item_id_minecraft, 'quantity', d.quantity, 'order', d.order_id)`;
      await sql`
        insert into deliveries (id, source, source_id, user_id, label, server_id, server_scope, commands, params, step, quantity, state, waiting,
          attempts, retries, next_attempt_at, lock_token, locked_until, command, reply, last_error, sent_at, done_at, refunded_at, created_at, updated_at)
        select d.id, 'shop', d.order_id, d.user_id, o.item_name, d.server_id, case when d.server_id is null then 'only' else 'server' end, null, ${params}, 0, d.quantity, d.state, null,
          d.attempts, d.retries, d.next_attempt_at, d.lock_token, d.locked_until, d.command, d.reply, d.last_error, d.sent_at, d.done_at, d.refunded_at, d.created_at, d.updated_at
        from shop_deliveries d join shop_orders o on o.id = d.order_id
      `.execute(db);
      if (isPg(db))
        await sql`select setval(pg_get_serial_sequence('deliveries', 'id'), coalesce((select max(id) from deliveries), 0) + 1, false)`.execute(
          db,
        );
      await db.schema.dropTable('shop_deliveries').execute();

      // The worker's claim: due rows of one server, oldest first.
      await db.schema.createIndex('deliveries_due_idx').on('deliveries').columns(['state', 'server_id', 'next_attempt_at']).execute();
      await db.schema.createIndex('deliveries_source_idx').on('deliveries').columns(['source', 'source_id']).execute();
      await db.schema.createIndex('deliveries_user_idx').on('deliveries').columns(['user_id', 'id']).execute();
    },
  },
  '2026120701_deliveries_channel': {
    async up(db: Kysely<unknown>) {
      // plugin: handed to the AzLink plugin in a fetch answer (it never confirms; the admin may resend).
      await db.schema.alterTable('deliveries').addColumn('channel', 'varchar(8)').execute();
    },
  },
};
