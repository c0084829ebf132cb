import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, linkIn, loginUi, registerAndConfirm, startSite, until, type Site } from './harness.ts';

// What a new player tripped over on a 360 × 740 phone: the way back after registering,
// a spent reset link, a kit claimed in the game, the cart's quantity, and the home and donate pages.

const PHONE = { width: 360, height: 740 };

const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe('a player on a phone', () => {
  let site: Site;
  let owner: Page;
  let sword = 0;
  const ok = async (method: string, url: string, body?: unknown) => {
    const res = await callApi(owner, method, url, body);
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.json)}`).toBeLessThan(300);
    return res.json as Record<string, unknown>;
  };

  beforeAll(async () => {
    site = await startSite();
    owner = await site.newPage();
    await loginUi(owner, 'Founder', 'founder-password-42');
    sword = (await ok('POST', '/api/shop/admin/create', { name: 'Меч', price: 50, count: null, icon: '/favicon.svg' })).id as number;
  });
  afterAll(async () => {
    await site?.stop();
  });

  it('registering from the shop: the login page says what to do, and the letter’s link leads back to the shop', async () => {
    const page = await site.newPage(PHONE);
    await page.goto('/shop');
    await page.getByRole('article', { name: 'Меч' }).getByRole('button', { name: 'Купить: Меч' }).click();
    await page.waitForURL('**/login');
    await page.getByRole('link', { name: 'Регистрация', exact: true }).last().click();
    await page.waitForURL('**/register');
    await page.getByLabel('Имя пользователя').fill('Newcomer');
    await page.getByLabel('Почта').fill('newcomer@example.com');
    await page.getByLabel('Пароль').fill('kubik-pass-42');
    await page.getByRole('button', { name: 'Зарегистрироваться' }).click();
    await page.waitForURL('**/login');
    // In the page, not a toast gone in five seconds: what was sent, where, and what happens next.
    const registered = page.getByTestId('login-registered');
    await registered.getByText('Письмо с подтверждением отправлено на вашу почту. Проверьте почту!').waitFor();
    expect(await registered.innerText()).toContain('newcomer@example.com');
    expect(await registered.innerText()).toContain('вы вернётесь туда, где были');
    await registered.getByRole('link', { name: 'Отправить ещё раз' }).waitFor();

    const letter = await site.smtp.waitFor('newcomer@example.com');
    const link = linkIn(letter, '/api/user/confirm/');
    expect(new URL(link).searchParams.get('next')).toBe('/shop');
    await page.goto(link);
    await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('verified') === 'true');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/shop');
    expect(await page.getByTestId('login-verified').textContent()).toBe('Почта успешно подтверждена! Теперь вы можете войти.');
    await page.getByLabel('Имя или почта').fill('Newcomer');
    await page.getByLabel('Пароль').fill('kubik-pass-42');
    await page.getByRole('button', { name: 'Войти' }).click();
    await page.waitForURL('**/shop');
    await page.getByRole('article', { name: 'Меч' }).waitFor();
    // Nothing of the login page's news stays over the shop.
    expect(await page.getByText('Почта успешно подтверждена').count()).toBe(0);
    expect(await page.locator('.toast').count()).toBe(0);
  });

  it('a spent or broken reset link says so on arrival and sends a new letter; a good one opens the form', async () => {
    await registerAndConfirm(site, await site.newPage(), 'Forgetter');
    const page = await site.newPage(PHONE);
    await page.goto('/reset-password?token=not-a-real-link-at-all-0123456789');
    const spent = page.getByTestId('reset-link-spent');
    await spent.getByText('Ссылка для сброса пароля недействительна или устарела: она действует час и только один раз.').waitFor();
    // No password to type for nothing.
    expect(await page.getByLabel('Новый пароль').count()).toBe(0);
    await spent.getByLabel('Почта').fill('forgetter@example.com');
    await spent.getByRole('button', { name: 'Отправить новое письмо' }).click();
    await spent.getByText('Если почта зарегистрирована, мы отправили на неё новое письмо со ссылкой. Проверьте почту.').waitFor();
    const letter = await site.smtp.waitFor('forgetter@example.com', (l) => l.subject.includes('Сброс пароля'));
    const link = linkIn(letter, '/reset-password?token=');

    await page.goto(link);
    await page.getByLabel('Новый пароль').fill('brand-new-pass-1');
    await page.getByRole('button', { name: 'Сохранить пароль' }).click();
    await page.waitForURL('**/login', { timeout: 8000 });
    // Used: the same link, opened again, says so at once.
    await page.goto(link);
    await page.getByTestId('reset-link-spent').waitFor();
    expect(await noSidewaysScroll(page)).toBe(true);
  });

  it('a kit claimed in the game shows its command, not a «Получить» that only refuses', async () => {
    const tier = await ok('POST', '/api/donate/add', {
      title: 'Игрок+',
      content: 'Набор берут командой в игре',
      amount: 10,
      currency: '₽',
      kits: [
        { name: 'Стартовый', description: 'Еда и инструменты', command: '/kit vip', period: 1, kitImg: '', give_commands: [] },
        { name: 'Хлебный', description: '', command: '', period: 7, kitImg: '', give_commands: ['give {player} bread 16'] },
      ],
    });
    const page = await site.newPage(PHONE);
    await registerAndConfirm(site, page, 'Kitter');
    await ok('POST', '/api/admin/privileges', { username: 'Kitter', tier_id: tier.id, days: 30 });
    await loginUi(page, 'Kitter');
    await page.goto('/profile');
    const inGame = page.getByRole('listitem').filter({ hasText: 'Стартовый' });
    expect(await inGame.getByTestId('kit-in-game').innerText()).toBe('Получается в игре: /kit vip');
    expect(await inGame.getByRole('button', { name: 'Получить' }).count()).toBe(0);
    // A kit the site gives keeps its button.
    await page.getByRole('listitem').filter({ hasText: 'Хлебный' }).getByRole('button', { name: 'Получить' }).waitFor();
    expect(await noSidewaysScroll(page)).toBe(true);
  });

  it('the cart’s quantity stands level with its − and + buttons', async () => {
    const page = await site.newPage(PHONE);
    await page.goto('/shop');
    await page.getByRole('article', { name: 'Меч' }).getByRole('button', { name: 'В корзину: Меч' }).click();
    await page.getByTestId('header-cart').click();
    await page.waitForURL('**/cart');
    const line = page.getByTestId(`cart-line-${sword}`);
    const middle = async (selector: string) => {
      const box = (await line.locator(selector).first().boundingBox())!;
      return box.y + box.height / 2;
    };
    const qty = await middle('.cart-qty');
    expect(Math.abs(qty - (await middle('button[aria-label="Уменьшить количество"]')))).toBeLessThanOrEqual(1.5);
    expect(Math.abs(qty - (await middle('button[aria-label="Увеличить количество"]')))).toBeLessThanOrEqual(1.5);
  });

  it('the home page invites to play and to support; /donate compares the tiers side by side', async () => {
    await ok('PUT', '/api/admin/settings', {
      game_address: 'play.kubik.test',
      home_banner_url: '/favicon.svg',
      home_banner_title: 'Летний ивент',
      home_banner_text: 'Двойной опыт все выходные',
      home_banner_link: '/donate',
    });
    await ok('POST', '/api/donate/add', {
      title: 'VIP',
      content: 'Для тех, кто играет каждый день',
      amount: 150,
      currency: '₽',
      is_best: true,
      features: [
        { title: 'Полёт', value: '', description: '', check: true },
        { title: 'Домов', value: '5', description: '', check: false },
      ],
    });
    const page = await site.newPage(PHONE);
    await page.goto('/');
    const banner = page.getByTestId('home-banner');
    await banner.getByText('Летний ивент').waitFor();
    await banner.getByText('Двойной опыт все выходные').waitFor();
    expect(await page.getByTestId('game-address').textContent()).toBe('play.kubik.test');
    await page.getByRole('link', { name: 'Поддержать сервер' }).click();
    await page.waitForURL('**/donate');

    const table = page.getByTestId('tier-comparison');
    await table.getByRole('heading', { name: 'Сравнение привилегий' }).waitFor();
    const flight = await table.getByRole('row', { name: /Полёт/ }).innerText();
    expect(flight).toContain('✓');
    expect(flight).toContain('—');
    expect(await table.getByRole('row', { name: /Домов/ }).innerText()).toContain('5');
    expect(await table.getByRole('row', { name: /Цена в месяц/ }).innerText()).toMatch(/150\u00a0₽/);
    // The table scrolls in its own frame (by keyboard too), the page does not.
    expect(await noSidewaysScroll(page)).toBe(true);
    expect(await table.locator('.compare-wrap').getAttribute('tabindex')).toBe('0');
    await until(
      () => page.evaluate(() => document.querySelectorAll('[data-testid="tier-details"]').length),
      (n) => n === 1,
      'the tier tabs are still there',
    );
  });
});
