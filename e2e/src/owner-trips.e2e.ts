import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../testing/free-port.ts';
import { callApi, loginUi, registerAndConfirm, seeErrorBeside, startSite, toast, until, type Site } from './harness.ts';

// What a new owner tripped over in the admin area, on a 360 × 740 phone: the new item's
// form, the promo codes' status, the overview's deliveries, the audit log, and the settings pages.

const PHONE = { width: 360, height: 740 };
const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe('an owner on a phone', () => {
  let site: Site;
  let owner: Page;
  const ok = async (method: string, url: string, body?: unknown) => {
    const res = await callApi(owner, method, url, body);
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.json)}`).toBeLessThan(300);
    return res.json as Record<string, unknown>;
  };

  beforeAll(async () => {
    site = await startSite({ DELIVERY_INTERVAL_SEC: '1', RCON_TIMEOUT_MS: '1000' });
    owner = await site.newPage(PHONE);
    await loginUi(owner, 'Founder', 'founder-password-42');
  });
  afterAll(async () => {
    await site?.stop();
  });

  it('a new shop item: «Количество» left empty is «без ограничения», the required fields are marked', async () => {
    await owner.goto('/admin/shop');
    await owner.getByRole('button', { name: 'Добавить товар' }).click();
    const form = owner.getByRole('dialog', { name: 'Добавить товар' });
    await form.getByText('Поля со звёздочкой * обязательны.').waitFor();
    for (const label of ['Название', 'Minecraft ID', 'Цена, ₽', 'Иконка'])
      expect(await form.getByLabel(label).first().getAttribute('required'), label).not.toBeNull();
    expect(await form.getByLabel('Количество').inputValue()).toBe('');
    // Saved without a number: the empty field raises nothing; the empty icon is named beside itself.
    await form.getByLabel('Название').first().fill('Алмазы ×16');
    await form.getByLabel('Minecraft ID').fill('diamond');
    await form.getByLabel('Цена, ₽').fill('120');
    await form.getByLabel('Штук за покупку').fill('16');
    await form.getByRole('button', { name: 'Сохранить', exact: true }).click();
    await seeErrorBeside(form.getByLabel('Иконка'), 'Укажите ссылку на иконку');
    expect(await form.getByText('Количество должно быть целым числом').count()).toBe(0);
    await form.getByLabel('Иконка').fill('/favicon.svg');
    await form.getByRole('button', { name: 'Сохранить', exact: true }).click();
    await toast(owner, 'success', 'Товар добавлен!');
    const items = (await callApi(owner, 'GET', '/api/shop/admin/all')).json as { name: string; count: number | null }[];
    expect(items.find((i) => i.name === 'Алмазы ×16')?.count).toBeNull();
  });

  it('promo codes: the status follows the dates, and a code never breaks inside itself', async () => {
    await ok('POST', '/api/admin/promo-codes', {
      code: 'OLDCODE',
      kind: 'percent',
      value: 10,
      starts_at: Date.UTC(2025, 0, 1),
      ends_at: Date.UTC(2025, 1, 1),
    });
    await ok('POST', '/api/admin/promo-codes', { code: 'LATERCODE', kind: 'percent', value: 10, starts_at: Date.now() + 30 * 86_400_000 });
    await ok('POST', '/api/admin/promo-codes', { code: 'NOWCODE', kind: 'percent', value: 10 });
    await owner.goto('/admin/promo');
    const row = (code: string) => owner.getByRole('row').filter({ hasText: code });
    await row('OLDCODE').getByText('Истёк').waitFor();
    await row('LATERCODE').getByText('Ещё не начался').waitFor();
    await row('NOWCODE').getByText('Действует').waitFor();
    expect(await row('OLDCODE').innerText()).toContain('с 01.01.2025');
    for (const code of ['OLDCODE', 'LATERCODE', 'NOWCODE']) {
      // One line: the code's box is no taller than one line of its text.
      const lines = await row(code)
        .locator('.promo-code')
        .evaluate((el) => el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight || '20'));
      expect(lines, code).toBeLessThan(1.6);
    }
    expect(await noSidewaysScroll(owner)).toBe(true);
  });

  it('the overview says what waits for delivery and why, apart from what failed', async () => {
    const closed = await freePort();
    const server = await ok('POST', '/api/servers/', {
      name: 'Выживание',
      description: 'Сервер выключен',
      ip_address: '127.0.0.1',
      rcon_port: closed,
      rcon_password: 'rcon-pass',
    });
    const bread = await ok('POST', '/api/shop/admin/create', {
      name: 'Хлеб',
      price: 5,
      count: null,
      icon: '/favicon.svg',
      server_id: server.id,
    });
    const player = await site.newPage();
    await registerAndConfirm(site, player, 'Hungry');
    const users = (await callApi(owner, 'GET', '/api/user/all')).json as
      { id: number; username: string }[] | { users: { id: number; username: string }[] };
    const hungry = (Array.isArray(users) ? users : users.users).find((u) => u.username === 'Hungry')!;
    await ok('PUT', `/api/user/${hungry.id}`, { balance: 300 });
    await loginUi(player, 'Hungry');
    for (let i = 0; i < 2; i++)
      expect((await callApi(player, 'POST', '/api/shop/buy', { shop_id: bread.id, quantity: 1 })).status).toBe(200);
    // An item named with its pieces («Алмазы ×16», 16 a purchase), bought once.
    const items = (await callApi(owner, 'GET', '/api/shop/admin/all')).json as { id: number; name: string }[];
    const diamonds = items.find((i) => i.name === 'Алмазы ×16')!;
    expect((await callApi(player, 'POST', '/api/shop/buy', { shop_id: diamonds.id, quantity: 1 })).status).toBe(200);

    await owner.goto('/admin');
    const waiting = owner.getByTestId('dashboard-waiting');
    await until(
      async () => {
        await owner.getByRole('button', { name: 'Обновить' }).click();
        return waiting.innerText();
      },
      (text) => text.includes('сервер недоступен') && /3 выдачи ждут/.test(text),
      'the overview names the waiting deliveries and why',
      30_000,
    );
    const text = await waiting.innerText();
    expect(text).toMatch(/3 выдачи ждут/);
    expect(text).toContain('сервер недоступен — выдадим, когда он ответит');
    expect(await waiting.getByRole('row').filter({ hasText: 'Хлеб' }).count()).toBe(2);
    expect(await owner.getByTestId('dashboard-failures').innerText()).toContain('Ошибок выдачи нет.');
    expect(await owner.getByTestId('dashboard-attention').innerText()).not.toContain('Всё выдано');
    // The latest orders do not say the pieces twice.
    const orders = owner.getByRole('table', { name: 'Последние заказы' });
    await orders.getByRole('cell', { name: 'Алмазы ×16', exact: true }).waitFor();
    expect(await orders.innerText()).not.toMatch(/×16 ×16/);
    expect(await noSidewaysScroll(owner)).toBe(true);
  });

  it('the audit log names every field in Russian, and things by what they are', async () => {
    await ok('PUT', '/api/admin/payment-providers/yoomoney', {
      enabled: true,
      fields: { wallet: '4100111111111111' },
      secrets: { notification_secret: 'a-long-notification-secret' },
    });
    await owner.goto('/admin/audit');
    const entries = owner.getByTestId('audit-entry');
    await entries.first().waitFor();
    const promo = entries.filter({ hasText: 'Промокод добавлен' }).filter({ hasText: '«OLDCODE»' }).first();
    await promo.locator('summary').click();
    const text = await promo.innerText();
    expect(text).toContain('Вид: Скидка в процентах');
    expect(text).toContain('Применяется к: Всё');
    expect(text).toContain('Действует до: 01.02.2025');
    await entries.filter({ hasText: 'Способ оплаты настроен' }).first().getByText('ЮMoney').waitFor();
    const page = await owner.locator('main').innerText();
    for (const raw of ['Другое поле', '№yoomoney', 'percent', 'applies_to', 'donate']) expect(page, raw).not.toContain(raw);
    const sections = await owner.getByLabel('Раздел', { exact: true }).locator('option').allTextContents();
    expect(new Set(sections).size).toBe(sections.length);
    expect(sections.filter((s) => s === 'Выдача в игре')).toHaveLength(1);
  });

  it('settings: one «Главная страница», each form’s own save; payment keys in Russian', async () => {
    await owner.goto('/admin/settings');
    await owner.getByRole('button', { name: 'Сохранить настройки сайта' }).waitFor();
    await owner.getByRole('button', { name: 'Сохранить виджеты' }).waitFor();
    expect(await owner.getByRole('button', { name: 'Сохранить', exact: true }).count()).toBe(0);
    expect(await owner.getByRole('group', { name: 'Главная страница' }).count()).toBe(1);
    await owner.getByRole('heading', { name: 'Виджеты на главной' }).waitFor();

    await owner.goto('/admin/payments');
    await owner.getByRole('button', { name: 'Подключения' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Подключения: способы оплаты' });
    await dialog.getByTestId('provider-freekassa').waitFor();
    await dialog.getByLabel('Секретное слово 1 — не задано').waitFor();
    await dialog.getByLabel('Идентификатор магазина (shopId в ЮKassa)').waitFor();
    expect(await noSidewaysScroll(owner)).toBe(true);
  });
});
