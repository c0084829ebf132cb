import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blank, fill, toPng } from '../../testing/skin-images.ts';
import { callApi, loginUi, see, startSite, toast, type Site } from './harness.ts';

const noHorizontalScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe('the owner’s home page, overview and players', () => {
  let site: Site;
  let owner: Page;
  beforeAll(async () => {
    site = await startSite({}, { fresh: true });
    site.createAdmin('Owner', 'owner@example.com', 'owner-password');
    owner = await site.newPage();
    await loginUi(owner, 'Owner', 'owner-password');
  });
  afterAll(async () => {
    await site?.stop();
  });

  it('the owner names the site, sets the game address, rewrites the rules and posts news with an uploaded image; a guest sees all of it', async () => {
    await owner.goto('/admin/settings');
    await owner.getByLabel('Название сайта').fill('Кубик Дом');
    await owner.getByLabel('Адрес сервера').fill('play.kubik.test:25566');
    await owner.getByRole('button', { name: 'Сохранить настройки сайта' }).click();
    await toast(owner, 'success', 'Настройки сохранены');

    await owner.goto('/admin/pages');
    await owner.getByRole('button', { name: 'Изменить страницу «Правила»' }).click();
    let dialog = owner.getByRole('dialog');
    await dialog.getByLabel('Текст (Markdown)').fill('## Правило дома\n\nСтройте подальше от **спавна**.');
    await dialog.getByRole('button', { name: 'Сохранить', exact: true }).click();
    await toast(owner, 'success', 'Страница сохранена');

    await owner.goto('/admin/news');
    await owner.getByRole('button', { name: 'Добавить новость' }).click();
    dialog = owner.getByRole('dialog');
    // Opening the modal focuses its first field.
    await expect.poll(() => owner.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('title');
    await dialog.getByLabel('Заголовок').fill('Открыли новый мир');
    await dialog.getByLabel('Содержание').fill('Первая строка.\nВторая строка.');
    const chooser = owner.waitForEvent('filechooser');
    await dialog.getByRole('button', { name: 'Загрузить файл' }).click();
    await (
      await chooser
    ).setFiles({ name: 'world.png', mimeType: 'image/png', buffer: await toPng(fill(blank(64, 36), 0, 0, 64, 36, [40, 160, 80, 255])) });
    const imageField = dialog.getByLabel('Ссылка на изображение (необязательно)', { exact: true });
    await expect.poll(() => imageField.inputValue()).toMatch(/^\/media\//);
    const imageUrl = await imageField.inputValue();
    await dialog.getByRole('button', { name: 'Сохранить', exact: true }).click();
    await toast(owner, 'success', 'Новость добавлена!');

    const guest = await site.newPage({ width: 360, height: 740 });
    await guest.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await guest.goto('/');
    await guest.getByRole('heading', { name: 'Добро пожаловать на Кубик Дом!', level: 1 }).waitFor();
    expect(await guest.title()).toBe('Кубик Дом');
    // The hero: the address to copy, «Начать играть» and, for a guest, registration.
    expect(await guest.getByTestId('game-address').textContent()).toBe('play.kubik.test:25566');
    await guest.getByRole('button', { name: 'Скопировать: Адрес сервера' }).click();
    await guest.getByRole('button', { name: 'Скопировано: Адрес сервера' }).waitFor();
    expect(await guest.evaluate(() => navigator.clipboard.readText())).toBe('play.kubik.test:25566');
    await guest.getByRole('link', { name: 'Регистрация' }).first().waitFor();
    expect(await noHorizontalScroll(guest)).toBe(true);

    // The news card shows the uploaded image and leads to the item's own page.
    const card = guest.getByTestId('news-card');
    expect(await card.locator('img').getAttribute('src')).toBe(imageUrl);
    expect(await card.locator('img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(64);
    const href = await card.getByRole('link', { name: 'Открыли новый мир' }).getAttribute('href');
    expect(href).toMatch(/^\/news\/\d+$/);
    await guest.goto(href!);
    await guest.getByRole('heading', { name: 'Открыли новый мир', level: 1 }).waitFor();
    expect(await guest.title()).toBe('Открыли новый мир — Кубик Дом');
    expect(await guest.locator('.news-full-text').textContent()).toBe('Первая строка.\nВторая строка.');
    expect(await guest.locator('.news-page img').getAttribute('src')).toBe(imageUrl);
    await guest.goto('/news/999999');
    await guest.getByRole('heading', { name: 'Новость не найдена' }).waitFor();

    await guest.goto('/rules');
    await guest.getByRole('heading', { name: 'Правило дома', level: 2 }).waitFor();
    await see(guest, 'Стройте подальше от');
    expect(await guest.title()).toBe('Правила — Кубик Дом');

    // Where the Clipboard API is refused, the old way still copies.
    await guest.goto('/');
    await guest.evaluate(async () => {
      await navigator.clipboard.writeText('что-то другое');
      navigator.clipboard.writeText = () => Promise.reject(new DOMException('denied', 'NotAllowedError'));
    });
    expect(await guest.evaluate(() => navigator.clipboard.readText())).toBe('что-то другое');
    await guest.getByRole('button', { name: 'Скопировать: Адрес сервера' }).click();
    await guest.getByRole('button', { name: 'Скопировано: Адрес сервера' }).waitFor();
    expect(await guest.evaluate(() => navigator.clipboard.readText())).toBe('play.kubik.test:25566');
  });

  it('the overview at /admin draws the money by day as a chart with a table, and links to what needs attention', async () => {
    // Only the owner registered (today); nobody has paid or bought anything.
    await owner.goto('/admin');
    await owner.getByRole('heading', { name: 'Обзор' }).waitFor();
    const chart = owner.getByTestId('dashboard-chart').first();
    await chart.waitFor();
    expect(await chart.getAttribute('aria-label')).toMatch(/^Пополнения и покупки за 30 дней/);
    expect(await owner.locator('[data-testid="dashboard-chart"]').first().locator('g').count()).toBe(30);
    expect(await owner.getByTestId('stat-registrations').textContent()).toMatch(/Регистрации за 30 дней1/);
    // No money yet: the chart says so rather than showing an empty box.
    await see(owner, 'За 30 дней не было ни пополнений, ни покупок.');
    await owner.getByText('Показать таблицей').first().click();
    const table = owner.locator('table.dash-days').first();
    await table.waitFor();
    expect(await table.locator('tbody tr').count()).toBe(30);
    await owner.getByRole('link', { name: 'Открыть выдачу' }).click();
    await owner.waitForURL('**/admin/shop?tab=deliveries');
    await owner.getByRole('tab', { name: 'Выдача в игре', selected: true }).waitFor();

    const phone = await site.newPage({ width: 360, height: 740 });
    await loginUi(phone, 'Owner', 'owner-password');
    await phone.goto('/admin');
    await phone.getByTestId('dashboard-chart').first().waitFor();
    expect(await noHorizontalScroll(phone)).toBe(true);
    // The menu leads to the audit log.
    // On a phone the admin menu is folded under «Разделы».
    const adminNav = phone.getByRole('navigation', { name: 'Разделы админ-панели' });
    const unfold = adminNav.getByRole('button', { name: /^Разделы/ });
    if (await unfold.isVisible()) await unfold.click();
    await adminNav.getByRole('link', { name: 'Журнал изменений' }).click();
    await phone.waitForURL('**/admin/audit');
  });

  it('players are searched on the server, and a balance changes by «+ / − сумма» with a comment', async () => {
    for (const name of ['Alex', 'Alexis', 'Bob']) {
      const res = await callApi(owner, 'POST', '/api/user/register', {
        username: name,
        email: `${name.toLowerCase()}@example.com`,
        password: 'kubik-pass-42',
        is_admin: false,
        balance: 0,
      });
      expect(res.status).toBe(201);
    }
    await owner.goto('/admin/users');
    await owner.getByLabel('Поиск').fill('alex');
    await owner.getByTestId('user-row-Alexis').waitFor();
    await expect.poll(() => owner.locator('[data-testid^="user-row-"]').count()).toBe(2);
    await see(owner, 'Найдено: 2 пользователя');

    await owner.getByRole('button', { name: 'Карточка игрока Alexis' }).click();
    const card = owner.getByRole('dialog', { name: 'Карточка игрока' });
    await card.getByTestId('user-card').waitFor();
    await card.getByText('подтверждена').first().waitFor();
    // A comment is required; the form says so next to the field.
    await card.getByLabel('Сумма, ₽').fill('150,50');
    await card.getByRole('button', { name: 'Провести' }).click();
    await card.getByText(/Напишите комментарий/).waitFor();
    await card.getByLabel('Комментарий').fill('Компенсация за вайп');
    await card.getByRole('button', { name: 'Провести' }).click();
    await toast(owner, 'success', 'Баланс изменён: 150,50 ₽');
    await expect.poll(() => card.getByTestId('user-card-balance').textContent()).toBe('150,50\u00a0₽');
    await card.getByRole('cell', { name: 'Компенсация за вайп' }).waitFor();

    await card.getByLabel('Действие').selectOption('-');
    await card.getByLabel('Сумма, ₽').fill('200');
    await card.getByLabel('Комментарий').fill('Слишком много');
    await card.getByRole('button', { name: 'Провести' }).click();
    // Refused by the server: the reason stands next to the amount, and the toast is above the modal.
    await card
      .getByText(/Баланс не может стать отрицательным/)
      .first()
      .waitFor();
    expect(await card.locator('.toast[data-type="danger"]').count()).toBeGreaterThan(0);

    await owner.goto('/admin/audit');
    await see(owner, /Баланс изменён/);
    await see(owner, 'Компенсация за вайп');
  });

  it('a form whose values carry a field the schema refuses says so instead of doing nothing', async () => {
    await owner.route('**/api/admin/settings', async (route) => {
      if (route.request().method() !== 'GET') return route.fallback();
      const res = await route.fetch();
      const body = (await res.json()) as { value: Record<string, unknown> };
      body.value.retired_field = 'из старой версии';
      await route.fulfill({ response: res, json: body });
    });
    await owner.goto('/admin/settings');
    await owner.getByLabel('Название сайта').fill('Кубик Дом 2');
    await owner.getByRole('button', { name: 'Сохранить настройки сайта' }).click();
    await owner
      .locator('.form-errors')
      .getByText(/Форму нельзя отправить/)
      .waitFor();
    await owner.unroute('**/api/admin/settings');
  });
});
