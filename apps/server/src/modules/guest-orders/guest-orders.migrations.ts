import { sql, type Kysely, type Migration } from 'kysely';
import { bigint, notNull } from '../../db/schema-helpers.ts';

// Names 2026120732_…, 2026120760_…–69_…. Migrations of the guest-orders feature, merged by db/migrations/index.ts and run in order of name.
export const guestOrdersMigrations: Record<string, Migration> = {
  '2026120732_guest_orders': {
    async up(db: Kysely<unknown>) {
      // A delivery for a nickname without an account names the player itself.
      await db.schema.alterTable('deliveries').addColumn('player_name', 'varchar(32)').execute();
      await db.schema
        .createTable('guest_orders')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('nickname', 'varchar(32)', notNull)
        .addColumn('nickname_lower', 'varchar(32)', notNull)
        .addColumn('email', 'varchar(254)', notNull)
        .addColumn('item_id', 'integer', notNull)
        .addColumn('item_name', 'varchar(200)', notNull)
        .addColumn('quantity', 'integer', notNull)
        .addColumn('amount', bigint, notNull)
        .addColumn('provider', 'varchar(16)', notNull)
        .addColumn('provider_payment_id', 'varchar(100)')
        .addColumn('confirmation_url', 'varchar(2048)')
        .addColumn('status', 'varchar(16)', notNull)
        .addColumn('fulfilled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('payer_ip', 'varchar(64)')
        .addColumn('created_at', bigint, notNull)
        .addColumn('paid_at', bigint)
        .addColumn('checked_at', bigint)
        .execute();
      await db.schema.createIndex('guest_orders_provider_idx').on('guest_orders').columns(['provider', 'provider_payment_id']).execute();
      await db.schema.createIndex('guest_orders_status_idx').on('guest_orders').columns(['status', 'created_at']).execute();
      await db.schema.createIndex('guest_orders_nickname_idx').on('guest_orders').columns(['nickname_lower', 'user_id']).execute();
    },
  },
  '2026120760_guest_tier_orders': {
    async up(db: Kysely<unknown>) {
      // A guest may buy a donate tier too: item_id names the tier and quantity its months then.
      await db.schema
        .alterTable('guest_orders')
        .addColumn('kind', 'varchar(8)', (c) => c.notNull().defaultTo('item'))
        .execute();
      // While no account has the nickname, the order itself holds the privilege (until expires_at; ended_at once its revoke commands are queued).
      await db.schema.alterTable('guest_orders').addColumn('expires_at', bigint).execute();
      await db.schema.alterTable('guest_orders').addColumn('ended_at', bigint).execute();
      // The privilege an account holds for it (placed at payment, or when the account is registered).
      await db.schema.alterTable('guest_orders').addColumn('privilege_id', 'integer').execute();
      await db.schema.createIndex('guest_orders_holding_idx').on('guest_orders').columns(['kind', 'ended_at', 'expires_at']).execute();
      // One tier held per nickname without an account: of two orders paid at once, the second's
      // transaction fails here and its re-read finds the first holding (left for the owner to refund).
      await sql`create unique index guest_orders_nickname_holds_uq on guest_orders (nickname_lower) where kind = 'tier' and expires_at is not null and privilege_id is null and ended_at is null`.execute(
        db,
      );
    },
  },
};
