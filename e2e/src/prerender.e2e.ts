import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appReady, callApi, loginUi, registerAndConfirm, seeFormError, startSite, type Site } from './harness.ts';

/** What the page said in the console (warnings and errors) and the scripts' uncaught errors. */
function consoleOf(page: Page): string[] {
  const said: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'warning' || m.type() === 'error') said.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => said.push(`pageerror: ${e.message}`));
  return said;
}

describe('pages drawn on the server (Lighthouse on a slow phone)', () => {
  let site: Site;
  let admin: Page;
  beforeAll(async () => {
    site = await startSite();
    admin = await site.newPage();
    await loginUi(admin, 'Founder', 'founder-password-42');
    const tier = await callApi(admin, 'POST', '/api/donate/add', {
      title: 'Рыцарь',
      content: 'Личный сундук и цветной ник',
      amount: 199,
      currency: '₽',
      kits: [],
      features: [],
    });
    expect(tier.status, JSON.stringify(tier.json)).toBe(201);
    const server = await callApi(admin, 'POST', '/api/servers/', {
      name: 'Долина',
      description: 'Выживание без привата',
      ip_address: '127.0.0.1',
      port: 1,
    });
    expect(server.status, JSON.stringify(server.json)).toBe(201);
  });
  afterAll(async () => {
    await site?.stop();
  });

  it('a guest gets each first page drawn, and the app takes it over without a word in the console', async () => {
    const cases: [string, string, string][] = [
      ['/', 'Добро пожаловать на', 'Kubik'],
      ['/servers', 'Долина', 'Список серверов — Kubik'],
      ['/donate', 'Рыцарь', 'Донат — Kubik'],
      ['/login', 'Вход', 'Вход — Kubik'],
      ['/rules', 'Правила', 'Правила — Kubik'],
    ];
    for (const [path, text, title] of cases) {
      // As it comes over the wire, before any script: the page's content and its title are in it.
      const html = await (await fetch(`${site.url}${path}`)).text();
      expect(html, path).toContain('id="kubik-first"');
      expect(html, path).toContain(text);
      expect(html, path).toContain(`<title>${title}</title>`);

      const page = await site.newPage({ width: 360, height: 740 });
      const said = consoleOf(page);
      const asked: string[] = [];
      page.on('request', (r) => {
        if (new URL(r.url()).pathname.startsWith('/api/')) asked.push(r.url());
      });
      await page.goto(path);
      await appReady(page);
      await page.locator('main').getByText(text).first().waitFor();
      expect(await page.title()).toBe(title);
      // A moment for anything the app would still ask or say once it has taken over.
      await page.waitForTimeout(300);
      expect(said, path).toEqual([]);
      // Everything the page shows came with it, but the home page's widgets (first-reads.ts), the
      // social logins under the login form (their own chunk, after the page), and, below the fold,
      // the footer's legal links and the donation goal, each asked at most once.
      const later: Record<string, string[]> = { '/': ['/api/home/showcase'], '/login': ['/api/auth/social/providers'] };
      const belowFold = ['/api/legal', '/api/donate/goal'];
      const paths = asked.map((url) => new URL(url).pathname);
      expect(
        paths.filter((p) => !belowFold.includes(p)),
        path,
      ).toEqual(later[path] ?? []);
      for (const p of belowFold) expect(paths.filter((x) => x === p).length, `${path} ${p}`).toBeLessThanOrEqual(1);
      await page.context().close();
    }
  });

  it('keeps the login form inert until the app has taken over, then it works', async () => {
    const page = await site.newPage({ width: 360, height: 740 });
    const said = consoleOf(page);
    // The app's script held back, as on a slow line.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/assets\/index-[\w-]+\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto('/login', { waitUntil: 'domcontentloaded' });
    await page.getByRole('heading', { name: 'Вход' }).waitFor();
    // Drawn and visible, but nothing to type into or send yet: a submit now would be a plain GET
    // with the password in the address.
    expect(await page.locator('form').getAttribute('inert')).not.toBeNull();
    release();
    await appReady(page);
    await page.waitForFunction(() => !document.querySelector('form[inert]'));
    await page.getByLabel('Имя или почта').fill('Founder');
    await page.getByLabel('Пароль').fill('wrong-password-1');
    await page.getByRole('button', { name: 'Войти' }).click();
    await seeFormError(page, 'Неверное имя пользователя или пароль');
    expect(page.url()).toBe(`${site.url}/login`);
    // The refused login's 401 is the browser's own line; nothing else.
    expect(said.filter((line) => !/Failed to load resource: .* 401/.test(line))).toEqual([]);
  });

  it('the login page loads its checks (zod) only once touched, and says so when they cannot load', async () => {
    const page = await site.newPage({ width: 360, height: 740 });
    const scripts: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
    });
    // The schemas' chunk cannot be fetched, as on a line that just dropped.
    const SCHEMAS = /\/assets\/auth-schemas-[\w-]+\.js$/;
    await page.route(SCHEMAS, (route) => route.abort());
    await page.goto('/login');
    await appReady(page);
    await page.waitForTimeout(300);
    expect(scripts.filter((p) => SCHEMAS.test(p))).toEqual([]);
    expect(scripts.some((p) => p.includes('/auth-pages') || p.includes('AuthPages'))).toBe(true);
    await page.getByLabel('Имя или почта').fill('Founder');
    await page.getByLabel('Пароль').fill('wrong-password-1');
    await page.getByRole('button', { name: 'Войти' }).click();
    await seeFormError(page, 'Не удалось загрузить форму: нет связи с сервером. Проверьте подключение к интернету и попробуйте ещё раз.');
    expect(scripts.some((p) => SCHEMAS.test(p))).toBe(true);
    // The line is back: the next try loads them and the form works.
    await page.unroute(SCHEMAS);
    await page.getByRole('button', { name: 'Войти' }).click();
    await seeFormError(page, 'Неверное имя пользователя или пароль');
    await page.context().close();
  });

  it('a signed-in visitor gets the app, which draws their own header', async () => {
    const player = await site.newPage();
    await registerAndConfirm(site, player, 'Drawn_Player');
    await loginUi(player, 'Drawn_Player');
    const shell = await (await player.request.get('/donate')).text();
    expect(shell).not.toContain('id="kubik-first"');
    await player.goto('/donate');
    await player.getByText('Рыцарь', { exact: true }).first().waitFor();
    await player
      .getByRole('button', { name: /Drawn_Player/ })
      .first()
      .waitFor();
  });
});
