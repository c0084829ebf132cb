import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DbHandle } from '../db/index.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { asUser, createPgDatabase, dbKinds, loginAs, seedUser, startInstance, type TestApp } from '../test/test-app.ts';
import { listeningSite } from '../test/game-auth.ts';
import { UserCache } from './user-cache.ts';
import { offlineUuid } from '../base/offline-uuid.ts';

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

  it('requests that miss one key while it loads share the load, unless a write came since it began', async () => {
    const cache = new UserCache();
    const releases: (() => void)[] = [];
    let loads = 0;
    const load = () =>
      new Promise<{ n: number }>((r) => {
        const n = ++loads;
        releases.push(() => r({ n }));
      });
    // Fifty requests of one busy session miss together: one query, one value for all, and that value kept.
    const together = Array.from({ length: 50 }, () => cache.get('k', load));
    expect(loads).toBe(1);
    releases[0]!();
    const values = await Promise.all(together);
    expect(new Set(values).size).toBe(1);
    expect(await cache.get('k', load)).toBe(values[0]);
    expect(loads).toBe(1);
    // A write while a load runs: later requests load afresh, and the older load's value is not kept.
    cache.clear();
    const before = cache.get('k', load);
    cache.clear();
    const after = cache.get('k', load);
    expect(loads).toBe(3);
    releases[1]!();
    releases[2]!();
    expect(await before).toEqual({ n: 2 });
    expect(await after).toEqual({ n: 3 });
    expect(await cache.get('k', load)).toEqual({ n: 3 });
    // A failed load fails its sharers, and the next request tries again.
    cache.clear();
    let fail!: (e: Error) => void;
    const failing = [1, 2].map(() => cache.get('f', () => new Promise<number>((_, reject) => (fail = reject))));
    fail(new Error('database down'));
    for (const f of failing) await expect(f).rejects.toThrow('database down');
    expect(await cache.get('f', async () => 7)).toBe(7);
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
    /** A cache watching the database, and whether its probe entry is still held. */
    const watching = () => {
      const cache = new UserCache();
      cache.watch(handle);
      const cached = async () => {
        let loaded = false;
        await cache.get('probe', async () => (loaded = true));
        return !loaded;
      };
      return { cache, cached };
    };

    it('clears on writes to users, sessions and worn skins, and only on those', async () => {
      const { cache, cached } = watching();
      const db = handle.db;
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

    it('keeps what it holds through a new session, not through an upsert or raw SQL', async () => {
      const { cache, cached } = watching();
      const db = handle.db;
      const userId = (await db.selectFrom('users').select('id').executeTakeFirstOrThrow()).id;
      const session = (token: string) => ({
        token_hash: token,
        user_id: userId,
        created_at: 1,
        expires_at: Date.now() + 60_000,
        ip: null,
        user_agent: null,
      });
      await cache.get('probe', async () => true);
      await db.insertInto('sessions').values(session('new-1')).execute();
      expect(await cached()).toBe(true);
      await db
        .insertInto('sessions')
        .values(session('new-2'))
        .onConflict((oc) => oc.doNothing())
        .execute();
      expect(await cached()).toBe(true);
      const clears = [
        () =>
          db
            .insertInto('sessions')
            .values(session('new-1'))
            .onConflict((oc) => oc.column('token_hash').doUpdateSet({ expires_at: 1 }))
            .execute(),
        () => db.insertInto('sessions').orReplace().values(session('new-2')).execute(),
        () => sql`insert into sessions (token_hash, user_id, created_at, expires_at) values ('raw', ${userId}, 1, 2)`.execute(db),
      ];
      for (const q of clears) {
        await q();
        expect(await cached()).toBe(false);
      }
    });
  });

  describe.each(dbKinds)('behind the API (%s)', (kind) => {
    let t: TestApp & { base: string };
    beforeAll(async () => {
      t = await listeningSite(kind);
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

    it('is not emptied by a login, which only adds a session (issue 29), and is by a write that changes a user', async () => {
      const cache = t.app.ctx.userCache;
      await seedUser(t, 'Lina', { password: 'lina-pass-1' });
      const lina = await loginAs(t, 'Lina', 'lina-pass-1');
      const me = () => t.app.inject(asUser(lina, { method: 'GET', url: '/api/user/me' }));
      expect((await me()).statusCode).toBe(200);
      const before = cache.generation;
      await seedUser(t, 'Mira', { password: 'mira-pass-1' });
      // PostgreSQL: the NOTIFY of that insert comes after its commit.
      await new Promise((r) => setTimeout(r, 200));
      const settled = cache.generation;
      expect(settled).toBeGreaterThan(before);
      // Over HTTP, as browsers come (inject skips the server's handler, where each request notes the generation).
      const post = (url: string, body: unknown, token?: string) =>
        fetch(t.base + url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(body),
        });
      const login = await post('/api/user/login', { username: 'Mira', password: 'mira-pass-1', bearer: true });
      expect(login.status).toBe(200);
      const mira = ((await login.json()) as { token: string }).token;
      expect((await post('/api/user/login', { username: 'Mira', password: 'wrong-pass-1' })).status).toBe(401);
      // PostgreSQL: a NOTIFY would arrive after the commit; give it the time to.
      await new Promise((r) => setTimeout(r, 200));
      expect(cache.generation).toBe(settled);
      expect((await me()).statusCode).toBe(200);
      // Logging out deletes a session: emptied.
      expect((await post('/api/user/logout', {}, mira)).status).toBeLessThan(300);
      await expect.poll(() => cache.generation, { timeout: 2000, interval: 20 }).toBeGreaterThan(settled);
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

  it('is told of changed and removed sessions, not of new ones (a login)', async () => {
    const one = await instance();
    const userId = await seedUser({ app: one, handle: instances[0]!.handle } as TestApp, 'Nia');
    const listener = new pg.Client({ connectionString: base });
    const writer = new pg.Client({ connectionString: base });
    await listener.connect();
    await writer.connect();
    try {
      let heard = 0;
      listener.on('notification', () => heard++);
      await listener.query('listen kubik_user_cache');
      const settle = () => new Promise((r) => setTimeout(r, 300));
      await writer.query('insert into sessions (token_hash, user_id, created_at, expires_at) values ($1, $2, 1, $3)', [
        'n1',
        userId,
        Date.now() + 60_000,
      ]);
      await settle();
      expect(heard).toBe(0);
      await writer.query('update sessions set expires_at = 2 where token_hash = $1', ['n1']);
      await expect.poll(() => heard, { timeout: 2000, interval: 20 }).toBe(1);
      await writer.query('delete from sessions where token_hash = $1', ['n1']);
      await expect.poll(() => heard, { timeout: 2000, interval: 20 }).toBe(2);
    } finally {
      await listener.end();
      await writer.end();
    }
  });
});
