import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi as call, loginUi, registerAndConfirm, startSite, toast, type Site } from './harness.ts';

const RUB = (n: string) => `${n}\u00a0₽`;

/** The text next to a field (the kit's markup: its error is named by aria-describedby), or null. */
const errorOf = (page: Page, label: string) =>
  page
    .getByRole('dialog')
    .getByLabel(label, { exact: true })
    .evaluate((el) => {
      const ids = (el.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
      return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' ') || null;
    });

describe('the purchase confirmation in the browser', () => {
  let site: Site;
  let admin: Page;
  let player: Page;
  let buyerId: number;

  beforeAll(async () => {
    site = await startSite({}, { fresh: true });
    site.createAdmin('Owner', 'owner@example.com', 'kubik-pass-42');
    admin = await site.newPage();
    await loginUi(admin, 'Owner');
    player = await site.newPage();
    await registerAndConfirm(site, player, 'Buyer');
    const users = (await call(admin, 'GET', '/api/user/all')).json as
      { id: number; username: string }[] | { users: { id: number; username: string }[] };
    buyerId = (Array.isArray(users) ? users : users.users).find((u) => u.username === 'Buyer')!.id;
    expect((await call(admin, 'PUT', `/api/user/${buyerId}`, { balance: 500 })).status).toBe(200);
    await loginUi(player, 'Buyer');
  });
  afterAll(async () => {
    await site?.stop();
  });

  it('an item: errors next to the quantity, one key for every try of one opening, a new one for the next', async () => {
    const created = await call(admin, 'POST', '/api/shop/admin/create', {
      name: 'Стрела',
      price: 2,
      count: 10,
      icon: '/favicon.svg',
      item_id_minecraft: 'arrow',
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const itemId = (created.json as { id: number }).id;
    const keys: string[] = [];
    let loseNextAnswer = false;
    await player.route('**/api/shop/buy', async (route) => {
      keys.push(route.request().headers()['idempotency-key'] ?? '');
      if (!loseNextAnswer) return route.continue();
      // The server buys, and the answer never reaches the page.
      loseNextAnswer = false;
      await route.fetch();
      await route.abort('connectionreset');
    });

    await player.goto('/shop');
    await player.getByRole('button', { name: 'Купить: Стрела' }).click();
    const modal = player.getByRole('dialog', { name: 'Подтверждение покупки' });
    const quantity = modal.getByRole('textbox', { name: 'Количество' });
    await quantity.fill('0');
    // The field is checked as it changes, by the form's (asynchronous) validation: poll, do not read once.
    await expect.poll(() => errorOf(player, 'Количество')).toBe('Введите корректное количество');
    expect(await quantity.getAttribute('aria-invalid')).toBe('true');
    expect(await modal.getByRole('alert').count()).toBe(0);

    // The stock drops while the modal is open: the server's refusal names the field, so it stands there.
    await quantity.fill('8');
    await expect.poll(() => errorOf(player, 'Количество')).toBeNull();
    expect((await call(admin, 'PUT', `/api/shop/admin/${itemId}`, { count: 6 })).status).toBe(200);
    await modal.getByRole('button', { name: 'Подтвердить покупку' }).click();
    await modal.getByText('Недостаточно товара: в наличии 6 шт.').waitFor();
    expect(await errorOf(player, 'Количество')).toBe('Недостаточно товара: в наличии 6 шт.');
    await player.getByRole('article', { name: 'Стрела' }).getByText('Осталось: 6 шт.').waitFor();

    // The answer to this try is lost; the page asks again with the same key and is answered, bought once.
    await quantity.fill('2');
    await expect.poll(() => errorOf(player, 'Количество')).toBeNull();
    loseNextAnswer = true;
    await modal.getByRole('button', { name: 'Подтвердить покупку' }).click();
    await toast(player, 'success', 'Покупка совершена! Предмет будет выдан в игре.');
    await modal.waitFor({ state: 'hidden' });
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[A-Za-z0-9_.:-]{8,100}$/);
    await player.getByRole('article', { name: 'Стрела' }).getByText('Осталось: 4 шт.').waitFor();
    expect(await player.getByTestId('header-balance').textContent()).toBe(RUB('496'));
    const orders = (await call(player, 'GET', '/api/shop/orders')).json as { item_name: string }[];
    expect(orders.filter((o) => o.item_name === 'Стрела')).toHaveLength(1);

    // Opened again: another purchase, another key. The balance is spent elsewhere meanwhile: the
    // live event stream tells the page at once, so the modal says so above the buttons with the way
    // to top up and confirming is off (nothing is sent); once it is back, confirming buys, with
    // this opening's own key.
    const setBalance = async (balance: number) => expect((await call(admin, 'PUT', `/api/user/${buyerId}`, { balance })).status).toBe(200);
    const confirm = modal.getByRole('button', { name: 'Подтвердить покупку' });
    await player.getByRole('button', { name: 'Купить: Стрела' }).click();
    await setBalance(1);
    await modal.getByRole('alert').getByText('Недостаточно средств на балансе').waitFor();
    await modal.getByRole('alert').getByRole('link', { name: 'Пополнить баланс' }).waitFor();
    expect(await confirm.isDisabled()).toBe(true);
    expect(await errorOf(player, 'Количество')).toBeNull();
    expect(keys).toHaveLength(3);
    await setBalance(496);
    await modal.getByRole('alert').waitFor({ state: 'detached' });
    await confirm.click();
    await modal.waitFor({ state: 'hidden' });
    expect(keys).toHaveLength(4);
    expect(keys[3]).not.toBe(keys[0]);
    expect(keys[3]).toMatch(/^[A-Za-z0-9_.:-]{8,100}$/);
    await player.unroute('**/api/shop/buy');
  });

  it("a tier: the modal shows the server's upgrade credit and total, and the purchase takes exactly that", async () => {
    const vip = await call(admin, 'POST', '/api/donate/add', { title: 'VIP', content: 'Для своих', amount: 150, currency: '₽' });
    expect(vip.status, JSON.stringify(vip.json)).toBe(201);
    const premium = await call(admin, 'POST', '/api/donate/add', { title: 'Premium', content: 'Для всех', amount: 300, currency: '₽' });
    expect(premium.status, JSON.stringify(premium.json)).toBe(201);
    // 21 days granted: 20 whole days are left by the time the player looks, worth 20/30 of 150 ₽.
    const granted = await call(admin, 'POST', '/api/admin/privileges', {
      username: 'Buyer',
      tier_id: (vip.json as { id: number }).id,
      days: 21,
    });
    expect(granted.status, JSON.stringify(granted.json)).toBe(201);

    await player.goto('/donate');
    await player.getByRole('tab', { name: /Premium/ }).click();
    await player.getByRole('button', { name: 'Купить' }).click();
    const modal = player.getByRole('dialog', { name: 'Покупка привилегии' });
    expect(await modal.getByTestId('buy-total').textContent()).toBe(RUB('200'));
    await modal.getByText('Замена VIP').waitFor();
    await modal.getByText(`зачтено ${RUB('100')} за 20 дней`).waitFor();
    await modal.getByRole('button', { name: 'Подтвердить покупку' }).click();
    await toast(player, 'success', 'Привилегия VIP заменена на Premium: неиспользованные дни зачтены в цену.');
    expect(await player.getByTestId('header-balance').textContent()).toBe(RUB('294'));

    // A lower tier while a higher runs: refused before asking, as the purchase would refuse it.
    await player.getByRole('tab', { name: /VIP/ }).click();
    await player.getByRole('button', { name: 'Купить' }).click();
    await modal
      .getByRole('alert')
      .getByText('У вас действует более высокая привилегия Premium. Купить VIP, пока она не закончилась, нельзя.')
      .waitFor();
    expect(await modal.getByRole('button', { name: 'Подтвердить покупку' }).isDisabled()).toBe(true);
    await modal.getByRole('button', { name: 'Отмена' }).click();
    await modal.waitFor({ state: 'hidden' });
  });
});
