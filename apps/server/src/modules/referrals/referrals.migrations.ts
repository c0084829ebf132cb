import { sql, type Kysely, type Migration } from 'kysely';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';

// Names 2026112660_… and 2026120650_…. Migrations of the referrals feature, merged by db/migrations/index.ts and run in order of name.
export const referralsMigrations: Record<string, Migration> = {
  '2026112661_referrals': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('referral_codes')
        .addColumn('user_id', 'integer', (c) => c.primaryKey())
        .addColumn('code', 'varchar(32)', notNull)
        .addColumn('created_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('referral_codes_code_uq').unique().on('referral_codes').column('code').execute();
      await db.schema
        .createTable('referrals')
        .addColumn('invited_id', 'integer', (c) => c.primaryKey())
        .addColumn('inviter_id', 'integer', notNull)
        .addColumn('created_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('referrals_inviter_idx').on('referrals').columns(['inviter_id', 'created_at']).execute();
      await withId(db, db.schema.createTable('referral_rewards'))
        .addColumn('inviter_id', 'integer', notNull)
        .addColumn('invited_id', 'integer', notNull)
        .addColumn('payment_id', 'varchar(64)', notNull)
        .addColumn('kind', 'varchar(16)', notNull)
        .addColumn('payment_amount', bigint, notNull)
        .addColumn('amount', bigint, notNull)
        .addColumn('reversed', bigint, notNull)
        .addColumn('created_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('referral_rewards_payment_uq').unique().on('referral_rewards').columns(['payment_id', 'kind']).execute();
      // Each payment (and each refund step) moves an inviter's money once: one ledger row per ref.
      await sql`create unique index ledger_referral_ref_uq on ledger (ref) where reason = 'referral_reward'`.execute(db);
      // The bonus for the first top-up is paid once per invited player, whatever races.
      await sql`create unique index referral_rewards_bonus_uq on referral_rewards (invited_id) where kind = 'bonus'`.execute(db);
      await db.schema.createIndex('referral_rewards_invited_idx').on('referral_rewards').columns(['invited_id', 'kind']).execute();
    },
  },
  '2026120650_referral_hold': {
    async up(db: Kysely<unknown>) {
      // A reward is held for the owner's days before it reaches the balance, or refused when the
      // top-up came from the inviter's own browser or address; rewards paid before were paid at once.
      await db.schema
        .alterTable('referral_rewards')
        .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('paid'))
        .execute();
      await db.schema.alterTable('referral_rewards').addColumn('reason', 'varchar(32)').execute();
      await db.schema.alterTable('referral_rewards').addColumn('release_at', bigint).execute();
      await db.schema.alterTable('referral_rewards').addColumn('paid_at', bigint).execute();
      await sql`update referral_rewards set paid_at = created_at`.execute(db);
      // The release job's queue: only held rewards, by when they are due.
      await sql`create index referral_rewards_held_idx on referral_rewards (release_at) where status = 'held'`.execute(db);
      await db.schema.createIndex('referral_rewards_inviter_idx').on('referral_rewards').columns(['inviter_id', 'status']).execute();
      // Where each account registered from: the address and browser count as its owner's own
      // when a reward for an invited player's top-up is decided.
      await db.schema
        .createTable('referral_signups')
        .addColumn('user_id', 'integer', (c) => c.primaryKey())
        .addColumn('ip', 'varchar(64)')
        .addColumn('device_hash', 'varchar(64)')
        .addColumn('created_at', bigint, notNull)
        .execute();
    },
  },
};
