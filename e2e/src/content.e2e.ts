import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmDialog, loginUi, registerAndConfirm, see, startSite, toast, type Site } from './harness.ts';

const LONG_TEXT = `Мы открыли новый мир для выживания: огромная карта, редкие руды и данжи с сокровищами.\nЗаходите сегодня вечером — будет ивент!`;

/**
 * Opens / the way a visitor coming from another page does, through the logo link. A direct
 * GET / currently answers 403 (the static-file setup in apps/server/src/app.ts; reported), so
 * neither goto('/') nor reload() on / can be used yet.
 */
async function openHome(page: Page): Promise<void> {
  await page.goto('/rules');
  await page.getByRole('link', { name: 'Kubik — на главную' }).click();
  await page.getByRole('heading', { name: 'Добро пожаловать на Kubik!' }).waitFor();
}

async function noHorizontalScroll(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

describe('news, donate and the admin area in the browser', () => {
  let site: Site;
  let admin: Page;
  beforeAll(async () => {
    site = await startSite({}, { fresh: true });
    site.createAdmin('Owner', 'owner@example.com', 'owner-password');
    admin = await site.newPage();
    await loginUi(admin, 'Owner', 'owner-password');
  });
  afterAll(async () => {
    await site?.stop();
  });

  it('an admin publishes, edits and deletes a news item; a visitor on a phone sees each change', async () => {
    const visitor = await site.newPage({ width: 360, height: 740 });
    await openHome(visitor);
    await see(visitor, 'Здесь пока нет новостей');
    expect(await visitor.title()).toBe('Kubik');

    await admin.goto('/admin/news');
    await admin.getByRole('button', { name: 'Добавить новость' }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Сохранить', exact: true }).click();
    await toast(admin, 'danger', 'Заполните заголовок и содержание!');
    await dialog.getByLabel('Заголовок').fill('Новый мир');
    await dialog.getByLabel('Ссылка на изображение (необязательно)', { exact: true }).fill('javascript:alert(1)');
    await dialog.getByLabel('Содержание').fill(LONG_TEXT);
    await dialog.getByRole('button', { name: 'Сохранить', exact: true }).click();
    // A script address is refused with the server's own rule, before any request; the modal stays open with the reason next to the field.
    await dialog.getByText(/Ссылка на изображение должна начинаться/).waitFor();
    expect(await dialog.getByLabel('Ссылка на изображение (необязательно)', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await dialog.getByLabel('Ссылка на изображение (необязательно)', { exact: true }).fill('/favicon.svg');
    await dialog.getByRole('button', { name: 'Сохранить', exact: true }).click();
    await toast(admin, 'success', 'Новость добавлена!');
    await admin.getByRole('cell', { name: 'Новый мир', exact: true }).waitFor();

    await openHome(visitor);
    const card = visitor.getByTestId('news-card');
    await card.getByRole('link', { name: 'Новый мир' }).waitFor();
    const previewText = await card.locator('.news-card-preview').textContent();
    expect(previewText!.endsWith('…')).toBe(true);
    expect(Array.from(previewText!.slice(0, -1)).length).toBeLessThanOrEqual(100);
    expect(LONG_TEXT.replace(/\s+/g, ' ').startsWith(previewText!.slice(0, -1))).toBe(true);
    expect(await card.locator('img').getAttribute('src')).toBe('/favicon.svg');
    const today = new Intl.DateTimeFormat('ru-RU', { day: 'numeric', month: 'long', year: 'numeric' })
      .format(new Date())
      .replace(/\s*г\.$/, '');
    await card.getByText(today).waitFor();
    expect(await noHorizontalScroll(visitor)).toBe(true);

    // Clicking anywhere on the card opens the full text; Close closes it.
    await card.click();
    const full = visitor.getByRole('dialog', { name: 'Новый мир' });
    await full.getByText('Заходите сегодня вечером — будет ивент!').waitFor();
    expect(await full.locator('.news-full-text').textContent()).toBe(LONG_TEXT);
    await full.getByText(today).waitFor();
    await full.getByRole('button', { name: 'Закрыть' }).last().click();
    await full.waitFor({ state: 'hidden' });

    // The keyboard reaches the card too.
    await card.getByRole('link', { name: 'Новый мир' }).focus();
    await visitor.keyboard.press('Enter');
    await full.waitFor();
    await visitor.keyboard.press('Escape');
    await full.waitFor({ state: 'hidden' });

    await admin.getByRole('button', { name: 'Изменить новость «Новый мир»' }).click();
    await dialog.getByLabel('Заголовок').fill('Новый мир <b>открыт</b>');
    await dialog.getByRole('button', { name: 'Сохранить', exact: true }).click();
    await toast(admin, 'success', 'Новость обновлена!');

    await openHome(visitor);
    // Shown as text, never as markup.
    await card.getByRole('link', { name: 'Новый мир <b>открыт</b>' }).waitFor();
    expect(await visitor.locator('.news-card b').count()).toBe(0);

    await admin.getByRole('button', { name: 'Удалить новость «Новый мир <b>открыт</b>»' }).click();
    await confirmDialog(admin);
    await toast(admin, 'success', 'Новость удалена!');
    await openHome(visitor);
    await see(visitor, 'Здесь пока нет новостей');
  });

  it('an admin creates, edits and deletes a donation tier; a visitor sees each change on /donate', async () => {
    const visitor = await site.newPage({ width: 360, height: 740 });
    await visitor.goto('/donate');
    await see(visitor, 'Нет доступных донатов');
    expect(await visitor.title()).toBe('Донат — Kubik');

    await admin.goto('/admin/donate');
    await admin.getByRole('button', { name: 'Добавить донат' }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Сохранить', exact: true }).click();
    await toast(admin, 'danger', 'Заполните все поля!');
    await dialog.getByLabel('Название', { exact: true }).fill('VIP');
    await dialog.getByLabel('Описание', { exact: true }).fill('Для тех, кто играет каждый день.\nПоддержите сервер!');
    await dialog.getByLabel('Цена в месяц', { exact: true }).fill('299');
    expect(await dialog.getByLabel('Валюта').inputValue()).toBe('₽');
    await dialog.getByLabel('Отметить как «Лучший выбор»').check();

    await dialog.getByRole('tab', { name: /Киты/ }).click();
    await dialog.getByRole('button', { name: 'Добавить кит' }).click();
    expect(await dialog.getByLabel('Период, дней').inputValue()).toBe('7');
    await dialog.getByLabel('Название кита').fill('Старт');
    await dialog.getByLabel('Команда').fill('/kit start');
    await dialog.getByLabel('Описание кита').fill('Железная броня и еда');
    await dialog.getByRole('button', { name: 'Добавить кит' }).click();
    expect(await dialog.getByLabel('Название кита').count()).toBe(2);
    await dialog.getByRole('button', { name: 'Удалить кит 2' }).click();
    expect(await dialog.getByLabel('Название кита').count()).toBe(1);

    await dialog.getByRole('tab', { name: /Привилегии/ }).click();
    await dialog.getByRole('button', { name: 'Добавить привилегию' }).click();
    await dialog.getByLabel('Название привилегии').fill('Полёт');
    await dialog.getByLabel('Значение (необязательно)').fill('/fly');
    await dialog.getByRole('button', { name: 'Добавить привилегию' }).click();
    await dialog.getByLabel('Название привилегии').nth(1).fill('Цветной ник');
    await dialog.getByLabel('Показывать галочку').nth(1).uncheck();
    await dialog.getByRole('button', { name: 'Сохранить', exact: true }).click();
    await toast(admin, 'success', 'Донат добавлен!');
    await admin.getByRole('cell', { name: 'VIP' }).first().waitFor();

    await visitor.reload();
    const tab = visitor.getByRole('tab', { name: /VIP/ });
    await tab.waitFor();
    expect(await tab.textContent()).toContain('299\u00a0₽ / мес.');
    expect(await tab.textContent()).toContain('Лучший выбор');
    const details = visitor.getByTestId('tier-details');
    await details.getByText('Старт').waitFor();
    await details.getByText('/kit start').waitFor();
    await details.getByText('Железная броня и еда').waitFor();
    await details.getByText('Можно получать раз в 7 дней').waitFor();
    await details.getByText('Полёт').waitFor();
    await details.getByText('/fly').waitFor();
    expect(await details.locator('.feature-check.on').count()).toBe(1);
    expect(await noHorizontalScroll(visitor)).toBe(true);

    await admin.getByRole('button', { name: 'Изменить донат «VIP»' }).click();
    expect(await dialog.getByLabel('Цена в месяц', { exact: true }).inputValue()).toBe('299');
    await dialog.getByLabel('Цена в месяц', { exact: true }).fill('349');
    await dialog.getByRole('tab', { name: /Киты/ }).click();
    await dialog.getByLabel('Период, дней').fill('1');
    await dialog.getByRole('button', { name: 'Сохранить', exact: true }).click();
    await toast(admin, 'success', 'Донат обновлён!');

    await visitor.reload();
    await see(visitor, '349\u00a0₽ / мес.');
    await details.getByText('Можно получать раз в день', { exact: true }).waitFor();

    await admin.getByRole('button', { name: 'Удалить донат «VIP»' }).click();
    await confirmDialog(admin);
    await toast(admin, 'success', 'Донат удалён!');
    await visitor.reload();
    await see(visitor, 'Нет доступных донатов');
  });

  it('an admin sets a player balance, the player header shows it, and the change is in the log', async () => {
    const player = await site.newPage();
    await registerAndConfirm(site, player, 'Digger');
    await loginUi(player, 'Digger');
    expect(await player.getByTestId('header-balance').textContent()).toBe('0\u00a0₽');

    await admin.goto('/admin/users');
    const row = admin.getByTestId('user-row-Digger');
    await row.waitFor();
    // The «Админ» column (the table also shows whether the address is confirmed).
    expect(await row.locator('td[data-label="Админ"]').textContent()).toBe('Нет');
    await admin.getByRole('button', { name: 'Изменить пользователя Digger' }).click();
    const dialog = admin.getByRole('dialog');
    expect(await dialog.getByLabel('Пароль').inputValue()).toBe('');
    await dialog.getByLabel('Баланс, ₽').fill('-5');
    await dialog.getByRole('button', { name: 'Сохранить', exact: true }).click();
    await dialog.getByText('Баланс не может быть отрицательным').waitFor();
    expect(await dialog.getByLabel('Баланс, ₽').getAttribute('aria-invalid')).toBe('true');
    await dialog.getByLabel('Баланс, ₽').fill('150');
    await dialog.getByRole('button', { name: 'Сохранить', exact: true }).click();
    await toast(admin, 'success', 'Пользователь обновлён!');
    await row.getByText('150\u00a0₽').waitFor();

    // The header refreshes the current user when the pointer enters the profile menu.
    await player.mouse.move(0, 0);
    await player.getByTestId('header-username').hover();
    await player.getByTestId('header-balance').getByText('150\u00a0₽').waitFor();
    // An empty password kept the old one.
    const again = await site.newPage();
    await loginUi(again, 'Digger');

    await admin.getByRole('link', { name: 'Журнал изменений' }).click();
    await admin.waitForURL('**/admin/audit');
    const entry = admin.getByTestId('audit-entry').first();
    await entry.getByText('Пользователь изменён').waitFor();
    await entry.getByText('Owner').waitFor();
    // In Russian, the money formatted: «Баланс: 0 ₽ → 150 ₽».
    expect(await entry.getByRole('listitem').filter({ hasText: 'Баланс:' }).textContent()).toBe('Баланс: 0\u00a0₽ → 150\u00a0₽');
    expect(await admin.title()).toMatch(/Журнал изменений|Админ-панель/);
  });

  it('an admin adds and deletes a user; the last administrator cannot be deleted', async () => {
    await admin.goto('/admin/users');
    await admin.getByRole('button', { name: 'Добавить пользователя' }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByLabel('Имя пользователя').fill('owner');
    await dialog.getByLabel('Почта').fill('helper@example.com');
    await dialog.getByLabel('Пароль').fill('helper-password');
    await dialog.getByRole('button', { name: 'Сохранить', exact: true }).click();
    await toast(admin, 'danger', 'Пользователь с таким именем уже существует.');
    await dialog.getByLabel('Имя пользователя').fill('Helper');
    await dialog.getByLabel('Баланс, ₽').fill('25');
    await dialog.getByLabel('Администратор').check();
    await dialog.getByRole('button', { name: 'Сохранить', exact: true }).click();
    await toast(admin, 'success', 'Пользователь добавлен!');
    const row = admin.getByTestId('user-row-Helper');
    await row.locator('td[data-label="Админ"]', { hasText: 'Да' }).waitFor();
    await row.getByText('25\u00a0₽').waitFor();

    await admin.getByRole('button', { name: 'Удалить пользователя Helper' }).click();
    await confirmDialog(admin);
    await toast(admin, 'success', 'Пользователь удалён!');
    await row.waitFor({ state: 'detached' });

    await admin.getByRole('button', { name: 'Удалить пользователя Owner' }).click();
    await confirmDialog(admin);
    await toast(admin, 'danger', 'Нельзя удалить последнего администратора: сначала назначьте другого');
    await admin.getByTestId('user-row-Owner').waitFor();

    // The admin screens fit a phone: wide tables scroll inside their frame.
    await admin.setViewportSize({ width: 360, height: 740 });
    expect(await noHorizontalScroll(admin)).toBe(true);
    await admin.setViewportSize({ width: 1280, height: 800 });
  });
});
