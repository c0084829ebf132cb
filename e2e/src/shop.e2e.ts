import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VanillaRconServer } from '../../testing/rcon/vanilla-server.ts';
import { loginUi, registerAndConfirm, see, startSite, toast, type Site } from './harness.ts';

const RUB = (n: string) => `${n}\u00a0₽`;

/** A JSON call from inside the page, with the page's session cookie (and Origin). */
async function call(page: Page, method: string, url: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  return page.evaluate(
    async ({ method, url, body }) => {
      const res = await fetch(url, { method, credentials: 'include', headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, json: await res.json().catch(() => null) };
    },
    { method, url, body },
  );
}

describe('shop in the browser', () => {
  let site: Site;
  const rcon = new VanillaRconServer({ password: 'rcon-pass', online: ['Miner'] });

  beforeAll(async () => {
    await rcon.start(0);
    site = await startSite({ DELIVERY_INTERVAL_SEC: '1', RCON_TIMEOUT_MS: '2000' });
    site.createAdmin('Owner', 'owner@example.com', 'password123');
  });
  afterAll(async () => {
    await site?.stop();
    await rcon.stop();
  });

  it('admin tops up a player and adds an item → the player buys 2 → balance and stock change → the delivery is done', async () => {
    const player = await site.newPage();
    await registerAndConfirm(site, player, 'Miner');

    const admin = await site.newPage();
    await loginUi(admin, 'Owner');
    // The game server with RCON, through the servers feature's admin API.
    const server = await call(admin, 'POST', '/api/servers/', { name: 'Выживание', description: 'Сервер для выдачи', ip_address: '127.0.0.1', rcon_port: rcon.port, rcon_password: 'rcon-pass' });
    expect(server.status, JSON.stringify(server.json)).toBe(201);
    // The balance, through the admin users API (PUT /api/user/{id} with { balance }).
    const users = (await call(admin, 'GET', '/api/user/all')).json as { id: number; username: string }[] | { users: { id: number; username: string }[] };
    const list = Array.isArray(users) ? users : users.users;
    const miner = list.find((u) => u.username === 'Miner')!;
    const topUp = await call(admin, 'PUT', `/api/user/${miner.id}`, { balance: 100 });
    expect(topUp.status, JSON.stringify(topUp.json)).toBe(200);

    await admin.goto('/admin/shop');
    await admin.getByRole('heading', { name: 'Товары' }).waitFor();
    await admin.getByRole('button', { name: 'Добавить товар' }).click();
    const form = admin.getByRole('dialog', { name: 'Добавить товар' });
    await form.getByRole('button', { name: 'Сохранить' }).click();
    await form.getByText('Введите название').waitFor();
    await form.getByLabel('Название').fill('Алмаз');
    await form.getByLabel('Minecraft ID').fill('diamond');
    await form.getByLabel('Цена, ₽').fill('12.5');
    await form.getByLabel('Количество').fill('10');
    await form.getByLabel('Ссылка на иконку').fill('/favicon.svg');
    expect(await form.getByLabel('Категория').inputValue()).toBe('Предметы');
    await form.getByLabel('Сервер выдачи').locator('option', { hasText: 'По умолчанию: Выживание' }).waitFor({ state: 'attached' });
    await form.getByRole('button', { name: 'Сохранить' }).click();
    await toast(admin, 'success', 'Товар добавлен!');
    const row = admin.getByRole('row', { name: /Алмаз/ });
    await row.getByText('В наличии').waitFor();
    await row.getByText('Активен').waitFor();
    await row.getByText('diamond').waitFor();
    await row.getByRole('button', { name: 'Действия с товаром «Алмаз»' }).click();
    await admin.getByText('Выживание').first().waitFor();
    await admin.keyboard.press('Escape');

    await loginUi(player, 'Miner');
    expect(await player.getByTestId('header-balance').textContent()).toBe(RUB('100'));
    await player.goto('/shop');
    const card = player.getByRole('article', { name: 'Алмаз' });
    await card.getByText('Осталось: 10 шт.').waitFor();
    expect(await player.title()).toBe('Магазин — Kubik');
    await card.getByText(RUB('12,5')).waitFor();
    expect(await player.getByTestId('shop-balance').textContent()).toBe(RUB('100'));

    await card.getByRole('button', { name: 'Купить: Алмаз' }).click();
    const modal = player.getByRole('dialog', { name: 'Подтверждение покупки' });
    const quantity = modal.getByRole('textbox', { name: 'Количество' });
    expect(await quantity.inputValue()).toBe('1');
    expect(await modal.getByRole('button', { name: 'Уменьшить количество' }).isDisabled()).toBe(true);
    // Above the stock is clamped to it; then the funds are short.
    await quantity.fill('50');
    expect(await quantity.inputValue()).toBe('10');
    await modal.getByText('Недостаточно средств на балансе').waitFor();
    expect(await modal.getByTestId('purchase-total').textContent()).toBe(RUB('125'));
    expect(await modal.getByRole('button', { name: 'Увеличить количество' }).isDisabled()).toBe(true);
    expect(await modal.getByRole('button', { name: 'Подтвердить покупку' }).isDisabled()).toBe(true);
    // Empty while typing: allowed, but nothing to confirm.
    await quantity.fill('');
    expect(await modal.getByRole('button', { name: 'Подтвердить покупку' }).isDisabled()).toBe(true);
    await quantity.fill('1');
    await modal.getByRole('button', { name: 'Увеличить количество' }).click();
    expect(await quantity.inputValue()).toBe('2');
    expect(await modal.getByTestId('purchase-total').textContent()).toBe(RUB('25'));
    await modal.getByRole('button', { name: 'Подтвердить покупку' }).click();

    await toast(player, 'success', 'Покупка совершена! Предмет будет выдан в игре.');
    await modal.waitFor({ state: 'hidden' });
    await card.getByText('Осталось: 8 шт.').waitFor();
    expect(await player.getByTestId('header-balance').textContent()).toBe(RUB('75'));
    expect(await player.getByTestId('shop-balance').textContent()).toBe(RUB('75'));

    // The purchase and its delivery, which the test RCON server confirms.
    const order = player.getByRole('listitem').filter({ hasText: 'Алмаз × 2' });
    await order.getByText('Выдано').waitFor({ timeout: 15_000 });
    expect(rcon.commands).toEqual(['give Miner minecraft:diamond 2']);

    // The admin sees the stock, and the delivery with the server's answer.
    await admin.goto('/admin/shop');
    await admin.getByRole('row', { name: /Алмаз/ }).getByText('8', { exact: true }).waitFor();
    await admin.getByRole('tab', { name: 'Выдача в игре' }).click();
    const delivery = admin.getByRole('row', { name: /Miner/ });
    await delivery.getByText('Выдано').waitFor();
    await delivery.getByText('Gave 2 [Diamond] to Miner').waitFor();
    await delivery.getByText('give Miner minecraft:diamond 2').waitFor();

    // The profile's shop tab is the same shop.
    await player.goto('/profile?tab=shop');
    await player.getByRole('article', { name: 'Алмаз' }).getByText('Осталось: 8 шт.').waitFor();
  });

  it('shows a refused purchase in the open modal, and fits a 360 px phone', async () => {
    const page = await site.newPage();
    await registerAndConfirm(site, page, 'Poor_Kid');
    // The header hides the username behind the menu button on a phone, where loginUi waits for it.
    await loginUi(page, 'Poor_Kid');
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto('/shop');
    const card = page.getByRole('article', { name: 'Алмаз' });
    await card.waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await card.getByRole('button', { name: 'Купить: Алмаз' }).click();
    const modal = page.getByRole('dialog', { name: 'Подтверждение покупки' });
    await modal.getByText('Недостаточно средств на балансе').waitFor();
    expect(await modal.getByRole('button', { name: 'Подтвердить покупку' }).isDisabled()).toBe(true);
    await modal.getByRole('button', { name: 'Отмена' }).click();
    await modal.waitFor({ state: 'hidden' });
    await see(page, 'Покупок пока нет');

    // Sold out: the admin sets the count to 0, the card says so.
    const admin = await site.newPage();
    await loginUi(admin, 'Owner');
    const items = (await call(admin, 'GET', '/api/shop/admin/all')).json as { id: number; name: string }[];
    const diamond = items.find((i) => i.name === 'Алмаз')!;
    expect((await call(admin, 'PUT', `/api/shop/admin/${diamond.id}`, { count: 0 })).status).toBe(200);
    await page.reload();
    const soldOut = page.getByRole('article', { name: 'Алмаз' }).getByRole('button', { name: 'Закончился: Алмаз' });
    await soldOut.waitFor();
    expect(await soldOut.isDisabled()).toBe(true);
    expect(await soldOut.textContent()).toBe('Закончился');

    // The admin table scrolls inside its box on a phone; the page itself does not.
    await admin.setViewportSize({ width: 360, height: 740 });
    await admin.goto('/admin/shop');
    await admin.getByRole('row', { name: /Алмаз/ }).getByText('Нет в наличии').waitFor();
    expect(await admin.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  });
});
