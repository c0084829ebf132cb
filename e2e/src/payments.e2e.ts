import type { PlayerPayment } from '@kubik/contract';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTBank } from '../../testing/payments/tbank-server.ts';
import { FakeYooKassa } from '../../testing/payments/yookassa-server.ts';
import { callApi, loginUi, registerAndConfirm, startSite, type Site } from './harness.ts';

const RUB = (n: string) => `${n}\u00a0₽`;

/** A player's own payments, as the API answers them. */
async function paymentsOf(page: Page): Promise<PlayerPayment[]> {
  const res = await callApi(page, 'GET', '/api/payments');
  expect(res.status).toBe(200);
  return res.json as PlayerPayment[];
}

describe('balance top-up in the browser (fake YooKassa)', () => {
  let site: Site;
  let yookassa: FakeYooKassa;

  beforeAll(async () => {
    yookassa = await new FakeYooKassa().start();
    site = await startSite({
      YOOKASSA_SHOP_ID: yookassa.shopId,
      YOOKASSA_SECRET_KEY: yookassa.secretKey,
      YOOKASSA_API_URL: yookassa.apiUrl,
      // The fake notifies from this machine; the site trusts only the listed senders.
      YOOKASSA_NOTIFY_IPS: '127.0.0.1,::1',
    });
    // ЮKassa's account setting «HTTP-уведомления»: where it posts payment.succeeded / payment.canceled.
    yookassa.notificationUrl = `${site.url}/api/payments/yookassa/notify`;
  });
  afterAll(async () => {
    await site?.stop();
    await yookassa?.stop();
  });

  it('the player tops up 150,50 ₽ from the header, pays on the ЮKassa page and sees the balance', async () => {
    const page = await site.newPage();
    await registerAndConfirm(site, page, 'Payer');
    await loginUi(page, 'Payer');
    expect(await page.getByTestId('header-balance').textContent()).toBe(RUB('0'));

    // The header's balance is the way in.
    await page.getByRole('link', { name: /^Баланс 0\s₽ — пополнить$/ }).click();
    await page.waitForURL('**/topup');
    await page.getByRole('heading', { name: 'Пополнить баланс' }).waitFor();
    const amount = page.getByLabel('Сумма, ₽');
    await page.getByText(`От ${RUB('10')} до ${RUB('100\u00a0000')}`).waitFor();
    // Only the configured provider is offered, and it is chosen.
    expect(await page.getByRole('radio', { name: /ЮKassa/ }).isChecked()).toBe(true);
    expect(await page.getByRole('radio', { name: /Т-Банк/ }).count()).toBe(0);

    // Refused next to the field, in the server's words, before anything is sent.
    await amount.fill('5');
    await page.getByRole('button', { name: 'Перейти к оплате' }).click();
    await page
      .getByText(`Минимальная сумма пополнения — ${RUB('10')}`)
      .first()
      .waitFor();
    await amount.fill('150,505');
    await page.getByText('Введите сумму в рублях, не больше двух знаков после запятой').first().waitFor();
    await amount.fill('200000');
    await page
      .getByText(`Максимальная сумма пополнения — ${RUB('100\u00a0000')}`)
      .first()
      .waitFor();
    expect(yookassa.payments.size).toBe(0);
    // A preset fills the field; the player then types the exact sum with a comma.
    await page.getByRole('button', { name: RUB('300'), exact: true }).click();
    expect(await amount.inputValue()).toBe('300');
    await amount.fill('150,50');
    await page.getByRole('button', { name: 'Перейти к оплате' }).click();

    // ЮKassa's confirmation page (the fake's, on its own address), then back to the site.
    await page.waitForURL((url) => url.href.startsWith(`${yookassa.url}/checkout/`));
    expect(await page.getByTestId('amount').textContent()).toBe(RUB('150,50'));
    await page.getByRole('button', { name: 'Оплатить' }).click();
    await page.waitForURL((url) => url.pathname === '/profile' && url.searchParams.has('payment'));
    const paymentId = new URL(page.url()).searchParams.get('payment')!;
    await page.getByText(`Баланс пополнен на ${RUB('150,50')}`).waitFor();
    await page.getByTestId('header-balance').getByText(RUB('150,50')).waitFor();
    expect(await page.getByTestId('profile-balance').textContent()).toBe(RUB('150,50'));

    // The site took ЮKassa's notification (and believed only its own GET of the payment).
    expect(yookassa.notifications.map((n) => n.status)).toEqual([200]);
    const [payment] = await paymentsOf(page);
    expect(payment).toMatchObject({ id: paymentId, provider: 'yookassa', amount: 150.5, status: 'succeeded' });

    // The history in the profile, in Russian.
    const row = page.getByTestId(`payment-${paymentId}`);
    await row.getByText('ЮKassa').waitFor();
    await row.getByText(RUB('150,50')).waitFor();
    await row.getByText('Оплачен').waitFor();

    // A reload of the return address does not credit again.
    await page.reload();
    await page.getByText(`Баланс пополнен на ${RUB('150,50')}`).waitFor();
    expect(await page.getByTestId('header-balance').textContent()).toBe(RUB('150,50'));
  });

  it('on a phone: from the purchase-free profile to a canceled payment, which credits nothing', async () => {
    const page = await site.newPage({ width: 360, height: 740 });
    await registerAndConfirm(site, page, 'Quitter');
    await loginUi(page, 'Quitter');
    await page.goto('/profile');
    await page.getByText('Пополнений пока не было').waitFor();
    await page.getByRole('link', { name: 'Пополнить баланс' }).click();
    await page.waitForURL('**/topup');
    await page.getByLabel('Сумма, ₽').waitFor();
    // Nothing wider than the phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

    // By keyboard: the field, a preset, the provider, the button.
    await page.getByLabel('Сумма, ₽').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    expect(await page.getByLabel('Сумма, ₽').inputValue()).toBe('300');
    await page.getByRole('button', { name: 'Перейти к оплате' }).focus();
    await page.keyboard.press('Enter');

    await page.waitForURL((url) => url.href.startsWith(`${yookassa.url}/checkout/`));
    expect(await page.getByTestId('amount').textContent()).toBe(RUB('300,00'));
    await page.getByRole('button', { name: 'Отменить' }).click();
    await page.waitForURL((url) => url.pathname === '/profile' && url.searchParams.has('payment'));
    await page.getByText('Платёж отменён, деньги не списаны').waitFor();
    const [payment] = await paymentsOf(page);
    expect(payment).toMatchObject({ amount: 300, status: 'canceled' });
    expect(await page.getByTestId('profile-balance').textContent()).toBe(RUB('0'));
    await page.getByTestId(`payment-${payment!.id}`).getByText('Отменён').waitFor();
  });
  it('a lost notification and a stumbling ЮKassa: «Платёж обрабатывается…» until the provider answers, then the credit', async () => {
    const page = await site.newPage();
    await registerAndConfirm(site, page, 'Patient');
    await loginUi(page, 'Patient');
    await page.goto('/topup');
    await page.getByLabel('Сумма, ₽').fill('99.90');
    await page.getByRole('button', { name: 'Перейти к оплате' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${yookassa.url}/checkout/`));
    expect(await page.getByTestId('amount').textContent()).toBe(RUB('99,90'));

    // The notification never arrives and ЮKassa's API answers 500 for now: the site cannot know yet.
    const notificationUrl = yookassa.notificationUrl;
    yookassa.notificationUrl = null;
    yookassa.failNext = { status: 500, count: 1_000 };
    try {
      await page.getByRole('button', { name: 'Оплатить' }).click();
      await page.waitForURL((url) => url.pathname === '/profile' && url.searchParams.has('payment'));
      await page.getByText('Платёж обрабатывается…').waitFor();
      // It keeps asking (the server re-reads the payment from ЮKassa on each ask) and credits nothing meanwhile.
      // The page asks every 2 s; a busy machine may stretch that, so wait for two more re-reads.
      const asked = yookassa.requests.length;
      await expect.poll(() => yookassa.requests.length, { timeout: 20_000 }).toBeGreaterThan(asked + 1);
      expect(await page.getByTestId('header-balance').textContent()).toBe(RUB('0'));
      await page.getByText('Платёж обрабатывается…').waitFor();
      yookassa.failNext = null;
      await page.getByText(`Баланс пополнен на ${RUB('99,90')}`).waitFor();
      await page.getByTestId('header-balance').getByText(RUB('99,90')).waitFor();
    } finally {
      yookassa.failNext = null;
      yookassa.notificationUrl = notificationUrl;
    }
  });
  it("the owner's bonus rule: hinted on the presets and beside the amount, credited with the payment", async () => {
    site.createAdmin('Owner', 'owner@example.com', 'kubik-pass-42');
    const admin = await site.newPage();
    await loginUi(admin, 'Owner');
    const saved = await callApi(admin, 'PUT', '/api/admin/payment-settings', { vat_code: 1, bonus_rules: [{ from: 1000, percent: 10 }] });
    expect(saved.status, JSON.stringify(saved.json)).toBe(200);

    const page = await site.newPage();
    await registerAndConfirm(site, page, 'Lucky');
    await loginUi(page, 'Lucky');
    await page.goto('/topup');
    await page.getByText(`Бонусы к пополнению: от ${RUB('1\u00a0000')} — +10 %.`).waitFor();
    await page.getByLabel('Сумма, ₽').fill('999,99');
    expect(await page.getByTestId('topup-bonus').count()).toBe(0);
    await page.getByRole('button', { name: `${RUB('1\u00a0000')} +${RUB('100')} бонусом` }).click();
    expect(await page.getByTestId('topup-bonus').textContent()).toBe(`Бонус +${RUB('100')}: на баланс придёт ${RUB('1\u00a0100')}`);
    await page.getByRole('button', { name: 'Перейти к оплате' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${yookassa.url}/checkout/`));
    await page.getByRole('button', { name: 'Оплатить' }).click();
    await page.waitForURL((url) => url.pathname === '/profile' && url.searchParams.has('payment'));
    await page.getByText(`Баланс пополнен на ${RUB('1\u00a0000')}`).waitFor();
    await page.getByText(`И бонус +${RUB('100')}.`).waitFor();
    await page.getByTestId('header-balance').getByText(RUB('1\u00a0100')).waitFor();
    const [payment] = await paymentsOf(page);
    expect(payment).toMatchObject({ amount: 1000, bonus: 100, status: 'succeeded' });
  });
});

