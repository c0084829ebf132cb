import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator, sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/index.ts';
import { migrateToLatest } from '../../db/migrate.ts';
import { migrations } from '../../db/migrations/index.ts';
import { createPgDatabase, dbKinds } from '../../test/test-app.ts';

describe.each(dbKinds)('the delivery queue migration on %s', (kind) => {
  it('moves every shop delivery into the queue with its id, state and reply, and new rows carry on after them', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kubik-mig-'));
    const pgDb = kind === 'pg' ? await createPgDatabase() : null;
    const handle = openDatabase({ databaseUrl: pgDb?.url, sqlitePath: path.join(dir, 'db.sqlite') });
    try {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the schema of before the migration
      const db = handle.db as unknown as Kysely<any>;
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      const before = await migrator.migrateTo('2026112250_user_cache_notify');
      expect(before.error).toBeUndefined();
      const now = Date.now();
      await sql`insert into users (username, username_lower, email, email_lower, password_hash, is_admin, balance, email_verified_at, created_at) values ('Steve', 'steve', 's@x.ru', 's@x.ru', 'x', 0, 0, ${now}, ${now})`.execute(
        db,
      );
      await sql`insert into shop_items (name, icon, category, item_id_minecraft, price, count, created_at, updated_at) values ('Алмаз', '/i.png', 'Редкое', 'diamond', 250, 10, ${now}, ${now})`.execute(
        db,
      );
      await sql`insert into shop_orders (user_id, item_id, item_name, item_id_minecraft, price, quantity, total, created_at) values (1, 1, 'Алмаз', 'diamond', 250, 70, 17500, ${now})`.execute(
        db,
      );
      await sql`insert into shop_deliveries (id, order_id, user_id, server_id, quantity, state, attempts, retries, next_attempt_at, command, reply, created_at, updated_at)
        values (5, 1, 1, 3, 64, 'done', 1, 0, ${now}, 'give Steve minecraft:diamond 64', 'Gave 64 [Diamond] to Steve', ${now}, ${now}),
               (9, 1, 1, null, 6, 'pending', 0, 2, ${now}, null, null, ${now}, ${now})`.execute(db);

      await migrateToLatest(handle);
      const rows = await handle.db.selectFrom('deliveries').selectAll().orderBy('id').execute();
      expect(rows.map((r) => ({ ...r, params: JSON.parse(r.params) }))).toMatchObject([
        {
          id: 5,
          source: 'shop',
          source_id: 1,
          user_id: 1,
          label: 'Алмаз',
          server_id: 3,
          server_scope: 'server',
          commands: null,
          params: { item: 'diamond', quantity: 64, order: 1 },
          quantity: 64,
          state: 'done',
          attempts: 1,
          reply: 'Gave 64 [Diamond] to Steve',
        },
        {
          id: 9,
          source: 'shop',
          source_id: 1,
          server_id: null,
          server_scope: 'only',
          params: { item: 'diamond', quantity: 6, order: 1 },
          quantity: 6,
          state: 'pending',
          retries: 2,
        },
      ]);
      const next = await handle.db
        .insertInto('deliveries')
        .values({
          source: 'kit',
          source_id: null,
          user_id: 1,
          label: 'Набор',
          server_id: null,
          server_scope: 'all',
          commands: '["give {player} bread 1"]',
          params: '{}',
          step: 0,
          quantity: null,
          state: 'pending',
          waiting: null,
          attempts: 0,
          retries: 0,
          next_attempt_at: now,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      expect(next.id).toBe(10);
      // The owner's categories: the spec's seven, and the one an item already used.
      const categories = await handle.db.selectFrom('shop_categories').select('name').orderBy('position').execute();
      expect(categories.map((c) => c.name)).toEqual(['Предметы', 'Оружие', 'Броня', 'Инструменты', 'Еда', 'Зелья', 'Блоки', 'Редкое']);
      const order = await handle.db.selectFrom('shop_orders').select('pieces').executeTakeFirstOrThrow();
      expect(order.pieces).toBe(1);
    } finally {
      await handle.close();
      await pgDb?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
