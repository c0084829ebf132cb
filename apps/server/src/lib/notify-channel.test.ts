import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../test/test-app.ts';
import { NotifyChannel } from './notify-channel.ts';
import { PublicCache } from './public-cache.ts';
import { UserCache } from './user-cache.ts';

describe('notification channel without PostgreSQL', () => {
  it('is a local bus and always up', async () => {
    const channel = new NotifyChannel();
    const heard: string[] = [];
    channel.on('kubik_test', (p) => heard.push(p));
    await channel.start();
    await channel.notify('kubik_test', 'hello');
    expect(heard).toEqual(['hello']);
    expect(channel.health()).toEqual({ kind: 'local', up: true });
    expect(() => channel.on('bad name; drop table', () => {})).toThrow();
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('notification channel on PostgreSQL', () => {
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>>;
  beforeAll(async () => {
    pgDb = await createPgDatabase();
  });
  afterAll(async () => pgDb?.drop());

  it('one connection per process carries every cache; a lost connection turns caching off until it is back', async () => {
    const one = new NotifyChannel(pgDb.url);
    const two = new NotifyChannel(pgDb.url);
    const heard: string[] = [];
    two.on('kubik_test', (p) => heard.push(p));
    const caches = [new PublicCache(two), new UserCache({ channel: two })];
    expect(caches).toHaveLength(2);
    await one.start();
    await two.start();
    try {
      expect(two.health()).toEqual({ kind: 'pg', up: true });
      const admin = new pg.Client({ connectionString: pgDb.url });
      await admin.connect();
      const listeners = await admin.query(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and query like 'listen %'`,
      );
      // Public cache, user cache and the test's own channel share one LISTEN connection.
      expect(listeners.rows[0].n).toBe(1);

      await one.notify('kubik_test', 'from one');
      await expect.poll(() => heard, { timeout: 2000 }).toEqual(['from one']);

      // The connection dies (a PostgreSQL restart, a proxy timeout): health says so, caches stop caching.
      let downs = 0;
      two.onDown(() => downs++);
      const publicCache = caches[0] as PublicCache;
      let builds = 0;
      await publicCache.get('k', async () => ({ n: ++builds }));
      await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query like 'listen %'`,
      );
      await expect.poll(() => two.up, { timeout: 2000 }).toBe(false);
      expect(downs).toBe(1);
      await publicCache.get('k', async () => ({ n: ++builds }));
      await publicCache.get('k', async () => ({ n: ++builds }));
      expect(builds).toBe(3);

      // It comes back by itself and listens again.
      await expect.poll(() => two.up, { timeout: 5000 }).toBe(true);
      await one.notify('kubik_test', 'again');
      await expect.poll(() => heard, { timeout: 2000 }).toEqual(['from one', 'again']);
      await admin.end();
    } finally {
      await one.stop();
      await two.stop();
    }
  });
});
