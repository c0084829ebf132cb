import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';

describe.each(dbKinds)('audit log on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let adminId: number;
  let player: string;
  let playerId: number;
  beforeAll(async () => {
    t = await createTestApp(kind);
    adminId = await seedUser(t, 'Auditor', { admin: true });
    playerId = await seedUser(t, 'Watched');
    admin = await loginAs(t, 'Auditor');
    player = await loginAs(t, 'Watched');
  });
  afterAll(async () => {
    await t?.close();
  });

  const audit = (token: string | null, query = '') => t.app.inject(asUser(token, { method: 'GET', url: `/api/admin/audit${query}` }));

  it('is for administrators only', async () => {
    const guest = await audit(null);
    expect(guest.statusCode).toBe(401);
    const user = await audit(player);
    expect(user.statusCode).toBe(403);
    expect(errorOf(user)).toBe('Доступно только администраторам');
  });

  it('shows who changed what, when, before and after, newest first', async () => {
    const empty = await audit(admin);
    expect(empty.json()).toEqual({ entries: [], page: 1, per_page: 50, total: 0 });

    const news = await t.app.inject(
      asUser(admin, { method: 'POST', url: '/api/tidings/news', payload: { title: 'Первая', content: 'Текст' } }),
    );
    const newsId = news.json().id;
    await t.app.inject(
      asUser(admin, { method: 'PUT', url: `/api/user/${playerId}`, payload: { balance: 42, password: 'new-password-1' } }),
    );
    await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/tidings/${newsId}` }));

    const res = await audit(admin);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.total).toBe(3);
    expect(body.entries.map((e: { action: string }) => e.action)).toEqual(['news.delete', 'user.update', 'news.create']);
    const [deleted, user, created] = body.entries;
    expect(created).toMatchObject({
      actor_id: adminId,
      actor_username: 'Auditor',
      entity: 'news',
      entity_id: String(newsId),
      before: null,
      after: { title: 'Первая', content: 'Текст' },
    });
    expect(Date.now() - new Date(created.created_at).getTime()).toBeLessThan(60_000);
    expect(deleted).toMatchObject({ before: { title: 'Первая' }, after: null });
    expect(user).toMatchObject({
      entity: 'user',
      entity_id: String(playerId),
      before: { balance: 0 },
      after: { balance: 42, password: '***' },
    });
    expect(res.body).not.toMatch(/new-password-1|argon2/);
  });

  it('pages and filters by section', async () => {
    for (let i = 0; i < 5; i++) {
      await t.app.inject(asUser(admin, { method: 'POST', url: '/api/tidings/news', payload: { title: `Новость ${i}`, content: 'Текст' } }));
    }
    const first = (await audit(admin, '?per_page=3')).json();
    expect(first).toMatchObject({ page: 1, per_page: 3, total: 8 });
    expect(first.entries.map((e: { after: { title: string } }) => e.after.title)).toEqual(['Новость 4', 'Новость 3', 'Новость 2']);
    const third = (await audit(admin, '?per_page=3&page=3')).json();
    expect(third.entries).toHaveLength(2);
    const beyond = (await audit(admin, '?per_page=3&page=9')).json();
    expect(beyond).toMatchObject({ entries: [], total: 8 });

    const users = (await audit(admin, '?entity=user')).json();
    expect(users.total).toBe(1);
    expect(users.entries[0].action).toBe('user.update');

    for (const bad of ['?page=0', '?page=abc', '?per_page=500', '?entity=DROP%20TABLE', '?foo=1']) {
      const res = await audit(admin, bad);
      expect(res.statusCode, bad).toBe(400);
      expect(errorOf(res)).toMatch(/[а-яё]/i);
    }
  });

  it('documents the content and admin routes in OpenAPI', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(res.statusCode).toBe(200);
    const paths = res.json().paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    const expected: [string, string, string[]][] = [
      ['/api/tidings/news', 'get', ['200', '304', '400']],
      ['/api/tidings/all', 'get', ['200', '304']],
      ['/api/tidings/news', 'post', ['201', '400', '401', '403']],
      ['/api/tidings/{id}', 'put', ['200', '400', '401', '403', '404']],
      ['/api/tidings/{id}', 'delete', ['200', '400', '401', '403', '404']],
      ['/api/donate/fully', 'get', ['200', '304']],
      ['/api/donate/add', 'post', ['201', '400', '401', '403']],
      ['/api/donate/{id}', 'put', ['200', '400', '401', '403', '404']],
      ['/api/donate/{id}', 'delete', ['200', '400', '401', '403', '404']],
      ['/api/user/all', 'get', ['200', '400', '401', '403']],
      ['/api/user/{id}', 'put', ['200', '400', '401', '403', '404', '409']],
      ['/api/user/{id}', 'delete', ['200', '400', '401', '403', '404', '409']],
      ['/api/admin/audit', 'get', ['200', '400', '401', '403']],
    ];
    for (const [path, method, codes] of expected) {
      expect(Object.keys(paths[path]?.[method]?.responses ?? {}).sort(), `${method} ${path}`).toEqual(codes);
    }
  });
});
