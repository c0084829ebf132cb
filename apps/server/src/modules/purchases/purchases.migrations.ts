import { createHash } from 'node:crypto';
import { sql, type Kysely, type Migration } from 'kysely';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';

const WEEK_MS = 7 * 86_400_000;

/**
 * The fingerprint purchases.keys.ts gives these two requests, written out here because a landed
 * migration never changes while the code may (purchases.keys.test.ts checks a moved key replays).
 */
const fingerprint = (kind: 'shop' | 'tier', canonical: string) => createHash('sha256').update(`${kind}\n${canonical}`).digest('hex');

/** `a:b` of the old tables, two whole numbers; anything else is not a key we can move. */
function pair(request: string): [number, number] | null {
  const m = /^(\d{1,10}):(\d{1,10})$/.exec(request);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

// Names 2026112620_… (the purchases core); never edit a landed migration.
export const purchasesMigrations: Record<string, Migration> = {
  '2026112620_purchase_keys': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('purchase_keys')
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('key', 'varchar(100)', notNull)
        .addColumn('kind', 'varchar(16)', notNull)
        .addColumn('request', 'varchar(64)', notNull)
        .addColumn('response', 'text')
        .addColumn('created_at', bigint, notNull)
        .addPrimaryKeyConstraint('purchase_keys_pk', ['user_id', 'key'])
        .execute();
      await db.schema.createIndex('purchase_keys_created_idx').on('purchase_keys').column('created_at').execute();

      // The keys still alive in the two tables this one replaces, so that a retry sent across the
      // upgrade still gets its first answer. The old tables stay for the instances of the previous
      // release that run until the rolling restart reaches them (README: nothing is dropped in the
      // release that stops using it).
      const since = Date.now() - WEEK_MS;
      const moved: { user_id: number; key: string; kind: string; request: string; response: string; created_at: number }[] = [];
      const old = async (table: string) =>
        (
          await sql<{
            user_id: number;
            key: string;
            request: string;
            response: string;
            created_at: number;
          }>`select user_id, key, request, response, created_at from ${sql.table(table)} where created_at >= ${since} and response is not null`.execute(
            db,
          )
        ).rows;
      for (const r of await old('shop_idempotency')) {
        const p = pair(r.request);
        if (p) moved.push({ ...r, kind: 'shop', request: fingerprint('shop', `{"quantity":${p[1]},"shop_id":${p[0]}}`) });
      }
      for (const r of await old('privilege_idempotency')) {
        const p = pair(r.request);
        if (p) moved.push({ ...r, kind: 'tier', request: fingerprint('tier', `{"months":${p[1]},"tier_id":${p[0]}}`) });
      }
      moved.sort((a, b) => Number(a.created_at) - Number(b.created_at));
      for (let i = 0; i < moved.length; i += 500) {
        // A key both tables hold (one player's key used for an item and a tier) keeps its first use.
        await sql`insert into purchase_keys (user_id, key, kind, request, response, created_at) values ${sql.join(
          moved
            .slice(i, i + 500)
            .map((r) => sql`(${r.user_id}, ${r.key}, ${r.kind}, ${r.request}, ${r.response}, ${Number(r.created_at)})`),
        )} on conflict (user_id, key) do nothing`.execute(db);
      }
    },
  },
  '2026112631_promo_codes': {
    async up(db: Kysely<unknown>) {
      await withId(db, db.schema.createTable('promo_codes'))
        .addColumn('code', 'varchar(32)', notNull)
        .addColumn('code_key', 'varchar(32)', notNull)
        .addColumn('kind', 'varchar(16)', notNull)
        .addColumn('value', bigint, notNull)
        .addColumn('applies_to', 'varchar(8)', notNull)
        .addColumn('item_ids', 'text')
        .addColumn('category', 'varchar(32)')
        .addColumn('max_uses', 'integer')
        .addColumn('per_player', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('min_total', bigint)
        .addColumn('starts_at', bigint)
        .addColumn('ends_at', bigint)
        .addColumn('disabled_at', bigint)
        .addColumn('uses', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', bigint, notNull)
        .addColumn('updated_at', bigint, notNull)
        .addCheckConstraint('promo_codes_uses_check', sql`max_uses is null or uses <= max_uses`)
        .execute();
      await db.schema.createIndex('promo_codes_code_key_idx').on('promo_codes').column('code_key').unique().execute();
      await withId(db, db.schema.createTable('promo_uses'))
        .addColumn('promo_id', 'integer', (c) => c.notNull().references('promo_codes.id'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('target', 'varchar(8)', notNull)
        .addColumn('ref', 'varchar(64)', notNull)
        .addColumn('discount', bigint, notNull)
        .addColumn('total', bigint, notNull)
        .addColumn('created_at', bigint, notNull)
        .execute();
      await db.schema.createIndex('promo_uses_promo_user_idx').on('promo_uses').columns(['promo_id', 'user_id']).execute();
    },
  },
};
