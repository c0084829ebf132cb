import { sql, type Kysely, type Migration } from 'kysely';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';
import { redactSignatures } from './payments.redact.ts';

// Names 2026112320_… – 2026112329_…, 2026112410_… – 2026112419_… (the owner's side: refunds) and
// 2026120620_… – 2026120629_… (notifications judged once, their signatures never kept):
// migrations of the payments feature, merged by db/migrations/index.ts.
export const paymentsMigrations: Record<string, Migration> = {
  '2026112320_payments': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('payments')
        // Our id (a UUID): YooKassa's Idempotence-Key, T-Bank's OrderId, the return URL's ?payment=.
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('provider', 'varchar(16)', notNull)
        .addColumn('amount', bigint, notNull)
        .addColumn('bonus', bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('status', 'varchar(16)', notNull)
        .addColumn('provider_payment_id', 'varchar(64)')
        .addColumn('provider_status', 'varchar(32)')
        .addColumn('confirmation_url', 'text')
        .addColumn('created_at', bigint, notNull)
        .addColumn('updated_at', bigint, notNull)
        .addColumn('paid_at', bigint)
        .addColumn('canceled_at', bigint)
        .addColumn('refunded_at', bigint)
        .addColumn('refund_requested_by', 'integer')
        .addColumn('checked_at', bigint)
        .addCheckConstraint('payments_amount_check', sql`amount > 0`)
        .execute();
      await db.schema.createIndex('payments_user_idx').on('payments').columns(['user_id', 'created_at']).execute();
      await db.schema.createIndex('payments_status_idx').on('payments').columns(['status', 'checked_at']).execute();
      await db.schema.createIndex('payments_created_idx').on('payments').column('created_at').execute();
      await db.schema
        .createIndex('payments_provider_id_idx')
        .on('payments')
        .columns(['provider', 'provider_payment_id'])
        .unique()
        .execute();

      // Every notification and every provider answer, for the owner to see.
      await withId(db, db.schema.createTable('payment_events'))
        .addColumn('payment_id', 'varchar(36)')
        .addColumn('provider', 'varchar(16)', notNull)
        .addColumn('kind', 'varchar(24)', notNull)
        .addColumn('ip', 'varchar(64)')
        .addColumn('outcome', 'varchar(200)', notNull)
        .addColumn('body', 'text')
        .addColumn('created_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('payment_events_payment_idx').on('payment_events').columns(['payment_id', 'id']).execute();

      // A payment credits once: one `topup` (and one `bonus`) ledger row per payment.
      await db.schema
        .createIndex('ledger_topup_once_idx')
        .on('ledger')
        .columns(['reason', 'ref'])
        .unique()
        .where(sql<boolean>`reason in ('topup', 'bonus', 'topup_refund')`)
        .execute();
    },
  },
  '2026112410_payment_refunds': {
    async up(db: Kysely<unknown>) {
      // A refund is numbered (attempt n of the payment): its ledger rows are `payment:{id}:refund:{n}`
      // (the debit) and, when the provider refused, `payment:{id}:refund:{n}:back` (the money put
      // back) — each unique by ledger_topup_once_idx; the provider's idempotence key carries n too.
      await db.schema
        .alterTable('payments')
        .addColumn('refund_attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // Whoever calls the provider about a refund holds this lease (epoch ms): one caller at a time.
      await db.schema.alterTable('payments').addColumn('refund_lease_until', bigint).execute();
      await db.schema.alterTable('payments').addColumn('provider_refund_id', 'varchar(64)').execute();
      await db.schema.alterTable('payments').addColumn('refund_error', 'varchar(300)').execute();
    },
  },
  '2026112634_payment_promo': {
    async up(db: Kysely<unknown>) {
      // A top-up promo code.
      await db.schema.alterTable('payments').addColumn('promo_id', 'integer').execute();
    },
  },
  '2026112680_payment_connections': {
    async up(db: Kysely<unknown>) {
      // Providers set up in the admin; secrets sealed (AES-256-GCM) in a JSON object.
      await db.schema
        .createTable('payment_providers')
        .addColumn('provider', 'varchar(16)', (c) => c.primaryKey())
        .addColumn('enabled', 'integer')
        .addColumn('receipts', 'integer')
        .addColumn('min_kopecks', bigint)
        .addColumn('max_kopecks', bigint)
        .addColumn('fields', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('secrets', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('updated_at', bigint, notNull)
        .execute();
      // Refused notifications: counted per provider and reason, never stored whole.
      await db.schema
        .createTable('payment_refusals')
        .addColumn('provider', 'varchar(16)', notNull)
        .addColumn('reason', 'varchar(24)', notNull)
        .addColumn('count', bigint, notNull)
        .addColumn('first_at', bigint, notNull)
        .addColumn('last_at', bigint, notNull)
        .addColumn('last_ip', 'varchar(64)')
        .addPrimaryKeyConstraint('payment_refusals_pk', ['provider', 'reason'])
        .execute();
      // Partial refunds: what went back so far, and the attempt in flight.
      await db.schema
        .alterTable('payments')
        .addColumn('refunded_amount', bigint, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('payments')
        .addColumn('bonus_refunded', bigint, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('payments').addColumn('refund_now', bigint).execute();
      await db.schema.alterTable('payments').addColumn('refund_bonus_now', bigint).execute();
      // A transfer credits once: ЮMoney operation_id, FreeKassa intid.
      await db.schema.alterTable('payments').addColumn('provider_operation_id', 'varchar(64)').execute();
      await db.schema
        .createIndex('payments_operation_idx')
        .on('payments')
        .columns(['provider', 'provider_operation_id'])
        .unique()
        .execute();
      // Refunds finished before partial refunds existed were whole: refunded_amount says so.
      await sql`update payments set refunded_amount = amount, bonus_refunded = bonus where status = 'refunded'`.execute(db);
    },
  },
  '2026120610_payment_providers_dropped_secrets': {
    async up(db: Kysely<unknown>) {
      // Keys dropped when the provider's address changed, with when (the admin says why they are gone).
      await db.schema
        .alterTable('payment_providers')
        .addColumn('dropped_secrets', 'text', (c) => c.notNull().defaultTo('{}'))
        .execute();
    },
  },
  '2026120620_payment_operations': {
    async up(db: Kysely<unknown>) {
      // A transfer taken on its signed notification's word is judged once (credited or refused):
      // the primary key is what two notifications of one operation racing each other meet.
      await db.schema
        .createTable('payment_operations')
        .addColumn('provider', 'varchar(16)', notNull)
        .addColumn('operation_id', 'varchar(64)', notNull)
        .addColumn('payment_id', 'varchar(36)', notNull)
        .addColumn('outcome', 'varchar(200)', notNull)
        .addColumn('created_at', bigint, notNull)
        .addPrimaryKeyConstraint('payment_operations_pk', ['provider', 'operation_id'])
        .execute();
      // Transfers that already credited a payment are used.
      await sql`insert into payment_operations (provider, operation_id, payment_id, outcome, created_at)
        select provider, provider_operation_id, id, 'зачислено', coalesce(paid_at, updated_at) from payments
        where provider_operation_id is not null`.execute(db);
      // Notifications kept with their signatures (sha1_hash, Token, SIGN) lose them: nothing needs
      // them after the check, and staff who read the payment's events must not be able to replay one.
      const events = db as Kysely<{ payment_events: { id: number; body: string | null } }>;
      for (let after = 0; ;) {
        const rows = await events
          .selectFrom('payment_events')
          .select(['id', 'body'])
          .where('id', '>', after)
          .where('body', 'is not', null)
          .orderBy('id')
          .limit(500)
          .execute();
        if (rows.length === 0) break;
        for (const r of rows) {
          const clean = redactSignatures(r.body!);
          if (clean !== r.body) await events.updateTable('payment_events').set({ body: clean }).where('id', '=', r.id).execute();
        }
        after = rows.at(-1)!.id;
      }
    },
  },
  '2026120651_payment_payer': {
    async up(db: Kysely<unknown>) {
      // Who asked for the payment, from where: the address (as TRUST_PROXY reads it) and the
      // browser's device cookie (sha256, as known_devices keeps it). Referral rewards are refused
      // when an invited player's top-up comes from the inviter's own.
      await db.schema.alterTable('payments').addColumn('payer_ip', 'varchar(64)').execute();
      await db.schema.alterTable('payments').addColumn('payer_device', 'varchar(64)').execute();
    },
  },
};
