import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../test/test-app.ts';

/** Placeholder values for path parameters: valid in shape, naming nothing that exists. */
function fillParams(url: string): string {
  return url
    .replace(/:id\b/g, '999999')
    .replace(/:token\b/g, 'x'.repeat(43))
    .replace(/:username\b/g, 'Nobody_here')
    .replace(/:(\w+)/g, 'x1');
}

/**
 * The authorization matrix, generated from the app's own route table: every API route is
 * called as a visitor, a player and an administrator. A denied role must get exactly 401
 * (visitor) or 403 (player); an allowed role must never get 401, 403 or a 5xx. Routes for
 * GravitLauncher's LaunchServer ('gravit') refuse all three with 401.
 */
describe.each(dbKinds)('authorization matrix on %s', (kind) => {
  let t: TestApp;
  let userToken: string;
  let adminToken: string;
  beforeAll(async () => {
    t = await createTestApp(kind, { rateLimits: { enabled: false }, workers: false, gravitSecret: 'launchserver-secret-0123456789' });
    await seedUser(t, 'Player');
    await seedUser(t, 'Admin', { admin: true });
    userToken = await loginAs(t, 'Player');
    adminToken = await loginAs(t, 'Admin');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('knows every route', () => {
    expect(t.app.apiRoutes.length).toBeGreaterThan(5);
  });

  it('answers each role as the route declares', async () => {
    const failures: string[] = [];
    // Logout and password changes end sessions; they run last so the tokens stay valid.
    const risky = (url: string) => /logout|change-password/.test(url);
    const routes = [...t.app.apiRoutes].sort((a, b) => Number(risky(a.url)) - Number(risky(b.url)));
    for (const route of routes) {
      const url = fillParams(route.url);
      const method = route.method as 'GET' | 'POST' | 'PUT' | 'DELETE';
      const payload = method === 'GET' || method === 'DELETE' ? undefined : {};
      for (const [role, token] of [
        ['visitor', null],
        ['user', userToken],
        ['admin', adminToken],
      ] as const) {
        if (risky(route.url) && role !== 'visitor') continue;
        const allowed =
          route.access === 'public' || (route.access === 'user' && role !== 'visitor') || (route.access === 'admin' && role === 'admin');
        // An allowed event stream stays open, which inject() would wait for forever; notices.test.ts
        // opens it over HTTP for each role.
        if (allowed && route.url === '/api/user/events') continue;
        const res = await t.app.inject(asUser(token, { method, url, payload }));
        // GravitLauncher's endpoints answer only its bearer secret, the game's certificate endpoint
        // only a game token (Mojang's services API), the AzLink plugin's only its link token: a site
        // session is nobody there.
        const ownBearer =
          route.access === 'gravit' ||
          route.url === '/api/yggdrasil/minecraftservices/player/certificates' ||
          route.url.startsWith('/api/azlink');
        const expected = ownBearer ? 401 : allowed ? null : role === 'visitor' ? 401 : 403;
        const ok = expected ? res.statusCode === expected : res.statusCode !== 401 && res.statusCode !== 403 && res.statusCode < 500;
        if (!ok) failures.push(`${method} ${route.url} as ${role} (${route.access}): ${res.statusCode} ${res.body.slice(0, 120)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

/**
 * Rows of one player behind a route's :id: every such route answers another player (and staff
 * without the permission) as if the row did not exist, and says nothing of it. Support tickets
 * and their pictures are the rows of this kind; a new :id route under /api/support/ is walked
 * without touching this file.
 */
describe.each(dbKinds)('one player’s rows, other players on %s', (kind) => {
  let t: TestApp;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    t = await createTestApp(kind, { rateLimits: { enabled: false }, workers: false });
    await seedUser(t, 'Admin', { admin: true });
    for (const name of ['Owner', 'Other']) {
      await seedUser(t, name);
      tokens[name] = await loginAs(t, name);
    }
    tokens.Admin = await loginAs(t, 'Admin');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('never shows a support ticket or its pictures to another player', async () => {
    const call = (who: string, method: string, url: string, payload?: object) =>
      t.app.inject(asUser(tokens[who]!, { method: method as 'GET', url, ...(payload && { payload }) }));
    const category = (await call('Admin', 'POST', '/api/admin/support/categories', { name: 'Разное', description: '' })).json<{
      id: number;
    }>().id;
    const ticket = (
      await call('Owner', 'POST', '/api/support/tickets', { category_id: category, subject: 'Личная тема', message: 'Личный текст' })
    ).json<{ id: number }>().id;
    const routes = t.app.apiRoutes.filter((r) => r.url.startsWith('/api/support/') && r.url.includes(':id'));
    expect(routes.map((r) => `${r.method} ${r.url}`)).toContain('GET /api/support/tickets/:id');
    for (const route of routes) {
      const res = await call(
        'Other',
        route.method,
        route.url.replace(':id', String(ticket)),
        route.method === 'GET' ? undefined : { message: 'x' },
      );
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(404);
      expect(res.body).not.toMatch(/Личн/);
    }
    const own = (await call('Owner', 'GET', `/api/support/tickets/${ticket}`)).json<{ state: string; messages: unknown[] }>();
    expect(own).toMatchObject({ state: 'open', messages: [{ text: 'Личный текст' }] });
  });
});
