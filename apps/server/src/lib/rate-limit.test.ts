import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from './errors.ts';
import { DatabaseRateLimiter, MemoryRateLimiter, type RateLimiter } from './rate-limit.ts';
import { createPgDatabase, createTestApp, dbKinds, seedUser, startInstance, type TestApp } from '../test/test-app.ts';

const WINDOW = 60_000;

async function status(fn: () => Promise<void>): Promise<number> {
  try {
    await fn();
    return 200;
  } catch (err) {
    if (err instanceof HttpError) return err.statusCode;
    throw err;
  }
}

describe.each(dbKinds)('rate limiter on %s', (kind) => {
  let t: TestApp;
  let limiter: RateLimiter;
  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
    limiter = t.app.ctx.limiter;
  });
  afterAll(() => t.close());

  it('uses memory on SQLite and the shared table on PostgreSQL', () => {
    expect(limiter).toBeInstanceOf(kind === 'pg' ? DatabaseRateLimiter : MemoryRateLimiter);
  });

  it('lets limit hits through in a window, refuses the next in Russian, and starts over when the window ends', async () => {
    const now = Date.now();
    for (let i = 0; i < 3; i++) await limiter.hit('t:window', 3, now + i);
    const err = await limiter.hit('t:window', 3, now + 10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).statusCode).toBe(429);
    expect((err as HttpError).message).toMatch(/^Слишком много попыток\. Попробуйте через \d+ минут/);
    // The window that the first hit opened ends a windowMs (900 s default) later.
    const windowMs = t.app.ctx.config.rateLimits.windowMs;
    expect(await status(() => limiter.hit('t:window', 3, now + windowMs))).toBe(200);
    expect(await status(() => limiter.hit('t:window', 3, now + windowMs + 1))).toBe(200);
  });

  it('reset forgets a key; other keys are counted apart', async () => {
    await limiter.hit('t:reset', 1);
    expect(await status(() => limiter.hit('t:reset', 1))).toBe(429);
    expect(await status(() => limiter.hit('t:other', 1))).toBe(200);
    await limiter.reset('t:reset');
    expect(await status(() => limiter.hit('t:reset', 1))).toBe(200);
  });

  it('login attempts beyond the per-account limit are refused through the API', async () => {
    await seedUser(t, 'Limited');
    const limit = t.app.ctx.config.rateLimits.loginPerAccount;
    const codes: number[] = [];
    for (let i = 0; i <= limit; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/user/login',
        payload: { username: 'Limited', password: 'wrong-password' },
        remoteAddress: `10.0.0.${i + 1}`,
      });
      codes.push(res.statusCode);
    }
    expect(codes.slice(0, limit).every((c) => c === 401)).toBe(true);
    expect(codes[limit]).toBe(429);
  });

  it.runIf(kind === 'pg')('concurrent hits lose no count, and the sweep deletes only ended windows', async () => {
    const db = t.handle.db;
    const shared = limiter as DatabaseRateLimiter;
    const now = Date.now();
    const results = await Promise.all(Array.from({ length: 40 }, () => status(() => shared.hit('t:race', 25, now))));
    expect(results.filter((c) => c === 200)).toHaveLength(25);
    expect(results.filter((c) => c === 429)).toHaveLength(15);
    const row = await db.selectFrom('rate_limits').select('count').where('key', '=', 't:race').executeTakeFirstOrThrow();
    expect(row.count).toBe(40);

    await shared.hit('t:old', 5, now - 2 * WINDOW - t.app.ctx.config.rateLimits.windowMs);
    expect(await shared.sweep(now)).toBeGreaterThanOrEqual(1);
    const left = await db.selectFrom('rate_limits').select('key').where('key', 'in', ['t:old', 't:race']).execute();
    expect(left.map((r) => r.key)).toEqual(['t:race']);
  });
});

describe.runIf(dbKinds.includes('pg'))('rate limits across instances on one PostgreSQL database', () => {
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>>;
  const instances: Awaited<ReturnType<typeof startInstance>>[] = [];
  beforeAll(async () => {
    pgDb = await createPgDatabase();
    instances.push(await startInstance(pgDb.url, { rateLimits: { loginPerIp: 4 } }));
    instances.push(await startInstance(pgDb.url, { rateLimits: { loginPerIp: 4 } }));
  });
  afterAll(async () => {
    for (const i of instances) await i.close();
    await pgDb?.drop();
  });

  it('two app instances count one address together: the fifth login anywhere is refused', async () => {
    const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]];
    const login = (app: typeof a, n: number) =>
      app.app.inject({
        method: 'POST',
        url: '/api/user/login',
        payload: { username: `nobody${n}`, password: 'wrong-password' },
        remoteAddress: '203.0.113.7',
      });
    const codes = [
      (await login(a, 1)).statusCode,
      (await login(b, 2)).statusCode,
      (await login(a, 3)).statusCode,
      (await login(b, 4)).statusCode,
    ];
    expect(codes).toEqual([401, 401, 401, 401]);
    expect((await login(a, 5)).statusCode).toBe(429);
    expect((await login(b, 6)).statusCode).toBe(429);
    // Another address is still welcome on both.
    const other = await b.app.inject({
      method: 'POST',
      url: '/api/user/login',
      payload: { username: 'nobody', password: 'wrong-password' },
      remoteAddress: '203.0.113.8',
    });
    expect(other.statusCode).toBe(401);
  });
});
