import type { UserSubscription } from '@kubik/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeYooKassa } from '../../testing/payments/yookassa-server.ts';
import { callApi, confirmDialog, loginUi, registerAndConfirm, seeErrorBeside, startSite, toast, type Site } from './harness.ts';

describe('subscriptions and buying for a nickname, on a phone (fake YooKassa)', () => {
  let site: Site;
  let yookassa: FakeYooKassa;
  let tierId: number;
  let itemId: number;

  beforeAll(async () => {
    yookassa = await new FakeYooKassa().start();
    site = await startSite(
      {
        YOOKASSA_SHOP_ID: yookassa.shopId,
        YOOKASSA_SECRET_KEY: yookassa.secretKey,
        YOOKASSA_API_URL: yookassa.apiUrl,
        YOOKASSA_NOTIFY_IPS: '127.0.0.1,::1',
      },
      { fresh: true },
    );
    yookassa.notificationUrl = `${site.url}/api/payments/yookassa/notify`;
    site.createAdmin('Owner', 'owner@example.com', 'kubik-pass-42');
    const owner = await site.newPage();
    await loginUi(owner, 'Owner');
    const tier = await callApi(owner, 'POST', '/api/donate/add', {
      title: 'VIP',
      content: 'Каждый месяц',
      amount: 199,
      currency: '₽',
      subscription: true,
    });
    expect(tier.status, JSON.stringify(tier.json)).toBe(201);
    tierId = (tier.json as { id: number }).id;
    const item = await callApi(owner, 'POST', '/api/shop/admin/create', {
      name: 'Алмаз',
      price: 25,
      count: 100,
      icon: 'https://example.com/icons/diamond.png',
    });
    expect(item.status, JSON.stringify(item.json)).toBe(201);
    itemId = (item.json as { id: number }).id;
    const settings = await callApi(owner, 'PUT', '/api/admin/settings', { guest_purchases: true, donation_goal: 1000 });
    expect(settings.status).toBe(200);
  });
  afterAll(async () => {
    await site?.stop();
    await yookassa?.stop();
  });

  it('a player subscribes on /donate, pays once on ЮKassa, sees the next charge and the card, and cancels', async () => {
    const page = await site.newPage({ width: 360, height: 740 });
    await registerAndConfirm(site, page, 'Subber');
    await loginUi(page, 'Subber');
    await page.goto('/donate');
    const box = page.getByTestId('subscribe-box');
    await box.getByText(/каждый месяц/).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await box.getByRole('button', { name: 'Подписаться' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${yookassa.url}/checkout/`));
    await page.getByRole('button', { name: 'Оплатить' }).click();
    await page.waitForURL((url) => url.pathname === '/profile');

    const mine = page.getByTestId('my-subscriptions');
    const row = mine.getByTestId('subscription');
    await row.getByText('Действует').waitFor();
    await row.getByText(/Следующее списание: .* с карты •••• 4477/).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    const subs = (await callApi(page, 'GET', '/api/user/subscriptions')).json as UserSubscription[];
    expect(subs).toMatchObject([{ tier_id: tierId, state: 'active', card: '4477' }]);

    await row.getByRole('button', { name: 'Отменить подписку' }).click();
    expect(await confirmDialog(page)).toMatch(/^Отменить подписку VIP\?/);
    await toast(page, 'success', 'Подписка отменена: больше списаний не будет, оплаченный срок остаётся');
    await row.getByText('Отменена').waitFor();
    expect(await row.getByRole('button', { name: 'Отменить подписку' }).count()).toBe(0);
    expect(((await callApi(page, 'GET', '/api/user/subscriptions')).json as UserSubscription[])[0]!.state).toBe('canceled');
  });

  it("the owner sees the subscriptions, the month's revenue and churn on Платежи", async () => {
    const owner = await site.newPage();
    await loginUi(owner, 'Owner');
    await owner.goto('/admin/payments');
    const block = owner.getByTestId('admin-subscriptions');
    await block.getByRole('heading', { name: 'Подписки: действует 0' }).waitFor();
    const byMonth = block.getByRole('table', { name: 'Подписки по месяцам' });
    await byMonth.getByText('199\u00a0₽').first().waitFor();
    const list = block.getByRole('table', { name: 'Подписки', exact: true });
    await list.getByText('Subber').waitFor();
    await list.getByText('Отменена').waitFor();
  });

  it('a guest buys an item for a nickname on /shop: refusals beside the fields, then the ЮKassa page', async () => {
    const page = await site.newPage({ width: 360, height: 740 });
    await page.goto('/shop');
    const form = page.getByTestId('guest-buy');
    await form.getByLabel('Ник игрока').fill('no spaces allowed');
    await form.getByLabel('Почта для чека').fill('parent@example.com');
    await form.getByLabel('Товар').selectOption(String(itemId));
    await form.getByRole('button', { name: 'Оплатить' }).click();
    await seeErrorBeside(form.getByLabel('Ник игрока'), /^Ник: от 3 до 16 символов/);
    await form.getByLabel('Ник игрока').fill('LittleBro');
    await form.getByLabel('Почта для чека').fill('not-mail');
    await form.getByRole('button', { name: 'Оплатить' }).click();
    await seeErrorBeside(form.getByLabel('Почта для чека'), /^Введите корректный адрес почты/);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await form.getByLabel('Почта для чека').fill('parent@example.com');
    await form.getByRole('button', { name: 'Оплатить' }).click();
    // Nobody called LittleBro has an account: warned beside the nickname, not refused.
    await form.getByText('Игрок с таким ником ещё не заходил на сервер — проверьте написание').waitFor();
    await form.getByRole('link', { name: 'Ник верный — оплатить' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${yookassa.url}/checkout/`));
    await page.getByRole('button', { name: 'Оплатить' }).click();
    await page.waitForURL((url) => url.pathname === '/shop' && url.searchParams.has('guest_order'));
    const id = new URL(page.url()).searchParams.get('guest_order')!;
    const order = await callApi(page, 'GET', `/api/shop/guest-orders/${id}`);
    expect(order.json).toMatchObject({ nickname: 'LittleBro', item: 'Алмаз', status: 'paid' });
    await page
      .getByTestId('guest-order-return')
      .getByText(/^Оплачено: Алмаз × 1 для LittleBro\./)
      .waitFor();
    // The month's goal on the home page (its answer is cached for a minute, so the sum may lag).
    await page.goto('/');
    await page.getByTestId('community-goal').getByRole('progressbar', { name: 'Цель сборов на месяц' }).waitFor();
    await page
      .getByTestId('community-goal')
      .getByText(/Собрано .* из 1\s000\s₽ в этом месяце/)
      .waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  });

  it('a guest buys a tier for a nickname on /donate with the keyboard: refusals beside the fields, the unknown nickname warned, one order per double click, then the ЮKassa page', async () => {
    const page = await site.newPage({ width: 360, height: 740 });
    await page.goto('/donate');
    const open = page.getByRole('button', { name: 'Купить для игрока' });
    await open.focus();
    await page.keyboard.press('Enter');
    const form = page.getByTestId('guest-tier-buy');
    await form.waitFor();
    expect(await open.getAttribute('aria-expanded')).toBe('true');
    const nickname = form.getByLabel('Ник игрока');
    const email = form.getByLabel('Почта для чека');
    // The price on the button is the first period's, as the server will take it.
    const pay = form.getByRole('button', { name: 'Оплатить 199\u00a0₽' });
    await nickname.fill('no spaces allowed');
    await email.fill('parent@example.com');
    await pay.click();
    await seeErrorBeside(nickname, /^Ник: от 3 до 16 символов/);
    await nickname.fill('TierGuest');
    await email.fill('not-mail');
    await email.press('Enter');
    await seeErrorBeside(email, /^Введите корректный адрес почты/);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await email.fill('parent@example.com');
    const before = yookassa.requests.filter((r) => r.path === '/v3/payments').length;
    await pay.dblclick();
    // Nobody called TierGuest has played: the form says so beside the nickname and waits.
    await form.getByText('Игрок с таким ником ещё не заходил на сервер — проверьте написание').waitFor();
    expect(await nickname.getAttribute('aria-describedby')).toContain('gt-nickname-note');
    expect(yookassa.requests.filter((r) => r.path === '/v3/payments').length - before).toBe(1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await form.getByRole('link', { name: 'Ник верный — оплатить' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${yookassa.url}/checkout/`));
    await page.getByRole('button', { name: 'Оплатить' }).click();
    await page.waitForURL((url) => url.pathname === '/donate' && url.searchParams.has('guest_order'));
    const id = new URL(page.url()).searchParams.get('guest_order')!;
    const order = await callApi(page, 'GET', `/api/shop/guest-orders/${id}`);
    expect(order.json).toMatchObject({ kind: 'tier', nickname: 'TierGuest', item: 'VIP', quantity: 1, amount: 199, status: 'paid' });
    // The page back from the provider says what became of it.
    await page
      .getByTestId('guest-order-return')
      .getByText('Оплачено: привилегия VIP на 1 мес. для TierGuest. Привилегия будет выдана в игре, когда игрок зайдёт на сервер.')
      .waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  });
});
