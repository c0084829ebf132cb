import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asUser,
  createPgDatabase,
  createTestApp,
  dbKinds,
  loginAs,
  seedUser,
  sendQueuedMail,
  startInstance,
  type TestApp,
} from '../../test/test-app.ts';

const webDist = mkdtempSync(path.join(os.tmpdir(), 'kubik-web-'));
writeFileSync(path.join(webDist, 'index.html'), readFileSync(path.resolve(import.meta.dirname, '../../../../web/index.html')));
afterAll(() => rmSync(webDist, { recursive: true, force: true }));

describe.each(dbKinds)('site settings on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let player: string;
  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false, webDist, siteName: 'Кубик' });
    await seedUser(t, 'Owner', { admin: true });
    await seedUser(t, 'Steve');
    admin = await loginAs(t, 'Owner');
    player = await loginAs(t, 'Steve');
  });
  afterAll(async () => t?.close());

  const put = (token: string | null, payload: unknown) =>
    t.app.inject(asUser(token, { method: 'PUT', url: '/api/admin/settings', payload: payload as object }));

  it('are read by everyone, with the environment as the defaults', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/site/settings' });
    expect(res.statusCode).toBe(200);
    const s = res.json();
    expect(s.name).toBe('Кубик');
    expect(s.launcher_version).toBe('v1.0.0');
    expect(s.accent_color).toBe('#4ade80');
    expect(s.game_address).toBe('');
  });

  it('are changed by administrators only', async () => {
    expect((await put(null, { name: 'Взлом' })).statusCode).toBe(401);
    expect((await put(player, { name: 'Взлом' })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/settings' })).statusCode).toBe(401);
    expect((await t.app.inject(asUser(player, { method: 'GET', url: '/api/admin/settings' }))).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: '/api/site/settings' })).json().name).toBe('Кубик');
  });

  it('a change shows at once in the public settings, the old site answer and the index page', async () => {
    const res = await put(admin, {
      name: 'Кубик <Выживание>',
      game_address: 'play.kubik.ru:25566',
      accent_color: '#2563EB',
      support_email: 'help@kubik.ru',
      legal_seller: 'ИП Иванов И. И.',
      legal_inn: '771234567890',
      legal_ogrn: '312774600000012',
      seo_description: 'Выживание "с друзьями"',
      logo_url: '/media/logo.png',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().value.name).toBe('Кубик <Выживание>');
    expect(res.json().stored).toEqual(expect.arrayContaining(['name', 'game_address', 'accent_color']));
    expect(res.json().defaults.name).toBe('Кубик');

    const pub = (await t.app.inject({ method: 'GET', url: '/api/site/settings' })).json();
    expect(pub).toMatchObject({
      name: 'Кубик <Выживание>',
      game_address: 'play.kubik.ru:25566',
      accent_color: '#2563EB',
      legal_inn: '771234567890',
    });
    expect((await t.app.inject({ method: 'GET', url: '/api/site' })).json().name).toBe('Кубик <Выживание>');

    const html = (await t.app.inject({ method: 'GET', url: '/rules' })).body;
    expect(html).toContain('<title>Кубик &lt;Выживание&gt;</title>');
    expect(html).toContain('<meta name="description" content="Выживание &quot;с друзьями&quot;" />');
    expect(html).toContain('<img src="/media/logo.png"');
    expect(html).toMatch(
      /<style id="site-accent">:root\{--accent:#2563eb;--accent-strong:#[0-9a-f]{6};--accent-ink:#[0-9a-f]{6}\}<\/style>/,
    );
  });

  it('refuses bad values with the field and a Russian text, and changes nothing', async () => {
    const cases: [object, string][] = [
      [{ name: '' }, 'name'],
      [{ accent_color: 'red;}</style><script>' }, 'accent_color'],
      [{ logo_url: 'javascript:alert(1)' }, 'logo_url'],
      [{ support_vk: 'data:text/html,x' }, 'support_vk'],
      [{ game_address: 'play kubik' }, 'game_address'],
      [{ game_address: 'play.kubik.ru:70000' }, 'game_address'],
      [{ legal_inn: '12345' }, 'legal_inn'],
      [{ support_email: 'не почта' }, 'support_email'],
      [{ unknown: 1 }, ''],
    ];
    for (const [payload, field] of cases) {
      const res = await put(admin, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error).toMatch(/[а-яё]/i);
      if (field) expect(res.json().field).toBe(field);
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/site/settings' })).json().name).toBe('Кубик <Выживание>');
  });

  it('null returns a field to its default; the change is in the audit log', async () => {
    const res = await put(admin, { name: null, accent_color: null });
    expect(res.statusCode).toBe(200);
    expect(res.json().value.name).toBe('Кубик');
    expect(res.json().stored).not.toContain('name');
    const html = (await t.app.inject({ method: 'GET', url: '/' })).body;
    expect(html).toContain('<title>Кубик</title>');
    expect(html).not.toContain('site-accent');
    const audit = await t.handle.db.selectFrom('audit_log').select(['action', 'entity']).where('entity', '=', 'settings').execute();
    expect(audit.length).toBeGreaterThanOrEqual(2);
    expect(audit[0]!.action).toBe('settings.update');
  });

  it('letters name the site as the owner set it; SITE_NAME is only the default', async () => {
    expect((await put(admin, { name: 'Майнленд' })).statusCode).toBe(200);
    const reg = await t.app.inject({
      method: 'POST',
      url: '/api/user/register',
      payload: { username: 'Lettered', email: 'lettered@example.com', password: 'kubik-pass-42' },
    });
    expect(reg.statusCode).toBe(201);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/user/forgot-password', payload: { email: 'steve@example.com' } })).statusCode,
    ).toBe(200);
    await sendQueuedMail(t);
    const confirm = await t.smtp.waitFor('lettered@example.com');
    expect(confirm.subject).toBe('Подтверждение почты — Майнленд');
    expect(confirm.text).toContain('на сайте Майнленд');
    expect(confirm.html).toContain('Майнленд');
    const reset = await t.smtp.waitFor('steve@example.com', (l) => l.subject.includes('Сброс пароля'));
    expect(reset.subject).toContain('Майнленд');
    expect(`${reset.subject}${reset.text}`).not.toContain('Кубик');
    expect((await put(admin, { name: null })).statusCode).toBe(200);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('site settings across instances (PostgreSQL)', () => {
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>>;
  const instances: Awaited<ReturnType<typeof startInstance>>[] = [];
  const instance = async (): Promise<FastifyInstance> => {
    const started = await startInstance(pgDb.url, { siteName: 'Кубик', webDist });
    instances.push(started);
    return started.app;
  };
  beforeAll(async () => {
    pgDb = await createPgDatabase();
  });
  afterAll(async () => {
    for (const i of instances.splice(0)) await i.close();
    await pgDb?.drop();
  });

  it('a change saved on one instance shows on the other at once, in its cached answers too', async () => {
    const one = await instance();
    const two = await instance();
    const t = { app: one, handle: instances[0]!.handle } as unknown as TestApp;
    await seedUser(t, 'Owner', { admin: true });
    const token = await loginAs(t, 'Owner');
    // The other instance has its answers cached.
    expect((await two.inject({ method: 'GET', url: '/api/site/settings' })).json().name).toBe('Кубик');
    expect((await two.inject({ method: 'GET', url: '/' })).body).toContain('<title>Кубик</title>');
    const res = await one.inject(asUser(token, { method: 'PUT', url: '/api/admin/settings', payload: { name: 'Кубик 2' } }));
    expect(res.statusCode).toBe(200);
    await expect
      .poll(async () => (await two.inject({ method: 'GET', url: '/api/site/settings' })).json().name, { timeout: 2000, interval: 20 })
      .toBe('Кубик 2');
    await expect
      .poll(async () => (await two.inject({ method: 'GET', url: '/' })).body, { timeout: 2000, interval: 20 })
      .toContain('<title>Кубик 2</title>');
  });
});
