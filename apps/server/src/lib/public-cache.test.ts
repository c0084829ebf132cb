import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPgDatabase } from '../test/test-app.ts';
import { NotifyChannel } from './notify-channel.ts';
import { PublicCache } from './public-cache.ts';

describe('public cache in one process', () => {
  it('builds once, serves from memory and rebuilds after invalidate', async () => {
    const cache = new PublicCache();
    let builds = 0;
    const build = async () => ({ n: ++builds });
    const [a, b] = await Promise.all([cache.get('k', build), cache.get('k', build)]);
    expect(builds).toBe(1);
    expect(a).toBe(b);
    expect(JSON.parse(a.json.toString())).toEqual({ n: 1 });
    await cache.invalidate('k');
    const c = await cache.get('k', build);
    expect(JSON.parse(c.json.toString())).toEqual({ n: 2 });
    expect(c.etag).not.toBe(a.etag);
  });

  it('does not keep a build that raced a write', async () => {
    const cache = new PublicCache();
    let release!: () => void;
    const slow = cache.get('k', () => new Promise((r) => (release = () => r({ stale: true }))));
    await cache.invalidate('k');
    release();
    await slow;
    const fresh = await cache.get('k', async () => ({ stale: false }));
    expect(JSON.parse(fresh.json.toString())).toEqual({ stale: false });
  });

  it('drops an entry built from other answers with any of them, also while it is being built', async () => {
    const cache = new PublicCache();
    const source = async (key: string) => {
      await cache.get(key, async () => ({ key }));
      return { key, generation: cache.generationOf(key) };
    };
    let pages = 0;
    const page = () =>
      cache.get('page:/', async () => {
        cache.dependOn('page:/', [await source('news'), await source('servers')]);
        return { page: ++pages };
      });
    await page();
    await page();
    expect(pages).toBe(1);
    // An answer it was built from drops it; another answer does not.
    await cache.invalidate('shop');
    await page();
    expect(pages).toBe(1);
    await cache.invalidate('servers');
    await page();
    expect(pages).toBe(2);
    // An answer that changes while the page is built keeps that build out of the cache.
    await cache.invalidate('page:/');
    let release!: () => void;
    let read!: () => void;
    const wasRead = new Promise<void>((r) => (read = r));
    const building = cache.get('page:/', async () => {
      const rules = await source('rules');
      read();
      await new Promise<void>((r) => (release = r));
      cache.dependOn('page:/', [rules]);
      return { page: 'stale' };
    });
    await wasRead;
    await cache.invalidate('rules');
    release();
    await building;
    expect(JSON.parse((await page()).json.toString())).toEqual({ page: 3 });
    // Dropping the page leaves the answers alone.
    let news = 0;
    await cache.get('news', async () => ({ news: ++news }));
    await cache.invalidate('page:/');
    await cache.get('news', async () => ({ news: ++news }));
    expect(news).toBe(0);
  });

  it('builds an entry with a lifetime again once it has passed', async () => {
    const cache = new PublicCache();
    let builds = 0;
    const now = vi.spyOn(Date, 'now');
    try {
      now.mockReturnValue(1_000_000);
      const build = () => cache.get('page:/donate', async () => ({ n: ++builds }), 'text/html', { maxAgeMs: 60_000 });
      await build();
      now.mockReturnValue(1_059_999);
      await build();
      expect(builds).toBe(1);
      now.mockReturnValue(1_060_000);
      expect(JSON.parse((await build()).json.toString())).toEqual({ n: 2 });
    } finally {
      now.mockRestore();
    }
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('public cache across instances (PostgreSQL)', () => {
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>>;
  const channels: NotifyChannel[] = [];
  let one: PublicCache;
  let two: PublicCache;
  beforeAll(async () => {
    pgDb = await createPgDatabase();
    channels.push(new NotifyChannel(pgDb.url), new NotifyChannel(pgDb.url));
    for (const c of channels) await c.start();
    one = new PublicCache(channels[0]);
    two = new PublicCache(channels[1]);
    // The caches subscribed after the channels connected: their LISTEN is under way, and until it
    // is done the channel is not up (nothing is cached then).
    for (let i = 0; i < 200 && !channels.every((c) => c.up); i++) await new Promise((r) => setTimeout(r, 50));
  });
  afterAll(async () => {
    for (const c of channels) await c.stop();
    await pgDb?.drop();
  });

  it('drops an entry on the other instance when one invalidates it', async () => {
    let version = 1;
    const build = async () => ({ version });
    expect(JSON.parse((await two.get('news', build)).json.toString())).toEqual({ version: 1 });
    version = 2;
    expect(JSON.parse((await two.get('news', build)).json.toString())).toEqual({ version: 1 });
    await one.invalidate('news');
    await expect.poll(async () => JSON.parse((await two.get('news', build)).json.toString()).version, { timeout: 10_000 }).toBe(2);
  }, 20_000);

  it('a channel subscribed while connected is not up until its LISTEN is done', async () => {
    const subscribed = new NotifyChannel(pgDb.url);
    await subscribed.start();
    try {
      subscribed.on('late_channel', () => {});
      expect(subscribed.up).toBe(false);
      await expect.poll(() => subscribed.up).toBe(true);
    } finally {
      await subscribed.stop();
    }
  });
});
