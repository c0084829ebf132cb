import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TcpProxy } from '../../../../../testing/tcp-proxy.ts';
import { DatabaseUnavailableError, openDatabase } from '../../db/index.ts';
import { registerErrorHandling } from '../../plugins/errors.ts';
import { DatabaseDownAtStart, DB_DOWN_LINE, migrateWhenReachable } from '../../db/migrate.ts';
import { createPgDatabase, loginAs, seedUser, startInstance, type TestApp } from '../../test/test-app.ts';

/*
 * Faults of the database as an instance sees them (issue 28): its PostgreSQL goes away behind a
 * TCP proxy (open connections reset, new ones refused) and comes back. The process never ends,
 * answers 503 with Retry-After (never 500), counts the errors in /metrics, and is ready again
 * within 2 s of the database. PostgreSQL only: a SQLite file cannot go away under a process.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sample(text: string, name: string, labels = ''): number | undefined {
  const escaped = `${name}${labels}`.replace(/[{}()[\].*+?^$|\\]/g, '\\$&');
  const m = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

describe('errors of an unreachable database', () => {
  it('are 503 db_unavailable with Retry-After, whichever driver and shape; other faults stay 500', async () => {
    const app = Fastify({ logger: false });
    registerErrorHandling(app);
    const errors: Record<string, () => Error> = {
      refused: () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      terminated: () => new Error('Connection terminated unexpectedly'),
      timeout: () => new Error('timeout exceeded when trying to connect'),
      shutdown: () => Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      gate: () => new DatabaseUnavailableError('connect ECONNREFUSED 127.0.0.1:5432'),
      wrapped: () => new Error('query failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) }),
      busy: () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }),
      bug: () => new TypeError('x is undefined'),
      constraint: () => Object.assign(new Error('duplicate key'), { code: '23505' }),
    };
    for (const [name, make] of Object.entries(errors))
      app.get(`/${name}`, async () => {
        throw make();
      });
    try {
      for (const name of ['refused', 'terminated', 'timeout', 'shutdown', 'gate', 'wrapped', 'busy']) {
        const res = await app.inject({ method: 'GET', url: `/${name}` });
        expect(res.statusCode, name).toBe(503);
        expect(res.headers['retry-after']).toBe('2');
        expect(res.json()).toEqual({ error: 'База данных временно недоступна. Повторите через несколько секунд.', code: 'db_unavailable' });
      }
      for (const name of ['bug', 'constraint']) expect((await app.inject({ method: 'GET', url: `/${name}` })).statusCode, name).toBe(500);
    } finally {
      await app.close();
    }
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('a PostgreSQL pool with every connection busy', () => {
  it('makes a request wait its turn past one connect deadline, and never takes the database for unreachable', async () => {
    const pgDb = await createPgDatabase();
    const handle = openDatabase({ databaseUrl: pgDb.url, sqlitePath: '' });
    try {
      // Ten transactions hold the pool's ten connections for 6 s: longer than one 5 s wait for a turn.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const holders = Array.from({ length: 10 }, () => handle.db.connection().execute(() => held));
      await sleep(300);
      const started = Date.now();
      const waiting = handle.db.selectNoFrom((eb) => eb.val(1).as('one')).execute();
      await sleep(6000);
      expect(handle.health.up).toBe(true);
      release();
      await Promise.all(holders);
      expect((await waiting).map((r) => Number(r.one))).toEqual([1]);
      expect(Date.now() - started).toBeGreaterThan(5000);
      expect(handle.health.up).toBe(true);
      expect(handle.health.errors).toBe(0);
    } finally {
      await handle.close();
      await pgDb.drop();
    }
  }, 30_000);
});

describe.runIf(process.env.TEST_DATABASE_URL)('an instance whose PostgreSQL goes away', () => {
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>>;
  let proxy: TcpProxy;
  let site: Omit<TestApp, 'smtp'>;
  let proxiedUrl = '';
  beforeAll(async () => {
    pgDb = await createPgDatabase();
    const target = new URL(pgDb.url);
    proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    const via = new URL(pgDb.url);
    via.hostname = '127.0.0.1';
    via.port = String(proxy.port);
    proxiedUrl = via.toString();
    site = await startInstance(proxiedUrl);
  }, 60_000);
  afterAll(async () => {
    await site?.close();
    await proxy?.stop();
    await pgDb?.drop();
  });

  it('answers 503 with Retry-After while it is gone, never ends, counts it, and is ready within 2 s of its return', async () => {
    const t = site as TestApp;
    await seedUser(t, 'Steve');
    const token = await loginAs(t, 'Steve');
    expect((await t.app.inject({ method: 'GET', url: '/api/tidings/news' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    // A query holding its connection when the network goes: its client's error must not be unhandled.
    const holding = site.handle.db.connection().execute(async (conn) => {
      await conn.selectFrom('users').select('id').execute();
      await sleep(300);
      return conn.selectFrom('users').select('id').execute();
    });
    await sleep(100);
    await proxy.cut();
    await expect(holding).rejects.toThrow();
    await expect.poll(() => t.app.ctx.notifications.up, { timeout: 5000 }).toBe(false);

    for (const [url, auth] of [
      ['/api/tidings/news', undefined],
      ['/api/user/me', token],
      ['/api/servers', undefined],
      ['/api/shop/all', undefined],
    ] as const) {
      for (let i = 0; i < 3; i++) {
        const res = await t.app.inject({ method: 'GET', url, headers: auth ? { authorization: `Bearer ${auth}` } : {} });
        expect(res.statusCode, `${url}: ${res.body}`).toBe(503);
        expect(res.headers['retry-after']).toBe('2');
        expect(res.json()).toEqual({ error: 'База данных временно недоступна. Повторите через несколько секунд.', code: 'db_unavailable' });
      }
    }
    // A write too: nothing half done, a 503 the client may repeat.
    const buy = await t.app.inject({
      method: 'POST',
      url: '/api/shop/buy',
      headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'k-1' },
      payload: { shop_id: 1, quantity: 1 },
    });
    expect(buy.statusCode, buy.body).toBe(503);
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json().checks.database).toMatch(/^недоступна/);
    const down = (await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
    expect(sample(down, 'kubik_db_connection_errors_total', '{client="pool"}')).toBeGreaterThanOrEqual(1);
    expect(sample(down, 'kubik_db_connection_errors_total', '{client="listen"}')).toBeGreaterThanOrEqual(1);
    expect(sample(down, 'kubik_db_up', '{client="pool"}')).toBe(0);
    expect(sample(down, 'kubik_db_up', '{client="listen"}')).toBe(0);
    // Long enough for the LISTEN connection's retries to reach their longest wait.
    await sleep(2500);

    await proxy.restore();
    const back = Date.now();
    for (;;) {
      const res = await t.app.inject({ method: 'GET', url: '/readyz' });
      if (res.statusCode === 200) break;
      expect(Date.now() - back, `still not ready: ${res.body}`).toBeLessThan(2000);
      await sleep(50);
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/user/me', headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(
      200,
    );
    expect((await t.app.inject({ method: 'GET', url: '/api/tidings/news' })).statusCode).toBe(200);
    const up = (await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
    expect(sample(up, 'kubik_db_up', '{client="pool"}')).toBe(1);
    expect(sample(up, 'kubik_db_up', '{client="listen"}')).toBe(1);
    expect(sample(up, 'kubik_db_reconnects_total', '{client="pool"}')).toBeGreaterThanOrEqual(1);
    expect(sample(up, 'kubik_db_reconnects_total', '{client="listen"}')).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('a site started while its database is down says so in one line and waits for it (or exits when told to)', async () => {
    await proxy.cut();
    const lines: string[] = [];
    const handle = openDatabase({ databaseUrl: proxiedUrl, sqlitePath: '' });
    try {
      await expect(migrateWhenReachable(handle, { wait: false, say: (l) => lines.push(l) })).rejects.toBeInstanceOf(DatabaseDownAtStart);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^База данных недоступна \(.*ECONNREFUSED.*\): выход, DATABASE_WAIT=off\. \/ Database unreachable/);

      lines.length = 0;
      let waits = 0;
      const started = migrateWhenReachable(handle, {
        wait: true,
        say: (l) => lines.push(l),
        sleep: async () => {
          waits += 1;
          if (waits === 3) await proxy.restore();
          await sleep(1100); // past the pool's own wait before its next connect
        },
      });
      await started;
      expect(waits).toBe(3);
      // One line for the whole wait (the reason stays the same), one when the database is back.
      expect(lines).toHaveLength(2);
      expect(lines[0]).toBe(DB_DOWN_LINE('connect ECONNREFUSED 127.0.0.1:' + proxy.port, true));
      expect(lines[1]).toMatch(/^База данных доступна/);
    } finally {
      await proxy.restore();
      await handle.close();
    }
  }, 60_000);
});
