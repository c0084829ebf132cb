import { sql, type Kysely, type Migration } from 'kysely';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';

const DEFAULT_PERIODS_JSON = JSON.stringify([1, 3, 6, 12].map((months) => ({ months, discount: 0 })));

// Names 2026112330_…–39_… (the privileges range); never edit a landed migration.
export const privilegesMigrations: Record<string, Migration> = {
  '2026112330_privileges': {
    async up(db: Kysely<unknown>) {
      // What a tier does in the game and for how long it may be bought (JSON arrays).
      await db.schema
        .alterTable('donate_tiers')
        .addColumn('server_ids', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();
      await db.schema
        .alterTable('donate_tiers')
        .addColumn('grant_commands', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();
      await db.schema
        .alterTable('donate_tiers')
        .addColumn('revoke_commands', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();
      await db.schema
        .alterTable('donate_tiers')
        .addColumn('periods_json', 'text', (c) => c.notNull().defaultTo(DEFAULT_PERIODS_JSON))
        .execute();

      // Kits stay in their tier's kits_json; this table hands out their ids (unique across tiers).
      await withId(db, db.schema.createTable('donate_kit_ids'))
        .addColumn('tier_id', 'integer', notNull)
        .addColumn('created_at', bigint, notNull)
        .execute();
      const now = Date.now();
      const tiers = await sql<{ id: number; kits_json: string }>`select id, kits_json from donate_tiers order by id`.execute(db);
      for (const tier of tiers.rows) {
        const kits = JSON.parse(tier.kits_json) as Record<string, unknown>[];
        if (kits.length === 0) continue;
        const withIds = [];
        for (const kit of kits) {
          const row = await sql<{
            id: number;
          }>`insert into donate_kit_ids (tier_id, created_at) values (${tier.id}, ${now}) returning id`.execute(db);
          withIds.push({ ...kit, id: Number(row.rows[0]!.id), give_commands: [] });
        }
        await sql`update donate_tiers set kits_json = ${JSON.stringify(withIds)} where id = ${tier.id}`.execute(db);
      }

      // Who holds which tier, from when until when. One running privilege per player (the
      // partial unique index): buying the held tier extends its row, a higher one ends it.
      await withId(db, db.schema.createTable('privileges'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('tier_id', 'integer', notNull)
        .addColumn('tier_title', 'varchar(100)', notNull)
        .addColumn('starts_at', bigint, notNull)
        .addColumn('expires_at', bigint, notNull)
        .addColumn('ended_at', bigint)
        .addColumn('end_reason', 'varchar(16)')
        .addColumn('reminded_at', bigint)
        .addColumn('granted_by', 'integer')
        .addColumn('created_at', bigint, notNull)
        .addColumn('updated_at', bigint, notNull)
        .execute();
      await sql`create unique index privileges_running_user_uq on privileges (user_id) where ended_at is null`.execute(db);
      await sql`create index privileges_running_expires_idx on privileges (expires_at) where ended_at is null`.execute(db);
      await db.schema.createIndex('privileges_user_idx').on('privileges').columns(['user_id', 'id']).execute();
      await db.schema.createIndex('privileges_tier_idx').on('privileges').column('tier_id').execute();

      // Every purchase (first, extension, upgrade): what was paid and what was credited.
      await withId(db, db.schema.createTable('privilege_purchases'))
        .addColumn('privilege_id', 'integer', (c) => c.notNull().references('privileges.id'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('tier_id', 'integer', notNull)
        .addColumn('months', 'integer', notNull)
        .addColumn('price', bigint, notNull)
        .addColumn('credit', bigint, notNull)
        .addColumn('total', bigint, notNull)
        .addColumn('replaced_id', 'integer')
        .addColumn('created_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('privilege_purchases_user_idx').on('privilege_purchases').columns(['user_id', 'id']).execute();

      await db.schema
        .createTable('privilege_idempotency')
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('key', 'varchar(100)', notNull)
        .addColumn('request', 'varchar(64)', notNull)
        .addColumn('response', 'text')
        .addColumn('created_at', bigint, notNull)
        .addPrimaryKeyConstraint('privilege_idempotency_pk', ['user_id', 'key'])
        .execute();
      await db.schema.createIndex('privilege_idempotency_created_idx').on('privilege_idempotency').column('created_at').execute();

      await withId(db, db.schema.createTable('kit_claims'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('kit_id', 'integer', notNull)
        .addColumn('tier_id', 'integer', notNull)
        .addColumn('privilege_id', 'integer', notNull)
        .addColumn('kit_name', 'varchar(100)', notNull)
        .addColumn('claimed_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('kit_claims_user_kit_idx').on('kit_claims').columns(['user_id', 'kit_id', 'claimed_at']).execute();
    },
  },
  '2026112633_tier_gifts': {
    async up(db: Kysely<unknown>) {
      // A tier bought as a gift (user_id holds it; paid_by paid for it).
      await db.schema.alterTable('privilege_purchases').addColumn('paid_by', 'integer').execute();
    },
  },
};
