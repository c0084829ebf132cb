import { sql, type Kysely, type Migration } from 'kysely';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';

// Names 2026112660_…. Migrations of the votes feature, merged by db/migrations/index.ts and run in order of name.
export const votesMigrations: Record<string, Migration> = {
  '2026112660_votes': {
    async up(db: Kysely<unknown>) {
      await withId(db, db.schema.createTable('vote_sites'))
        .addColumn('kind', 'varchar(32)', notNull)
        .addColumn('title', 'varchar(100)', notNull)
        .addColumn('url', 'varchar(500)', notNull)
        .addColumn('secret', 'varchar(200)', notNull)
        .addColumn('reward_amount', bigint, notNull)
        .addColumn('reward_commands', 'text', notNull)
        .addColumn('server_ids', 'text', notNull)
        .addColumn('cooldown_hours', 'integer', notNull)
        .addColumn('custom', 'text')
        .addColumn('enabled', 'integer', notNull)
        .addColumn('created_at', bigint, notNull)
        .addColumn('updated_at', bigint, notNull)
        .execute();
      await withId(db, db.schema.createTable('votes'))
        .addColumn('site_id', 'integer', notNull)
        .addColumn('user_id', 'integer', notNull)
        .addColumn('dedupe', 'varchar(200)', notNull)
        .addColumn('created_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('votes_dedupe_uq').unique().on('votes').columns(['site_id', 'dedupe']).execute();
      await db.schema.createIndex('votes_created_idx').on('votes').columns(['created_at', 'user_id']).execute();
      await db.schema.createIndex('votes_user_idx').on('votes').columns(['user_id', 'created_at']).execute();
      await db.schema
        .createTable('vote_cooldowns')
        .addColumn('site_id', 'integer', notNull)
        .addColumn('user_id', 'integer', notNull)
        .addColumn('next_at', bigint, notNull)
        .addPrimaryKeyConstraint('vote_cooldowns_pk', ['site_id', 'user_id'])
        .execute();
      await withId(db, db.schema.createTable('vote_log'))
        .addColumn('site_id', 'integer', notNull)
        .addColumn('outcome', 'varchar(32)', notNull)
        .addColumn('username', 'varchar(64)')
        .addColumn('ip', 'varchar(64)')
        .addColumn('created_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('vote_log_site_idx').on('vote_log').columns(['site_id', 'id']).execute();
      await db.schema
        .createTable('vote_log_counts')
        .addColumn('site_id', 'integer', notNull)
        .addColumn('outcome', 'varchar(32)', notNull)
        .addColumn('count', bigint, notNull)
        .addPrimaryKeyConstraint('vote_log_counts_pk', ['site_id', 'outcome'])
        .execute();
      await db.schema
        .createTable('vote_prize_payouts')
        .addColumn('month', 'varchar(7)', (c) => c.primaryKey())
        .addColumn('paid_at', bigint, notNull)
        .addColumn('winners', 'text', notNull)
        .execute();
      // A reward or a prize is written once per thing it pays for, however many callbacks,
      // instances or job passes race: the ledger refuses a second row with the same ref.
      await sql`create unique index ledger_vote_ref_uq on ledger (reason, ref) where reason in ('vote_reward', 'vote_prize')`.execute(db);
    },
  },
};
