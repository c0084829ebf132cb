import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../test/test-app.ts';
import { optionalUser, userOf } from './auth.ts';

/** Access is checked once, in onRequest, from the route's declared access; handlers read request.user. */
describe.each(dbKinds)('access check on %s', (kind) => {
  let t: TestApp;
  let token: string;
  let adminToken: string;
  const seen: { route: string; user: string | null }[] = [];
  let lookups = 0;

  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false, rateLimits: { enabled: false } });
    await seedUser(t, 'Steve');
    await seedUser(t, 'Boss', { admin: true });
    token = await loginAs(t, 'Steve');
    adminToken = await loginAs(t, 'Boss');
    t.app.ctx.userCache.clear();
  });
  afterAll(async () => {
    await t?.close();
  });

  async function probeApp() {
    // A second app on the same database, with probe routes of each access level.
    const { buildApp } = await import('../app.ts');
    const app = await buildApp(t.app.ctx.config, { database: t.handle });
    app.get('/api/probe/public', { config: { access: 'public' } }, async (req) => {
      const before = req.user;
      const user = await optionalUser(req);
      seen.push({ route: 'public', user: user?.username ?? null });
      return { before: before?.username ?? null, user: user?.username ?? null };
    });
    app.get('/api/probe/public-untouched', { config: { access: 'public' } }, async (req) => ({ user: req.user?.username ?? null }));
    app.get('/api/probe/user', { config: { access: 'user' } }, async (req) => ({ user: userOf(req).username }));
    app.get('/api/probe/admin', { config: { access: 'admin', permission: 'players.view' } }, async (req) => ({
      user: userOf(req).username,
      admin: userOf(req).is_admin,
    }));
    app.get('/api/probe/misuse', { config: { access: 'public' } }, async (req) => ({ user: userOf(req).username }));
    const get = app.ctx.userCache.get.bind(app.ctx.userCache);
    app.ctx.userCache.get = ((key: string, load: () => Promise<unknown>, expiresAt?: (v: unknown) => number) => {
      if (key.startsWith('session:')) lookups++;
      return get(key, load, expiresAt);
    }) as typeof app.ctx.userCache.get;
    await app.ready();
    return app;
  }

  it('sets request.user before the handler on user and admin routes, and refuses others', async () => {
    const app = await probeApp();
    try {
      const as = (tok: string | null, url: string) => app.inject(asUser(tok, { method: 'GET', url }));
      expect((await as(token, '/api/probe/user')).json()).toEqual({ user: 'Steve' });
      expect((await as(adminToken, '/api/probe/admin')).json()).toEqual({ user: 'Boss', admin: 1 });
      const guest = await as(null, '/api/probe/user');
      expect([guest.statusCode, guest.json()]).toEqual([401, { error: 'Войдите в аккаунт', code: 'unauthorized' }]);
      const stale = await as('no-such-session', '/api/probe/user');
      expect([stale.statusCode, stale.json()]).toEqual([401, { error: 'Invalid token', code: 'invalid_token' }]);
      const player = await as(token, '/api/probe/admin');
      expect([player.statusCode, player.json()]).toEqual([403, { error: 'Доступно только администраторам', code: 'forbidden' }]);
    } finally {
      await app.close();
    }
  });

  it('looks the session up on public routes only when the handler asks, once per request', async () => {
    const app = await probeApp();
    try {
      lookups = 0;
      const untouched = await app.inject(asUser(token, { method: 'GET', url: '/api/probe/public-untouched' }));
      expect(untouched.json()).toEqual({ user: null });
      expect(lookups).toBe(0);
      const res = await app.inject(asUser(token, { method: 'GET', url: '/api/probe/public' }));
      expect(res.json()).toEqual({ before: null, user: 'Steve' });
      expect(lookups).toBe(1);
      expect((await app.inject({ method: 'GET', url: '/api/probe/public' })).json()).toEqual({ before: null, user: null });
      expect(lookups).toBe(1);
      // A handler that reads userOf() on a public route is a bug: it fails loudly, and says nothing to the client.
      const misuse = await app.inject(asUser(token, { method: 'GET', url: '/api/probe/misuse' }));
      expect(misuse.statusCode).toBe(500);
      expect(misuse.json().error).toBe('Внутренняя ошибка сервера. Попробуйте позже.');
    } finally {
      await app.close();
    }
  });
});
