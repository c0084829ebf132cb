import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeYooMoney } from '../../testing/payments/yoomoney-server.ts';
import { callApi, loginUi, registerAndConfirm, startSite, toast, type Site } from './harness.ts';

const RUB = (n: string) => `${n}\u00a0₽`;

describe('ЮMoney connected in the admin, then a top-up through its quickpay form (fake ЮMoney)', () => {
  let site: Site;
  let ym: FakeYooMoney;

  beforeAll(async () => {
    ym = await new FakeYooMoney().start();
    // Only the form's address comes from the environment (the page may post forms there); the
    // wallet and the secret are typed in the admin.
    site = await startSite({ YOOMONEY_FORM_URL: ym.formUrl, YOOMONEY_API_URL: ym.apiUrl });
    ym.notificationUrl = `${site.url}/api/payments/yoomoney/notify`;
    site.createAdmin('Owner', 'owner@example.com', 'owner-password');
  }, 120_000);
  afterAll(async () => {
    await site?.stop();
    await ym?.stop();
  });

  it('the owner connects ЮMoney without a restart; the player pays 200 ₽ and sees the balance', async () => {
    const owner = await site.newPage();
    await loginUi(owner, 'Owner', 'owner-password');
    await owner.goto('/admin/payments');
    await owner.getByRole('button', { name: 'Подключения' }).click();
    const card = owner.getByTestId('provider-yoomoney');
    await card.getByText('Выключен').waitFor();
    await card.getByText(`${site.url}/api/payments/yoomoney/notify`).waitFor();
    await card.getByLabel('Принимать оплату этим способом').check();
    await card.getByLabel('Номер кошелька').fill(ym.wallet);
    await card.getByLabel('Секрет для проверки уведомлений — не задан').fill(ym.secret);
    await card.getByRole('button', { name: 'Сохранить' }).click();
    await toast(owner, 'success', 'ЮMoney: настройки сохранены');
    await card.getByText('Подключён').waitFor();
    // The secret is not shown again: only that it is set.
    const secret = card.getByLabel('Секрет для проверки уведомлений — задан в админ-панели');
    expect(await secret.inputValue()).toBe('');
    expect(await owner.content()).not.toContain(ym.secret);
    await card.getByRole('button', { name: 'Проверить подключение' }).click();
    await card.getByText(/Кошелёк и секрет заданы/).waitFor();
    // «Протестировать» in the wallet's settings shows up in the summary.
    expect(await ym.deliver(ym.testNotification())).toBe(200);

    const player = await site.newPage();
    await registerAndConfirm(site, player, 'YmPayer');
    await loginUi(player, 'YmPayer');
    await player.goto('/topup');
    await player.getByRole('radio', { name: /ЮMoney/ }).check();
    await player.getByLabel('Сумма, ₽').fill('200');
    await player.getByRole('button', { name: 'Перейти к оплате' }).click();
    // ЮMoney's page (the fake's), reached by posting the quickpay form.
    await player.waitForURL((url) => url.href.startsWith(`${ym.url}/quickpay/confirm`));
    expect(await player.getByTestId('amount').textContent()).toBe('200.00');
    await player.getByRole('button', { name: 'Оплатить' }).click();
    await player.waitForURL((url) => url.pathname === '/profile' && url.searchParams.has('payment'));
    await player.getByText(`Баланс пополнен на ${RUB('200')}`).waitFor();
    await player.getByTestId('header-balance').getByText(RUB('200')).waitFor();
    // ЮMoney kept its 3 %; the player got what was asked, once.
    expect(ym.notifications.at(-1)).toMatchObject({ status: 200, fields: { withdraw_amount: '200.00', amount: '194.00' } });
    const payments = (await callApi(player, 'GET', '/api/payments')).json as { provider: string; amount: number; status: string }[];
    expect(payments).toMatchObject([{ provider: 'yoomoney', amount: 200, status: 'succeeded' }]);

    // The owner's card of the payment: ЮMoney's status in Russian; no refund through the site.
    await owner.goto('/admin/payments');
    await owner.getByRole('button', { name: /Платёж YmPayer на 200\s₽: подробнее/ }).click();
    const detail = owner.getByTestId('payment-detail');
    await detail.getByText('у провайдера: Перевод с карты получен').waitFor();
    await detail.getByText(/не возвращает деньги через сайт/).waitFor();
    // The filter offers only what is connected.
    const options = await owner.getByLabel('Способ оплаты').locator('option').allTextContents();
    expect(options).toEqual(['Все', 'ЮMoney']);
  }, 120_000);
});
