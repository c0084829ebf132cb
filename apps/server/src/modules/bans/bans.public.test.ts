import type { PublicBan, PublicBansPage } from '@kubik/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { mergedPage } from './bans.public.ts';

const PASSWORD = 'kubik-pass-42';
const DAY = 86_400_000;

describe.each(dbKinds)('the public ban list on %s', (kind) => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await createTestApp(kind, { rateLimits: { enabled: false } });
    await seedUser(t, 'Admin', { admin: true, password: PASSWORD });
    admin = await loginAs(t, 'Admin', PASSWORD);
  });
  afterAll(async () => {
    await t?.close();
  });

  const ban = async (name: string, body: { reason?: string; note: string; until: number | null }) => {
    const id = await seedUser(t, name, { password: PASSWORD });
    const res = await t.app.inject(asUser(admin, { method: 'POST', url: `/api/admin/users/${id}/ban`, payload: body }));
    expect(res.statusCode, res.body).toBe(200);
    return id;
  };
  const list = (query = '') => t.app.inject({ method: 'GET', url: `/api/bans${query}` });

  it('shows the public reason, who and when — never the internal note — newest first, with pages and a search by name', async () => {
    await ban('Griefer_1', { reason: 'Гриф спавна', note: 'IP 10.1.2.3, твинк Xx_Old', until: null });
    const tempId = await ban('Spammer', { note: 'только заметка', until: Date.now() + 3 * DAY });
    const liftedId = await ban('Lifted', { reason: 'Реклама', note: 'заметка', until: null });
    expect((await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/admin/users/${liftedId}/ban` }))).statusCode).toBe(200);

    const res = await list();
    expect(res.statusCode).toBe(200);
    const body = res.json<PublicBansPage>();
    expect(body.page).toBe(1);
    expect(body.pages).toBe(1);
    expect(body.kinds).toEqual(['ban']);
    expect(body.items.map((b) => b.username)).toEqual(['Lifted', 'Spammer', 'Griefer_1']);
    const [lifted, temp, perm] = body.items as [PublicBan, PublicBan, PublicBan];
    expect(perm).toMatchObject({
      source: 'site',
      kind: 'ban',
      reason: 'Гриф спавна',
      by: 'Admin',
      until: null,
      active: true,
      server: null,
    });
    expect(temp).toMatchObject({ reason: '', active: true });
    expect(temp.until).toBeGreaterThan(Date.now());
    expect(lifted).toMatchObject({ reason: 'Реклама', active: false });
    expect(res.body).not.toContain('заметка');
    expect(res.body).not.toContain('10.1.2.3');

    // A name's start, in any case; `_` is a letter there, not a wildcard.
    expect((await list('?q=grief')).json<PublicBansPage>().items.map((b) => b.username)).toEqual(['Griefer_1']);
    expect((await list('?q=Griefer_')).json<PublicBansPage>().items).toHaveLength(1);
    expect((await list('?q=G_iefer')).json<PublicBansPage>().items).toHaveLength(0);
    expect((await list('?q=nobody')).json<PublicBansPage>()).toMatchObject({ items: [], page: 1, pages: 1 });
    expect(tempId).toBeGreaterThan(0);
  });

  it('pages by 20, and a ban of a deleted account is not listed', async () => {
    for (let i = 0; i < 21; i++) await ban(`Bulk${i}`, { note: 'n', until: null });
    const first = (await list()).json<PublicBansPage>();
    expect(first.pages).toBe(2);
    expect(first.items).toHaveLength(20);
    const second = (await list('?page=2')).json<PublicBansPage>();
    expect(second.items).toHaveLength(4);
    expect(new Set([...first.items, ...second.items].map((b) => b.username)).size).toBe(24);
    expect((await list('?page=3')).json<PublicBansPage>()).toMatchObject({ items: [], page: 3, pages: 2 });

    await t.handle.db.updateTable('users').set({ deleted_at: Date.now() }).where('username', '=', 'Bulk0').execute();
    expect((await list('?q=bulk')).json<PublicBansPage>().items.map((b) => b.username)).not.toContain('Bulk0');
  });

  it('refuses bad input in Russian', async () => {
    for (const q of ['?page=0', '?page=abc', '?page=501', "?q=a'%20or%201=1", '?q=' + 'a'.repeat(17), '?kind=ipban', '?extra=1']) {
      const res = await list(q);
      expect(res.statusCode, q).toBe(400);
      expect(errorOf(res)).toMatch(/[а-яё]/i);
    }
    // A kind no connected source keeps shows the bans.
    expect((await list('?kind=mute')).json<PublicBansPage>().kind).toBe('ban');
  });
});

describe('merging the site bans into a plugin list', () => {
  const row = (name: string, since: number): PublicBan => ({
    source: 'site',
    kind: 'ban',
    username: name,
    reason: '',
    by: null,
    since,
    until: null,
    active: true,
    server: null,
  });
  // Plugin rows at times 1000, 990, …; site rows at the times given.
  const plugin = Array.from({ length: 100 }, (_, i) => row(`p${i}`, 1000 - i * 10));
  const everything = (site: PublicBan[]) =>
    [...site.map((r, i) => ({ r, s: 0, i })), ...plugin.map((r, i) => ({ r, s: 1, i }))]
      .sort((a, b) => b.r.since - a.r.since || a.s - b.s || a.i - b.i)
      .map((x) => x.r.username);

  it('gives every page exactly as a merge of both whole lists would, reading only a window of the plugin list', async () => {
    for (const times of [[1005, 995, 995, 500, 3], [2000, 1999], [1], [1000, 990, 980, 970, 960, 950, 940], []]) {
      const site = times.map((s, i) => row(`s${i}`, s));
      const all = everything(site);
      for (let page = 0; page * 7 < all.length + 7; page++) {
        const offset = page * 7;
        let read = 0;
        const got = await mergedPage(
          site.slice(0, offset + 7).map((r, i) => ({ row: r, source: 0 as const, id: -i })),
          async (from, limit) => {
            read += limit;
            return plugin.slice(from, from + limit).map((r, i) => ({ row: r, source: 1 as const, id: -(from + i) }));
          },
          offset,
          7,
        );
        expect(
          got.map((r) => r.username),
          `${times} page ${page}`,
        ).toEqual(all.slice(offset, offset + 7));
        expect(read).toBeLessThanOrEqual(7 + site.length);
      }
    }
  });
});

describe.each(dbKinds)('searching the ban list on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts searches per address; browsing pages is not counted', async () => {
    const get = (url: string, remoteAddress = '203.0.113.5') => t.app.inject({ method: 'GET', url, remoteAddress });
    for (let i = 0; i < 300; i++) expect((await get(`/api/bans?q=p${i % 10}`)).statusCode).toBe(200);
    const over = await get('/api/bans?q=steve');
    expect(over.statusCode).toBe(429);
    expect(errorOf(over)).toMatch(/[а-яё]/i);
    expect((await get('/api/bans?page=2')).statusCode).toBe(200);
    expect((await get('/api/bans?q=steve', '203.0.113.6')).statusCode).toBe(200);
  });
});
