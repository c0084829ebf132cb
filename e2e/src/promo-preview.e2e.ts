import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, loginUi, registerAndConfirm, seeErrorBeside, startSite, toast, until, type Site } from './harness.ts';

const RUB = (n: string) => `${n}\u00a0₽`;
const PHONE = { width: 360, height: 740 };

describe('a promo code shows its price before «Подтвердить», and that price is taken', () => {
  let site: Site;
  let shield = 0;
  beforeAll(async () => {
    site = await startSite();
    const owner = await site.newPage();
    await loginUi(owner, 'Founder', 'founder-password-42');
    const ok = async (method: string, url: string, body: unknown) => {
      const res = await callApi(owner, method, url, body);
      expect(res.status, `${method} ${url}: ${JSON.stringify(res.json)}`).toBeLessThan(300);
      return res.json as { id: number };
    };
    await ok('POST', '/api/donate/add', { title: 'VIP', content: 'Для тех, кто играет каждый день', amount: 199, currency: '₽' });
    shield = (await ok('POST', '/api/shop/admin/create', { name: 'Щит', price: 120, count: null, icon: '/favicon.svg' })).id;
    await ok('POST', '/api/admin/promo-codes', { code: 'VIP20', kind: 'percent', value: 20, applies_to: 'donate' });
    await ok('POST', '/api/admin/promo-codes', { code: 'SHOP10', kind: 'percent', value: 10, applies_to: 'shop' });

    const setup = await site.newPage();
    await registerAndConfirm(site, setup, 'Saver');
    const users = (await callApi(owner, 'GET', '/api/user/all')).json as
      { id: number; username: string }[] | { users: { id: number; username: string }[] };
    const saver = (Array.isArray(users) ? users : users.users).find((u) => u.username === 'Saver')!;
    await ok('PUT', `/api/user/${saver.id}`, { balance: 1000 });
  });
  afterAll(async () => {
    await site?.stop();
  });

  it('a tier on a phone: «Применить» shows the discounted total, the button says it, and it is what is debited', async () => {
    const page = await site.newPage(PHONE);
    await loginUi(page, 'Saver');
    await page.goto('/donate');
    await page.getByRole('button', { name: 'Купить' }).click();
    const modal = page.getByRole('dialog', { name: 'Покупка привилегии' });
    expect(await modal.getByTestId('buy-total').textContent()).toBe(RUB('199'));
    const confirm = modal.getByRole('button', { name: /Подтвердить покупку/ });
    expect(await confirm.textContent()).toBe(`Подтвердить покупку за ${RUB('199')}`);

    // Typed, not applied: nothing is taken on a guess — the button waits for «Применить».
    const code = modal.getByLabel('Промокод');
    await code.fill('vip20');
    await modal.getByText('Нажмите «Применить», чтобы учесть промокод в цене.').waitFor();
    expect(await confirm.isDisabled()).toBe(true);
    await modal.getByRole('button', { name: 'Применить' }).click();
    await modal
      .getByTestId('promo-ok')
      .getByText(`Скидка 20 % на привилегии: −${RUB('39,80')}`)
      .waitFor();
    await until(
      () => modal.getByTestId('buy-total').textContent(),
      (t) => t === RUB('159,20'),
      'the total with the code',
    );
    expect(await modal.getByTestId('buy-discount').textContent()).toBe(`−${RUB('39,80')}`);
    expect(await confirm.textContent()).toBe(`Подтвердить покупку за ${RUB('159,20')}`);
    expect(await confirm.isDisabled()).toBe(false);

    await confirm.click();
    await toast(page, 'success', 'Привилегия VIP куплена! Команды будут выполнены в игре.');
    expect(await page.getByTestId('header-balance').textContent()).toBe(RUB('840,80'));
    const me = (await callApi(page, 'GET', '/api/user/me')).json as { balance: number };
    expect(me.balance).toBeCloseTo(840.8, 2);
  });

  it('the cart on a phone: a tier-only code is refused at once beside the field; a shop code shows its total', async () => {
    const page = await site.newPage(PHONE);
    await loginUi(page, 'Saver');
    await page.goto('/shop');
    const card = page.getByRole('article', { name: 'Щит' });
    await card.getByRole('button', { name: 'В корзину: Щит' }).click();
    await card.getByRole('button', { name: 'В корзину: Щит' }).click();
    await page.getByTestId('header-cart').click();
    await page.waitForURL('**/cart');
    await page.getByTestId(`cart-line-${shield}`).waitFor();
    expect(await page.getByTestId('cart-total').textContent()).toBe(RUB('240'));

    const code = page.getByLabel('Промокод');
    await code.fill('VIP20');
    await page.getByRole('button', { name: 'Применить' }).click();
    await seeErrorBeside(code, 'Этот промокод не действует в магазине');
    expect(await page.getByTestId('promo-ok').count()).toBe(0);
    expect(await page.getByTestId('cart-total').textContent()).toBe(RUB('240'));
    expect(await page.getByRole('button', { name: /Подтвердить покупку/ }).isDisabled()).toBe(true);

    await code.fill('SHOP10');
    await page.getByRole('button', { name: 'Применить' }).click();
    await page
      .getByTestId('promo-ok')
      .getByText(`Скидка 10 % на товары магазина: −${RUB('24')}`)
      .waitFor();
    await until(
      () => page.getByTestId('cart-total').textContent(),
      (t) => t === RUB('216'),
      'the cart total with the code',
    );
    const confirm = page.getByRole('button', { name: /Подтвердить покупку/ });
    expect(await confirm.textContent()).toBe(`Подтвердить покупку за ${RUB('216')}`);
    await confirm.click();
    await toast(page, 'success', 'Покупка совершена! Предметы будут выданы в игре.');
    expect(await page.getByTestId('header-balance').textContent()).toBe(RUB('624,80'));
  });
});
