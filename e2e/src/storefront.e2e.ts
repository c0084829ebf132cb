import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi as call, loginUi, registerAndConfirm, see, startSite, toast, type Site } from './harness.ts';

const RUB = (n: string) => `${n}\u00a0₽`;

// Issue 23: a guest on a 360 px phone finds the shop from the home page, fills a cart, enters a
// promo code and pays after logging in.
describe('storefront in the browser', () => {
  let site: Site;

  beforeAll(async () => {
    site = await startSite();
    site.createAdmin('Owner', 'owner@example.com', 'kubik-pass-42');
  });
  afterAll(async () => {
    await site?.stop();
  });

  it('guest on a phone: header → /shop → cart → login → promo code → paid from the balance', async () => {
    const setup = await site.newPage();
    await registerAndConfirm(site, setup, 'Buyer');
    await loginUi(setup, 'Owner');
    const users = (await call(setup, 'GET', '/api/user/all')).json as
      { id: number; username: string }[] | { users: { id: number; username: string }[] };
    const buyer = (Array.isArray(users) ? users : users.users).find((u) => u.username === 'Buyer')!;
    expect((await call(setup, 'PUT', `/api/user/${buyer.id}`, { balance: 500 })).status).toBe(200);
    const bread = await call(setup, 'POST', '/api/shop/admin/create', {
      name: 'Хлеб',
      price: 99,
      count: null,
      pieces: 16,
      icon: '/favicon.svg',
      category: 'Еда',
    });
    expect(bread.status, JSON.stringify(bread.json)).toBe(201);
    const sword = await call(setup, 'POST', '/api/shop/admin/create', {
      name: 'Железный меч',
      price: 150,
      count: 5,
      icon: '/favicon.svg',
      category: 'Оружие',
      sale_price: 100,
      sale_ends_at: Date.now() + 86_400_000 * 3,
    });
    expect(sword.status, JSON.stringify(sword.json)).toBe(201);
    const promo = await call(setup, 'POST', '/api/admin/promo-codes', { code: 'START10', kind: 'percent', value: 10, applies_to: 'shop' });
    expect(promo.status, JSON.stringify(promo.json)).toBe(201);

    const phone = await site.newPage({ width: 360, height: 740 });
    await phone.goto('/');
    await phone.getByRole('button', { name: 'Меню' }).click();
    await phone.getByRole('navigation', { name: 'Основная навигация' }).getByRole('link', { name: 'Магазин' }).click();
    await phone.waitForURL('**/shop');
    const breadCard = phone.getByRole('article', { name: 'Хлеб' });
    await breadCard.getByText(`16 шт. за ${RUB('99')}`).waitFor();
    const swordCard = phone.getByRole('article', { name: 'Железный меч' });
    await swordCard.getByText(RUB('150')).waitFor();
    await swordCard.getByText(/Акция до .* осталось/).waitFor();
    // The page fits the phone: nothing sticks out sideways.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

    // Category tabs and search.
    await phone.getByRole('tab', { name: 'Оружие' }).click();
    await breadCard.waitFor({ state: 'detached' });
    await phone.getByRole('tab', { name: 'Все' }).click();
    await phone.getByLabel('Поиск').fill('хлеб');
    await swordCard.waitFor({ state: 'detached' });
    await breadCard.getByRole('button', { name: 'Подробнее: Хлеб' }).click();
    const details = phone.getByRole('dialog', { name: 'Хлеб' });
    await details.getByText('Хлеб × 16 шт.').waitFor();
    await details.getByText('Без ограничений').waitFor();
    await details.getByRole('button', { name: 'В корзину' }).click();
    await phone.keyboard.press('Escape');
    await phone.getByLabel('Поиск').fill('');
    await swordCard.getByRole('button', { name: 'В корзину: Железный меч' }).click();
    await swordCard.getByRole('button', { name: 'В корзину: Железный меч' }).click();
    expect(await phone.getByTestId('header-cart').textContent()).toContain('3');

    // The cart survives a reload; a guest is sent to log in and comes back to it.
    await phone.reload();
    await phone.getByTestId('header-cart').click();
    await phone.waitForURL('**/cart');
    await phone.getByTestId('cart-line-' + (sword.json as { id: number }).id).waitFor();
    await phone.getByRole('button', { name: 'Войти и оплатить' }).click();
    await phone.waitForURL('**/login');
    await phone.getByLabel('Имя или почта').fill('Buyer');
    await phone.getByLabel('Пароль').fill('kubik-pass-42');
    await phone.getByRole('button', { name: 'Войти' }).click();
    await phone.waitForURL('**/cart');

    // 99 + 2 × 100 (on sale) = 299; the code takes 10 % off: 29,90.
    expect(await phone.getByTestId('cart-total').textContent()).toBe(RUB('299'));
    await phone.getByLabel('Промокод').fill('start10');
    await phone.getByRole('button', { name: 'Применить' }).click();
    await phone.getByTestId('promo-ok').getByText('Скидка 10 % на товары магазина').waitFor();
    await see(phone, RUB('269,10'));
    expect(await phone.getByTestId('cart-discount').textContent()).toBe(`−${RUB('29,90')}`);
    await phone.getByRole('button', { name: 'Подтвердить покупку' }).click();
    await toast(phone, 'success', 'Покупка совершена! Предметы будут выданы в игре.');
    await phone.waitForURL('**/shop');
    expect(await phone.getByTestId('header-cart').count()).toBe(0);
    await phone.getByRole('heading', { name: 'Мои покупки' }).waitFor();
    const orders = (await call(phone, 'GET', '/api/shop/orders')).json as { item_name: string; total: number }[];
    expect(orders.map((o) => o.item_name).sort()).toEqual(['Железный меч', 'Хлеб']);
    expect(orders.reduce((s, o) => s + o.total, 0)).toBeCloseTo(269.1, 2);
    const me = (await call(phone, 'GET', '/api/user/me')).json as { balance: number };
    expect(me.balance).toBeCloseTo(230.9, 2);
  });
});
