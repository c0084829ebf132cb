import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';

describe.each(dbKinds)('pages on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let player: string;
  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
    await seedUser(t, 'Owner', { admin: true });
    await seedUser(t, 'Steve');
    admin = await loginAs(t, 'Owner');
    player = await loginAs(t, 'Steve');
  });
  afterAll(async () => t?.close());

  const get = (slug: string) => t.app.inject({ method: 'GET', url: `/api/pages/${slug}` });
  const put = (token: string | null, slug: string, payload: object) =>
    t.app.inject(asUser(token, { method: 'PUT', url: `/api/admin/pages/${slug}`, payload }));

  it("start with today's rules, help and FAQ texts; оферта, privacy and contacts wait to be written", async () => {
    const rules = await get('rules');
    expect(rules.statusCode).toBe(200);
    expect(rules.json()).toMatchObject({ slug: 'rules', title: 'Правила', path: '/rules', builtin: true });
    expect(rules.json().html).toContain('<h2>Основные правила</h2>');
    expect(rules.json().html).toContain('<li>Запрещены спам и флуд в чате.</li>');
    const faq = (await get('faq')).json();
    expect(faq.html).toContain('<details class="faq-item"><summary>Как зарегистрироваться?</summary>');
    expect(faq.html).toContain('<a href="/register" rel="noopener noreferrer">регистрацию</a>');
    expect((await get('help')).json().html).toContain('Безопасность аккаунта');
    for (const slug of ['offer', 'privacy', 'contacts', 'nothing-here']) expect((await get(slug)).statusCode).toBe(404);
    // Not filled in: not linked from the footer either.
    expect((await t.app.inject({ method: 'GET', url: '/api/pages' })).json().pages).toEqual([]);
  });

  it('are changed by administrators only', async () => {
    expect((await put(null, 'rules', { title: 'Взлом', body: 'x' })).statusCode).toBe(401);
    expect((await put(player, 'rules', { title: 'Взлом', body: 'x' })).statusCode).toBe(403);
    expect((await t.app.inject(asUser(player, { method: 'GET', url: '/api/admin/pages' }))).statusCode).toBe(403);
    expect((await t.app.inject(asUser(player, { method: 'DELETE', url: '/api/admin/pages/rules' }))).statusCode).toBe(403);
    expect((await get('rules')).json().title).toBe('Правила');
  });

  it('an edit shows at once to visitors', async () => {
    expect((await get('rules')).statusCode).toBe(200); // cached
    const res = await put(admin, 'rules', { title: 'Правила сервера', body: '# Главное\n\nНе **гриферить**.' });
    expect(res.statusCode).toBe(200);
    const page = (await get('rules')).json();
    expect(page.title).toBe('Правила сервера');
    expect(page.html).toBe('<h1>Главное</h1>\n<p>Не <strong>гриферить</strong>.</p>\n');
  });

  it('renders hostile Markdown inert: no raw HTML, no script URLs, links with rel=noopener', async () => {
    const body = [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(1)>',
      '<a href="javascript:alert(1)">html link</a>',
      '[js](javascript:alert(1)) [js2](JAVASCRIPT&colon;alert(1)) [vb](vbscript:msgbox(1)) [d](data:text/html;base64,PHNjcmlwdD4=)',
      '![img](javascript:alert(1)) ![img2](data:image/svg+xml;base64,PHN2Zz4=) ![quote](x" onerror="alert(1))',
      '[ref][1]',
      '',
      '[1]: javascript:alert(1)',
      '',
      '[site](/donate) [ok](https://example.com/a?b=1) <https://vk.com/kubik> [mail](mailto:help@kubik.ru)',
    ].join('\n');
    const res = await put(admin, 'evil', { title: 'Проверка', body, place: 'footer' });
    expect(res.statusCode).toBe(200);
    const html: string = (await get('evil')).json().html;
    expect(html).not.toMatch(
      /<script|<img[^>]*onerror|<a [^>]*href="(javascript|vbscript|data):|<img [^>]*src="(javascript|data):|\son\w+="/i,
    );
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    const links = [...html.matchAll(/<a ([^>]*)>/g)].map((m) => m[1]);
    expect(links).toEqual([
      'href="/donate" rel="noopener noreferrer"',
      'href="https://example.com/a?b=1" rel="noopener noreferrer" target="_blank"',
      'href="https://vk.com/kubik" rel="noopener noreferrer" target="_blank"',
      'href="mailto:help@kubik.ru" rel="noopener noreferrer"',
    ]);
    expect(html).not.toContain('<img');
  });

  it("custom pages get /p/{slug} and a place in the footer or menu; they can be deleted, the site's own cannot", async () => {
    expect((await put(admin, 'vip', { title: 'VIP', body: 'Текст', place: 'menu', position: 5 })).json()).toMatchObject({
      path: '/p/vip',
      builtin: false,
      place: 'menu',
    });
    expect((await put(admin, 'offer', { title: 'Публичная оферта', body: 'Условия…' })).json()).toMatchObject({
      path: '/p/offer',
      place: 'footer',
    });
    const links = (await t.app.inject({ method: 'GET', url: '/api/pages' })).json().pages;
    // In the owner's order (position), then by address.
    expect(links).toEqual([
      { slug: 'evil', title: 'Проверка', place: 'footer', path: '/p/evil' },
      { slug: 'vip', title: 'VIP', place: 'menu', path: '/p/vip' },
      { slug: 'offer', title: 'Публичная оферта', place: 'footer', path: '/p/offer' },
    ]);
    const builtin = await t.app.inject(asUser(admin, { method: 'DELETE', url: '/api/admin/pages/rules' }));
    expect(builtin.statusCode).toBe(400);
    expect(builtin.json().code).toBe('page_builtin');
    expect((await t.app.inject(asUser(admin, { method: 'DELETE', url: '/api/admin/pages/vip' }))).statusCode).toBe(200);
    expect((await get('vip')).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/api/pages' })).json().pages.map((p: { slug: string }) => p.slug)).toEqual([
      'evil',
      'offer',
    ]);
    const all = (await t.app.inject(asUser(admin, { method: 'GET', url: '/api/admin/pages' }))).json();
    expect(all.map((p: { slug: string }) => p.slug)).toEqual(
      expect.arrayContaining(['rules', 'help', 'faq', 'offer', 'privacy', 'contacts', 'evil']),
    );
  });

  it('refuses bad input in Russian with the field, and records changes in the audit log', async () => {
    const cases: [string, object, string][] = [
      ['rules', { title: '', body: 'x' }, 'title'],
      ['rules', { title: 'x', body: 'ы'.repeat(100_001) }, 'body'],
      ['rules', { title: 'x', body: 'x', place: 'sidebar' }, 'place'],
      ['rules', { title: 'x' }, 'body'],
      ['Плохой адрес', { title: 'x', body: 'x' }, 'slug'],
    ];
    for (const [slug, payload, field] of cases) {
      const res = await put(admin, encodeURIComponent(slug), payload);
      expect(res.statusCode, `${slug} ${JSON.stringify(payload).slice(0, 80)}`).toBe(400);
      expect(res.json().error).toMatch(/[а-яё]/i);
      expect(res.json().field).toBe(field);
    }
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'entity_id'])
      .where('entity', '=', 'page')
      .orderBy('id')
      .execute();
    expect(audit.map((a) => `${a.action} ${a.entity_id}`)).toEqual([
      'page.update rules',
      'page.update evil',
      'page.update vip',
      'page.update offer',
      'page.delete vip',
    ]);
  });
});
