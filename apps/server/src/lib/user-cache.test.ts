import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DbHandle } from '../db/index.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { asUser, createPgDatabase, createTestApp, dbKinds, loginAs, seedUser, startInstance, type TestApp } from '../test/test-app.ts';
import { UserCache } from './user-cache.ts';
import { offlineUuid } from './offline-uuid.ts';

describe('user cache', () => {
  it('loads once, serves from memory, and loads again after clear()', async () => {
    const cache = new UserCache();
    let loads = 0;
    const load = async () => ({ n: ++loads });
    expect(await cache.get('k', load)).toEqual({ n: 1 });
    expect(await cache.get('k', load)).toEqual({ n: 1 });
    cache.clear();
    expect(await cache.get('k', load)).toEqual({ n: 2 });
  });

  it('does not keep a lookup that raced a write', async () => {
    const cache = new UserCache();
    let release!: () => void;
    const slow = cache.get('k', () => new Promise<{ stale: boolean }>((r) => (release = () => r({ stale: true }))));
    cache.clear();
    release();
    expect(await slow).toEqual({ stale: true });
    expect(await cache.get('k', async () => ({ stale: false }))).toEqual({ stale: false });
  });

  it('serves nothing past its TTL or past the value’s own end, and never keeps a miss', async () => {
    const cache = new UserCache({ ttlMs: 40 });
    let n = 0;
    await cache.get('ttl', async () => ++n);
    expect(await cache.get('ttl', async () => ++n)).toBe(1);
    await new Promise((r) => setTimeout(r, 60));
    expect(await cache.get('ttl', async () => ++n)).toBe(2);

    const long = new UserCache({ ttlMs: 60_000 });
    await long.get(
      'session',
      async () => ({ until: Date.now() + 30 }),
      (v) => v.until,
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(await long.get('session', async () => 'reloaded')).toBe('reloaded');

    let misses = 0;
    await long.get('missing', async () => void misses++);
    await long.get('missing', async () => void misses++);
    expect(misses).toBe(2);
  });

  describe('watching a SQLite database', () => {
    let dir: string;
    let handle: DbHandle;
    beforeAll(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'kubik-ucache-'));
      handle = openDatabase({ sqlitePath: path.join(dir, 'db.sqlite') });
      await migrateToLatest(handle);
    });
    afterAll(async () => {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('clears on writes to users, sessions and worn skins, and only on those', async () => {
      const cache = new UserCache();
      cache.watch(handle);
      const db = handle.db;
      const cached = async () => {
        let loaded = false;
        await cache.get('probe', async () => (loaded = true));
        return !loaded;
      };
      await cache.get('probe', async () => true);
      const keeps = [
        () => db.selectFrom('users').selectAll().execute(),
        () =>
          db
            .insertInto('news')
            .values({ title: 't', content: 'x', image_url: null, author_id: null, created_at: 1, updated_at: 1 })
            .execute(),
        () => db.updateTable('news').set({ title: 'u' }).execute(),
      ];
      for (const q of keeps) {
        await q();
        expect(await cached()).toBe(true);
      }
      const clears = [
        () =>
          db
            .insertInto('users')
            .values({
              username: 'Cache',
              username_lower: 'cache',
              email: 'c@x.ru',
              email_lower: 'c@x.ru',
              password_hash: 'x',
              is_admin: 0,
              balance: 0,
              email_verified_at: 1,
              created_at: 1,
              deleted_at: null,
              uuid: offlineUuid('Cache'),
            })
            .execute(),
        () => db.updateTable('users').set({ balance: 5 }).where('username_lower', '=', 'cache').execute(),
        () => db.transaction().execute((trx) => trx.updateTable('users as u').set({ balance: 6 }).execute()),
        () => db.deleteFrom('sessions').where('user_id', '=', 1).execute(),
        () => sql`update users set balance = 7`.execute(db),
        () => sql`DELETE FROM "sessions" WHERE 1 = 0`.execute(db),
        () => db.deleteFrom('user_skins').execute(),
      ];
      for (const q of clears) {
        await q();
        expect(await cached()).toBe(false);
      }
    });
  });

  describe.each(dbKinds)('behind the API (%s)', (kind) => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(kind);
    });
    afterAll(async () => t?.close());

    it('shows a balance or role change and a logout at once', async () => {
      await seedUser(t, 'Boss', { admin: true });
      const playerId = await seedUser(t, 'Steve');
      const boss = await loginAs(t, 'Boss');
      const steve = await loginAs(t, 'Steve');
      const me = async () => t.app.inject(asUser(steve, { method: 'GET', url: '/api/user/me' }));
      expect((await me()).json()).toMatchObject({ balance: 0 });
      expect((await me()).json()).toMatchObject({ balance: 0 });
      const put = await t.app.inject(
        asUser(boss, { method: 'PUT', url: `/api/user/${playerId}`, payload: { balance: 150, is_admin: true } }),
      );
      expect(put.statusCode).toBe(200);
      expect((await me()).json()).toMatchObject({ balance: 150, is_admin: true });
      expect((await t.app.inject(asUser(steve, { method: 'GET', url: '/api/user/all' }))).statusCode).toBe(200);
      await t.app.inject(asUser(boss, { method: 'PUT', url: `/api/user/${playerId}`, payload: { is_admin: false } }));
      expect((await t.app.inject(asUser(steve, { method: 'GET', url: '/api/user/all' }))).statusCode).toBe(403);
      await t.app.inject(asUser(steve, { method: 'POST', url: '/api/user/logout' }));
      expect((await me()).statusCode).toBe(401);
    });
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('user cache across instances (PostgreSQL)', () => {
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>>;
  const instances: Awaited<ReturnType<typeof startInstance>>[] = [];
  let base: string;

  async function instance(): Promise<FastifyInstance> {
    const started = await startInstance(pgDb.url);
    instances.push(started);
    return started.app;
  }

  beforeAll(async () => {
    pgDb = await createPgDatabase();
    base = pgDb.url;
  });
  afterEach(async () => {
    for (const i of instances.splice(0)) await i.close();
  });
  afterAll(async () => pgDb?.drop());

  it('drops what another instance cached as soon as a write commits anywhere', async () => {
    const one = await instance();
    const two = await instance();
    const t = { app: one, handle: instances[0]!.handle } as TestApp;
    const playerId = await seedUser(t, 'Alex');
    await seedUser(t, 'Root', { admin: true });
    const root = await loginAs(t, 'Root');
    const alex = await loginAs(t, 'Alex');
    const meOnTwo = () => two.inject(asUser(alex, { method: 'GET', url: '/api/user/me' }));
    expect((await meOnTwo()).json()).toMatchObject({ balance: 0 });

    // Through the API of the first instance.
    await one.inject(asUser(root, { method: 'PUT', url: `/api/user/${playerId}`, payload: { balance: 42 } }));
    await expect.poll(async () => (await meOnTwo()).json<{ balance: number }>().balance, { timeout: 2000, interval: 20 }).toBe(42);

    // By hand, as an operator's SQL would (the trigger, not our code, tells the instances).
    const c = new pg.Client({ connectionString: base });
    await c.connect();
    await c.query('update users set balance = 9900 where id = $1', [playerId]);
    await expect.poll(async () => (await meOnTwo()).json<{ balance: number }>().balance, { timeout: 2000, interval: 20 }).toBe(99);
    await c.query('delete from sessions where user_id = $1', [playerId]);
    await c.end();
    await expect.poll(async () => (await meOnTwo()).statusCode, { timeout: 2000, interval: 20 }).toBe(401);
  });
});