describe('balance top-up through T-Bank, and on a site with no provider', () => {
  let site: Site;
  let bare: Site;
  let tbank: FakeTBank;

  beforeAll(async () => {
    tbank = await new FakeTBank().start();
    site = await startSite({ TBANK_TERMINAL_KEY: tbank.terminalKey, TBANK_PASSWORD: tbank.password, TBANK_API_URL: tbank.apiUrl });
    bare = await startSite();
  });
  afterAll(async () => {
    await site?.stop();
    await bare?.stop();
    await tbank?.stop();
  });

  it('T-Bank alone is the choice; 150.50 paid on its page credits 150,50 ₽', async () => {
    const page = await site.newPage();
    await registerAndConfirm(site, page, 'Tinkoff_fan');
    await loginUi(page, 'Tinkoff_fan');
    await page.goto('/topup');
    expect(await page.getByRole('radio', { name: /Т-Банк/ }).isChecked()).toBe(true);
    expect(await page.getByRole('radio', { name: /ЮKassa/ }).count()).toBe(0);
    await page.getByLabel('Сумма, ₽').fill('150.50');
    await page.getByRole('button', { name: 'Перейти к оплате' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${tbank.url}/new/`));
    await page.getByRole('button', { name: 'Оплатить' }).click();
    await page.waitForURL((url) => url.pathname === '/profile' && url.searchParams.has('payment'));
    await page.getByText(`Баланс пополнен на ${RUB('150,50')}`).waitFor();
    await page.getByTestId('header-balance').getByText(RUB('150,50')).waitFor();
    // T-Bank's notifications (AUTHORIZED, CONFIRMED) were answered exactly «OK».
    expect(tbank.notifications.map((n) => n.text)).toEqual(['OK', 'OK']);
    const [payment] = await paymentsOf(page);
    expect(payment).toMatchObject({ provider: 'tbank', amount: 150.5, status: 'succeeded' });
    await page.getByTestId(`payment-${payment!.id}`).getByText('Т-Банк').waitFor();
  });

  it('with no provider configured the page says so, and offers nothing to fill', async () => {
    const page = await bare.newPage({ width: 360, height: 740 });
    await registerAndConfirm(bare, page, 'Early_bird');
    await loginUi(page, 'Early_bird');
    await page.goto('/topup');
    await page.getByText('Пополнение баланса пока недоступно').waitFor();
    expect(await page.getByLabel('Сумма, ₽').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Перейти к оплате' }).count()).toBe(0);
  });
});
