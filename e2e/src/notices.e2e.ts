import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, loginUi, registerAndConfirm, startSite, toast, until, type Site } from './harness.ts';

describe('the bell', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite();
    site.createAdmin('Owner', 'owner@example.com', 'owner-password');
  }, 120_000);
  afterAll(async () => {
    await site?.stop();
  });

  it('on a phone: an admin’s «+» arrives live (balance and count), the panel works from the keyboard and marks all read', async () => {
    const player = await site.newPage({ width: 360, height: 740 });
    await registerAndConfirm(site, player, 'Belle');
    await loginUi(player, 'Belle');
    const bell = player.getByTestId('bell');
    await bell.waitFor();
    expect(await bell.getAttribute('aria-label')).toBe('Уведомления');
    const me = (await callApi(player, 'GET', '/api/user/me')).json as { id: number };

    const owner = await site.newPage();
    await loginUi(owner, 'Owner', 'owner-password');
    // The stream is open once the page has the bell; the change comes from another browser.
    await player.locator('[data-testid="bell"][data-live="on"]').waitFor();
    const change = await callApi(owner, 'POST', `/api/admin/users/${me.id}/balance`, { amount: 150.5, comment: 'Компенсация за вайп' });
    expect(change.status).toBe(200);

    // No reload: the header's balance and the bell's count change by themselves.
    await until(
      () => player.getByTestId('header-balance').textContent(),
      (t) => t === '150,50\u00a0₽',
      'the header balance',
    );
    await player.getByTestId('bell-count').waitFor();
    expect(await player.getByTestId('bell-count').textContent()).toBe('1');
    expect(await bell.getAttribute('aria-label')).toBe('Уведомления: 1 непрочитанное');

    // Keyboard: focus, Enter opens, the notice is there; Esc closes and gives focus back.
    await bell.focus();
    await player.keyboard.press('Enter');
    const panel = player.getByRole('region', { name: 'Уведомления' });
    await panel.getByText('Начислено 150,50\u00a0₽').waitFor();
    await panel.getByText('Компенсация за вайп').waitFor();
    const box = await panel.boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(360);
    expect(await player.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await player.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    expect(await bell.evaluate((el) => el === document.activeElement)).toBe(true);

    // Messages from the administration, written in the admin area: to this player (the user card)…
    await owner.goto('/admin/users');
    await owner.getByRole('button', { name: 'Карточка игрока Belle' }).click();
    const toOne = owner.getByRole('region', { name: 'Сообщение игроку' });
    await toOne.getByLabel('Заголовок').fill('Зайдите на спавн');
    await toOne.getByRole('button', { name: 'Отправить' }).click();
    await toast(owner, 'success', 'Сообщение отправлено');
    await until(
      () => player.getByTestId('bell-count').textContent(),
      (t) => t === '2',
      'the count after a message',
    );
    // …and to everyone (the news screen).
    await owner.goto('/admin/news');
    await owner.getByRole('button', { name: 'Сообщение всем игрокам' }).click();
    const toAll = owner.getByRole('dialog');
    await toAll.getByLabel('Заголовок').fill('Вайп в пятницу');
    await toAll.getByLabel('Текст').fill('В 18:00 по Москве');
    await toAll.getByRole('button', { name: 'Отправить всем' }).click();
    await toast(owner, 'success', 'Сообщение отправлено всем игрокам');
    await until(
      () => player.getByTestId('bell-count').textContent(),
      (t) => t === '3',
      'the count after a broadcast',
    );
    // «Прочитать все» clears the count.
    await player.keyboard.press('Enter');
    await panel.getByText('Вайп в пятницу').waitFor();
    await panel.getByText('Зайдите на спавн').waitFor();
    await panel.getByRole('button', { name: 'Прочитать все' }).click();
    await player.getByTestId('bell-count').waitFor({ state: 'detached' });
    expect(((await callApi(player, 'GET', '/api/user/notifications')).json as { unread: number }).unread).toBe(0);
  });
});
