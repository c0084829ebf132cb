import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeYooKassa } from '../../testing/payments/yookassa-server.ts';
import { callApi, loginUi, registerAndConfirm, see, startSite, toast, type Site } from './harness.ts';

describe('the owner sees payments, exports them and refunds one', () => {
  let site: Site;
  let yoo: FakeYooKassa;
  beforeAll(async () => {
    yoo = await new FakeYooKassa().start();
    site = await startSite({
      YOOKASSA_SHOP_ID: yoo.shopId,
      YOOKASSA_SECRET_KEY: yoo.secretKey,
      YOOKASSA_API_URL: yoo.apiUrl,
      YOOKASSA_NOTIFY_IPS: '127.0.0.1,::1',
    });
    yoo.notificationUrl = `${site.url}/api/payments/yookassa/notify`;
    site.createAdmin('Owner', 'owner@example.com', 'owner-password');
  }, 120_000);
  afterAll(async () => {
    await site?.stop();
    await yoo?.stop();
  });

  /** A top-up by the logged-in player, paid at the fake YooKassa, which notifies the site. */
  async function topUp(player: Page, amount: number): Promise<string> {
    const created = await callApi(player, 'POST', '/api/payments', { amount, provider: 'yookassa' });
    expect(created.status).toBe(201);
    const id = (created.json as { id: string }).id;
    const p = [...yoo.payments.values()].find((x) => x.metadata.payment_id === id)!;
    yoo.pay(p.id);
    expect(await yoo.notify(yoo.notificationFor(p.id))).toBe(200);
    return id;
  }

  it('on a phone: bonus rules, filters and totals, the CSV, a payment’s events, a refused refund and a refund', async () => {
    const player = await site.newPage();
    await registerAndConfirm(site, player, 'Payer');
    await loginUi(player, 'Payer');

    const owner = await site.newPage({ width: 360, height: 740 });
    await loginUi(owner, 'Owner', 'owner-password');
    await owner.goto('/admin/payments');
    await owner.getByRole('heading', { name: 'Платежи', level: 2 }).waitFor();
    await see(owner, 'Платежей пока нет');

    // Bonus rules: refused in the browser with the contract's words, then saved.
    await owner.getByRole('button', { name: 'Бонусы и чек' }).click();
    const settings = owner.getByRole('dialog');
    await settings.getByRole('button', { name: 'Добавить правило' }).click();
    await settings.getByLabel('Правило 1: от суммы, ₽').fill('1000');
    await settings.getByLabel('Бонус, %').fill('0');
    await settings.getByRole('button', { name: 'Сохранить' }).click();
    await settings.getByText('Процент должен быть больше нуля').first().waitFor();
    await settings.getByLabel('Бонус, %').fill('10');
    await settings.getByRole('button', { name: 'Сохранить' }).click();
    await toast(owner, 'success', 'Настройки платежей сохранены');

    await topUp(player, 150.5);
    const big = await topUp(player, 1000);
    // The refused refund of the small one comes first; the player keeps 150,50 + 1 000 + 100 bonus.
    await owner.reload();
    const rows = owner.locator('[data-testid^="payment-row-"]');
    await expect.poll(() => rows.count()).toBe(2);
    const totals = owner.getByLabel('Итоги по отобранным платежам');
    // Оплачено 1 150,50 ₽ (2 платежа), Итого the same, Бонусы 100 ₽.
    await totals.getByText('2 платежа').waitFor();
    await totals.getByText('1 150,50 ₽', { exact: true }).waitFor();
    await totals.getByText('100 ₽', { exact: true }).waitFor();

    // Filters: a name that paid nothing.
    await owner.getByLabel('Игрок').fill('Nobody');
    await see(owner, 'Таких платежей нет');
    await owner.getByRole('button', { name: 'Сбросить' }).click();
    await expect.poll(() => rows.count()).toBe(2);
    // A name the API refuses (Cyrillic) is said under the field and not sent: the list and totals stay.
    const sent: string[] = [];
    const onRequest = (r: { url(): string }) => void (r.url().includes('/api/admin/payments?') && sent.push(r.url()));
    owner.on('request', onRequest);
    await owner.getByLabel('Игрок').fill('Игрок');
    await owner.getByText('Имя игрока — латинские буквы, цифры и «_»').waitFor();
    expect(await owner.getByLabel('Игрок').getAttribute('aria-invalid')).toBe('true');
    await new Promise((r) => setTimeout(r, 700));
    owner.off('request', onRequest);
    expect(sent).toEqual([]);
    expect(await rows.count()).toBe(2);
    await owner.getByRole('button', { name: 'Сбросить' }).click();
    expect(await owner.getByText('Имя игрока — латинские буквы, цифры и «_»').count()).toBe(0);

    // The CSV Excel opens: BOM, Russian headers, roubles with kopecks.
    const [download] = await Promise.all([owner.waitForEvent('download'), owner.getByRole('link', { name: 'Скачать CSV' }).click()]);
    const file = readFileSync((await download.path())!);
    expect([...file.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const csv = file.subarray(3).toString('utf8');
    expect(csv.split('\r\n')[0]).toContain('Создан;Оплачен;Возвращён;Игрок;Способ оплаты;Сумма, ₽;Бонус, ₽;Статус');
    expect(csv).toContain(';Payer;ЮKassa;150,50;0,00;Оплачен;');
    expect(csv).toContain(';Payer;ЮKassa;1000,00;100,00;Оплачен;');

    // One payment: its events; the provider refuses the refund, the error is shown and the money stays.
    await owner
      .getByTestId(`payment-row-${big}`)
      .getByRole('button', { name: /подробнее/ })
      .click();
    const detail = owner.getByTestId('payment-detail');
    await detail.getByText('Уведомление').first().waitFor();
    await detail.getByText('с адреса 127.0.0.1').first().waitFor();
    await detail.getByText('у провайдера: Оплачен').waitFor();
    yoo.refundOutcome = 'canceled';
    await detail.getByRole('button', { name: 'Вернуть…' }).click();
    let ask = owner.getByRole('dialog', { name: 'Возврат платежа' });
    // What goes back to the card and what leaves the balance, apart.
    expect(await ask.getByTestId('refund-to-card').textContent()).toBe('1\u00a0000\u00a0₽');
    expect(await ask.getByTestId('refund-from-balance').textContent()).toBe('1\u00a0100\u00a0₽ (в том числе бонус 100\u00a0₽)');
    await ask.getByRole('button', { name: 'Вернуть' }).click();
    await ask.getByText(/Платёжная система отказала в возврате .*Деньги снова на балансе игрока\./).waitFor();
    await ask.getByRole('button', { name: 'Отмена' }).click();
    await detail.locator('.badge', { hasText: 'Оплачен' }).waitFor();

    // Now it goes through, in two parts: 400 ₽ (and 40 ₽ of the bonus), then the rest.
    yoo.refundOutcome = 'succeeded';
    await detail.getByRole('button', { name: 'Вернуть…' }).click();
    ask = owner.getByRole('dialog', { name: 'Возврат платежа' });
    await ask.getByLabel('Вернуть на карту, ₽').fill('400');
    await ask.getByTestId('refund-from-balance').getByText('440\u00a0₽').waitFor();
    expect(await ask.getByTestId('refund-from-balance').textContent()).toBe('440\u00a0₽ (в том числе бонус 40\u00a0₽)');
    await ask.getByRole('button', { name: 'Вернуть' }).click();
    await toast(owner, 'success', 'Платёж возвращён');
    await detail.getByText('возвращено 400\u00a0₽').waitFor();
    await detail.getByRole('button', { name: 'Вернуть…' }).click();
    ask = owner.getByRole('dialog', { name: 'Возврат платежа' });
    expect(await ask.getByTestId('refund-to-card').textContent()).toBe('600\u00a0₽');
    await ask.getByRole('button', { name: 'Вернуть' }).click();
    await detail.locator('.badge', { hasText: 'Возвращён' }).waitFor();
    expect(await detail.getByRole('button', { name: /Вернуть/ }).count()).toBe(0);
    const me = await callApi(player, 'GET', '/api/user/me');
    expect((me.json as { balance: number }).balance).toBe(150.5);

    // Nothing scrolls sideways on the phone.
    expect(await owner.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await owner.keyboard.press('Escape');
    // A link may carry the filters: only the refunded one.
    await owner.goto('/admin/payments?status=refunded&player=Payer');
    await owner.getByTestId(`payment-row-${big}`).waitFor();
    expect(await rows.count()).toBe(1);
    expect(await owner.getByLabel('Статус').inputValue()).toBe('refunded');
    await owner.goto('/admin/audit');
    await see(owner, 'Возврат платежа не удался: деньги вернулись на баланс');
    await see(owner, 'Возврат платежа: сумма списана с баланса');
  }, 120_000);
});
