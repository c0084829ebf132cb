import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';

describe.each(dbKinds)('news on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let adminId: number;
  let player: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    adminId = await seedUser(t, 'NewsAdmin', { admin: true });
    await seedUser(t, 'NewsReader');
    admin = await loginAs(t, 'NewsAdmin');
    player = await loginAs(t, 'NewsReader');
  });
  afterAll(async () => {
    await t?.close();
  });

  const feed = async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/tidings/news' });
    expect(res.statusCode).toBe(200);
    return res.json<{ news: { id: number; title: string; content: string; image_url: string | null; created_at: string }[] }>().news;
  };
  const create = (token: string | null, payload: unknown) =>
    t.app.inject(asUser(token, { method: 'POST', url: '/api/tidings/news', payload: payload as object }));
  const newsCount = async () =>
    Number(
      (
        await t.handle.db
          .selectFrom('news')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const auditOf = (action: string, id: number) =>
    t.handle.db.selectFrom('audit_log').selectAll().where('action', '=', action).where('entity_id', '=', String(id)).execute();

  it('lets an administrator publish, edit and delete; visitors see each change at once', async () => {
    expect(await feed()).toEqual([]);

    const first = await create(admin, {
      title: 'Открытие',
      content: 'Сервер открыт!\nЗаходите.',
      image_url: 'https://example.com/open.png',
    });
    expect(first.statusCode).toBe(201);
    const firstItem = first.json();
    expect(firstItem).toMatchObject({ title: 'Открытие', content: 'Сервер открыт!\nЗаходите.', image_url: 'https://example.com/open.png' });
    expect(new Date(firstItem.created_at).getTime()).toBeGreaterThan(Date.now() - 60_000);

    const second = await create(admin, { title: '  Обновление  ', content: 'Новые миры', image_url: '' });
    expect(second.statusCode).toBe(201);
    expect(second.json()).toMatchObject({ title: 'Обновление', image_url: null });

    // Newest first, on the feed and on the admin list alike.
    expect((await feed()).map((n) => n.title)).toEqual(['Обновление', 'Открытие']);
    const all = await t.app.inject({ method: 'GET', url: '/api/tidings/all' });
    expect(all.statusCode).toBe(200);
    expect(all.json().map((n: { title: string }) => n.title)).toEqual(['Обновление', 'Открытие']);

    const edit = await t.app.inject(
      asUser(admin, {
        method: 'PUT',
        url: `/api/tidings/${firstItem.id}`,
        payload: { title: 'Открытие сервера', content: 'Текст', image_url: '/uploads/open.png' },
      }),
    );
    expect(edit.statusCode).toBe(200);
    expect(edit.json()).toMatchObject({
      id: firstItem.id,
      title: 'Открытие сервера',
      image_url: '/uploads/open.png',
      created_at: firstItem.created_at,
    });
    expect((await feed()).find((n) => n.id === firstItem.id)).toMatchObject({ title: 'Открытие сервера', content: 'Текст' });

    const del = await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/tidings/${firstItem.id}` }));
    expect(del.statusCode).toBe(200);
    expect(del.json().message).toBe('Новость удалена');
    expect((await feed()).map((n) => n.id)).toEqual([second.json().id]);

    const created = await auditOf('news.create', firstItem.id);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ actor_id: adminId, entity: 'news', before_json: null });
    expect(JSON.parse(created[0]!.after_json!)).toMatchObject({ title: 'Открытие' });
    const updated = await auditOf('news.update', firstItem.id);
    expect(JSON.parse(updated[0]!.before_json!)).toMatchObject({ title: 'Открытие' });
    expect(JSON.parse(updated[0]!.after_json!)).toMatchObject({ title: 'Открытие сервера' });
    const deleted = await auditOf('news.delete', firstItem.id);
    expect(JSON.parse(deleted[0]!.before_json!)).toMatchObject({ title: 'Открытие сервера' });
    expect(deleted[0]!.after_json).toBeNull();
  });

  it('serves the feed from memory until the next change', async () => {
    const before = await feed();
    // A change behind the API's back is not seen while the cache holds…
    await t.handle.db.updateTable('news').set({ title: 'Изменено в базе' }).execute();
    expect(await feed()).toEqual(before);
    // …and any write through the API drops the cached copy.
    const res = await create(admin, { title: 'Свежая', content: 'Текст' });
    expect(res.statusCode).toBe(201);
    const titles = (await feed()).map((n) => n.title);
    expect(titles[0]).toBe('Свежая');
    expect(titles.slice(1).every((x) => x === 'Изменено в базе')).toBe(true);

    // A browser that already has this answer gets 304; after a write the tag changes.
    const first = await t.app.inject({ method: 'GET', url: '/api/tidings/news' });
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    expect((await t.app.inject({ method: 'GET', url: '/api/tidings/news', headers: { 'if-none-match': etag } })).statusCode).toBe(304);
    await create(admin, { title: 'Ещё одна', content: 'Текст' });
    const changed = await t.app.inject({ method: 'GET', url: '/api/tidings/news', headers: { 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().news[0].title).toBe('Ещё одна');
  });

  it('refuses changes from visitors (401) and players (403), whatever they send', async () => {
    const [item] = await feed();
    const count = await newsCount();
    const good = { title: 'Чужая', content: 'Нельзя' };
    const calls = [
      { method: 'POST' as const, url: '/api/tidings/news', payload: good },
      { method: 'POST' as const, url: '/api/tidings/news', payload: { nonsense: true } },
      { method: 'PUT' as const, url: `/api/tidings/${item!.id}`, payload: good },
      { method: 'PUT' as const, url: '/api/tidings/abc', payload: good },
      { method: 'DELETE' as const, url: `/api/tidings/${item!.id}` },
    ];
    for (const call of calls) {
      const guest = await t.app.inject(call);
      expect(guest.statusCode, `${call.method} ${call.url}`).toBe(401);
      expect(errorOf(guest)).toBe('Войдите в аккаунт');
      const user = await t.app.inject(asUser(player, call));
      expect(user.statusCode, `${call.method} ${call.url}`).toBe(403);
      expect(errorOf(user)).toBe('Доступно только администраторам');
    }
    const stale = await t.app.inject(asUser('not-a-real-token-but-long-enough', { method: 'DELETE', url: `/api/tidings/${item!.id}` }));
    expect(stale.statusCode).toBe(401);
    expect(errorOf(stale)).toBe('Invalid token');
    expect(await newsCount()).toBe(count);
    // Reading stays public.
    expect((await t.app.inject(asUser(player, { method: 'GET', url: '/api/tidings/news' }))).statusCode).toBe(200);
  });

  it('checks the input and accepts only http(s) or site-path images', async () => {
    const count = await newsCount();
    const cases: [unknown, RegExp][] = [
      [{ title: '', content: 'Текст' }, /заголовок/i],
      [{ title: '   ', content: 'Текст' }, /заголовок/i],
      [{ title: 'Заголовок', content: '' }, /содержание/i],
      [{ title: 'Заголовок' }, /содержание/i],
      [{ title: 'x'.repeat(201), content: 'Текст' }, /200/],
      [{ title: 'Заголовок', content: 'x'.repeat(20_001) }, /20 000/],
      [{ title: 'Заголовок', content: 'Текст', image_url: 'javascript:alert(1)' }, /изображение/],
      [{ title: 'Заголовок', content: 'Текст', image_url: 'JAVASCRIPT:alert(1)' }, /изображение/],
      [{ title: 'Заголовок', content: 'Текст', image_url: 'data:image/png;base64,AAAA' }, /изображение/],
      [{ title: 'Заголовок', content: 'Текст', image_url: '//evil.example/x.png' }, /изображение/],
      [{ title: 'Заголовок', content: 'Текст', image_url: '/\\evil.example/x.png' }, /изображение/],
      [{ title: 'Заголовок', content: 'Текст', image_url: 'https://user:pw@evil.example/x.png' }, /изображение/],
      [{ title: 'Заголовок', content: 'Текст', image_url: 'https:// x.png' }, /изображение/],
      [{ title: 'Заголовок', content: 'Текст', image_url: 'ftp://example.com/x.png' }, /изображение/],
      [{ title: 'Заголовок', content: 'Текст', image_url: 42 }, /изображение/],
      [{ title: 'Заголовок', content: 'Текст', extra: 1 }, /./],
      [{ title: 5, content: 'Текст' }, /./],
      [[], /./],
      ['строка', /./],
      [null, /./],
    ];
    for (const [body, text] of cases) {
      const res = await t.app.inject(
        asUser(admin, {
          method: 'POST',
          url: '/api/tidings/news',
          payload: JSON.stringify(body),
          headers: { 'content-type': 'application/json' },
        }),
      );
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorOf(res), JSON.stringify(body)).toMatch(text);
      expect(errorOf(res)).toMatch(/[а-яё]/i);
    }
    const broken = await t.app.inject(
      asUser(admin, { method: 'POST', url: '/api/tidings/news', payload: '{"title":', headers: { 'content-type': 'application/json' } }),
    );
    expect(broken.statusCode).toBe(400);
    expect(errorOf(broken)).toMatch(/JSON/);
    expect(await newsCount()).toBe(count);

    const html = await create(admin, {
      title: '<b>Жирный</b>',
      content: '<script>alert(1)</script>',
      image_url: 'http://example.com/a.png?x=1#y',
    });
    expect(html.statusCode).toBe(201);
    // Stored and returned as text; the web app never renders it as HTML.
    expect(html.json()).toMatchObject({ title: '<b>Жирный</b>', content: '<script>alert(1)</script>' });
  });

  it('answers 404 for a missing item and 400 for a bad id', async () => {
    const put = await t.app.inject(asUser(admin, { method: 'PUT', url: '/api/tidings/999999', payload: { title: 'Т', content: 'С' } }));
    expect(put.statusCode).toBe(404);
    expect(errorOf(put)).toBe('Новость не найдена');
    const del = await t.app.inject(asUser(admin, { method: 'DELETE', url: '/api/tidings/999999' }));
    expect(del.statusCode).toBe(404);
    for (const id of ['abc', '0', '-1', '1.5', '99999999999']) {
      const res = await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/tidings/${id}` }));
      expect(res.statusCode, id).toBe(400);
      expect(errorOf(res)).toMatch(/идентификатор/);
    }
  });

  it('serves one item at its own address to anyone, with a Russian 404 once it is gone', async () => {
    const made = (await create(admin, { title: 'Своя страница', content: 'Первая строка\nВторая', image_url: '/media/abc.png' })).json();
    for (const token of [null, player, admin]) {
      const res = await t.app.inject(asUser(token, { method: 'GET', url: `/api/tidings/${made.id}` }));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        id: made.id,
        title: 'Своя страница',
        content: 'Первая строка\nВторая',
        image_url: '/media/abc.png',
        created_at: made.created_at,
        updated_at: made.updated_at,
      });
    }
    // The feed's own addresses are not taken for ids.
    expect(Array.isArray((await t.app.inject({ method: 'GET', url: '/api/tidings/all' })).json())).toBe(true);
    expect((await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/tidings/${made.id}` }))).statusCode).toBe(200);
    const gone = await t.app.inject({ method: 'GET', url: `/api/tidings/${made.id}` });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toMatchObject({ error: 'Новость не найдена', code: 'not_found' });
    for (const id of ['abc', '0', '-1', '99999999999']) {
      const res = await t.app.inject({ method: 'GET', url: `/api/tidings/${id}` });
      expect(res.statusCode, id).toBe(400);
      expect(errorOf(res)).toMatch(/идентификатор/);
    }
  });

  it('pages the feed, NEWS_PAGE_SIZE at a time, newest first (issue 29); odd page numbers are refused', async () => {
    for (let i = 0; i < 14; i++) expect((await create(admin, { title: `Страница ${i}`, content: 'Текст' })).statusCode).toBe(201);
    const total = await newsCount();
    const page = async (url: string) => {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      return res.json<{ news: { id: number }[]; next_page: number | null }>();
    };
    const first = await page('/api/tidings/news');
    expect(first.news).toHaveLength(12);
    expect(first.next_page).toBe(2);
    const seen = [...first.news];
    for (let n: number | null = 2; n !== null;) {
      const next = await page(`/api/tidings/news?page=${n}`);
      seen.push(...next.news);
      n = next.next_page;
    }
    expect(seen).toHaveLength(total);
    expect(new Set(seen.map((x) => x.id)).size).toBe(total);
    // A write drops every cached page.
    expect((await create(admin, { title: 'Самая новая', content: 'Текст' })).statusCode).toBe(201);
    expect((await page('/api/tidings/news?page=2')).news[0]!.id).toBe(first.news[11]!.id);
    for (const url of [
      '/api/tidings/news?page=0',
      '/api/tidings/news?page=1000',
      '/api/tidings/news?page=x',
      '/api/tidings/news?page=2&x=1',
    ])
      expect((await t.app.inject({ method: 'GET', url })).statusCode, url).toBe(400);
  });
});
