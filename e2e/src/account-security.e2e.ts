import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmDialog, callApi, linkIn, loginUi, registerAndConfirm, see, seeFormError, startSite, toast, type Site } from './harness.ts';

describe('bans, e-mail change and account deletion in the browser', () => {
  let site: Site;
  let admin: Page;
  beforeAll(async () => {
    site = await startSite({}, { fresh: true });
    site.createAdmin('Warden', 'warden@example.com', 'warden-pass-42');
    admin = await site.newPage();
    await loginUi(admin, 'Warden', 'warden-pass-42');
  });
  afterAll(async () => {
    await site?.stop();
  });

  it('an admin bans a player from the users list; the player is logged out and the login tells the public reason, never the note; unban lets them in', async () => {
    const player = await site.newPage();
    await registerAndConfirm(site, player, 'Griefer');
    await loginUi(player, 'Griefer');

    await admin.goto('/admin/users');
    await admin.getByRole('button', { name: 'Заблокировать Griefer' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Заблокировать Griefer' });
    // The note is required: without it the form says so beside the field and bans nobody.
    await dialog.getByLabel('Причина для игрока (видна всем)').fill('Гриф спавна');
    await dialog.getByRole('button', { name: 'Заблокировать' }).click();
    await see(admin, 'Укажите внутреннюю заметку: за что блокировка (её видит только персонал)');
    await dialog.getByLabel('Внутренняя заметка (видна только персоналу)').fill('Жалоба №12, видео у модератора');
    await dialog.getByLabel('Срок').selectOption('forever');
    await dialog.getByRole('button', { name: 'Заблокировать' }).click();
    await toast(admin, 'success', 'Игрок заблокирован');
    expect(await admin.getByTestId('ban-state-Griefer').textContent()).toBe('Заблокирован навсегда');
    // Administrators have no ban button.
    expect(await admin.getByRole('button', { name: 'Заблокировать Warden' }).count()).toBe(0);

    // The player's open page loses its session at the next call.
    await player.goto('/profile');
    await player.waitForURL('**/login');
    await player.getByLabel('Имя или почта').fill('Griefer');
    await player.getByLabel('Пароль').fill('kubik-pass-42');
    await player.getByRole('button', { name: 'Войти' }).click();
    await seeFormError(player, 'Аккаунт заблокирован навсегда: Гриф спавна');
    expect(await player.content()).not.toContain('Жалоба №12');

    // «Изменить» opens the ban with both texts as they were saved.
    await admin.getByRole('button', { name: 'Изменить блокировку Griefer' }).click();
    const edit = admin.getByRole('dialog', { name: 'Блокировка Griefer' });
    const note = edit.getByLabel('Внутренняя заметка (видна только персоналу)');
    await note.waitFor();
    expect(await note.inputValue()).toBe('Жалоба №12, видео у модератора');
    expect(await edit.getByLabel('Причина для игрока (видна всем)').inputValue()).toBe('Гриф спавна');
    await edit.getByRole('button', { name: 'Отмена' }).click();

    await admin.getByRole('button', { name: 'Разблокировать Griefer' }).click();
    await confirmDialog(admin);
    await toast(admin, 'success', 'Блокировка снята');
    await admin.getByRole('button', { name: 'Заблокировать Griefer' }).waitFor();
    await player.getByRole('button', { name: 'Войти' }).click();
    // Back where the session was lost.
    await player.waitForURL('**/profile');
    expect(await player.getByTestId('header-username').textContent()).toBe('Griefer');
  });

  it("an admin sets a server's in-game ban commands; a template with an unknown placeholder is refused beside the field", async () => {
    const created = await callApi(admin, 'POST', '/api/servers/', {
      name: 'Выживание',
      description: 'Основной',
      image_url: '',
      ip_address: '127.0.0.1',
      port: 25565,
      max_online: 100,
    });
    expect(created.status).toBe(201);
    await admin.goto('/admin/users');
    await admin.getByText('Команды бана в игре').click();
    const ban = admin.getByLabel('Команда бана (Выживание)');
    await ban.fill('ban {name}');
    await admin.getByRole('button', { name: 'Сохранить' }).last().click();
    await see(admin, /неизвестная подстановка \{name\}/);
    await ban.fill('ban {player} {reason}');
    await admin.getByLabel('Команда разбана (Выживание)').fill('pardon {player}');
    await admin.getByRole('button', { name: 'Сохранить' }).last().click();
    await toast(admin, 'success', 'Команды сервера «Выживание» сохранены');
    const saved = await callApi(admin, 'GET', '/api/admin/bans/commands');
    expect(saved.json).toEqual([
      expect.objectContaining({ server_name: 'Выживание', ban_command: 'ban {player} {reason}', unban_command: 'pardon {player}' }),
    ]);
  });

  it('a player changes the e-mail in the settings and confirms it from the new address; a phone fits it', async () => {
    const page = await site.newPage({ width: 360, height: 740 });
    await registerAndConfirm(site, page, 'Mover');
    await loginUi(page, 'Mover');
    await page.goto('/profile?tab=settings');
    expect(await page.getByTestId('current-email').textContent()).toBe('mover@example.com');
    await page.getByLabel('Новая почта').fill('mover-new@example.com');
    await page.getByLabel('Пароль', { exact: true }).last().fill('wrong-pass-99');
    await page.getByRole('button', { name: 'Сменить почту' }).click();
    await see(page, 'Пароль указан неверно');
    await page.getByLabel('Пароль', { exact: true }).last().fill('kubik-pass-42');
    await page.getByRole('button', { name: 'Сменить почту' }).click();
    await see(page, /Ждём подтверждения нового адреса mover-new@example.com/);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

    const notice = await site.smtp.waitFor('mover@example.com', (l) => l.subject.includes('Смена почты'));
    expect(notice.text).toContain('mover-new@example.com');
    const letter = await site.smtp.waitFor('mover-new@example.com', (l) => l.subject.includes('Подтверждение новой почты'));
    await page.goto(linkIn(letter, '/email-change?confirm='));
    await page.getByRole('button', { name: 'Подтвердить новую почту' }).click();
    await see(page, 'Почта изменена');
    await page.goto('/profile?tab=settings');
    await page.getByTestId('current-email').filter({ hasText: 'mover-new@example.com' }).waitFor();
  });

  it('a player deletes the account after typing the password; the name is free again', async () => {
    const page = await site.newPage();
    await registerAndConfirm(site, page, 'Leaver');
    await loginUi(page, 'Leaver');
    await page.goto('/profile?tab=settings');
    await page.getByRole('button', { name: 'Удалить аккаунт' }).click();
    const dialog = page.getByRole('dialog', { name: 'Удалить аккаунт?' });
    await dialog.getByLabel('Пароль').fill('wrong-pass-99');
    await dialog.getByRole('button', { name: 'Удалить навсегда' }).click();
    await dialog.getByText('Пароль указан неверно').waitFor();
    await dialog.getByLabel('Пароль').fill('kubik-pass-42');
    await dialog.getByRole('button', { name: 'Удалить навсегда' }).click();
    await page.waitForURL('**/login');
    const bye = await site.smtp.waitFor('leaver@example.com', (l) => l.subject.includes('Аккаунт удалён'));
    expect(bye.text).toContain('История покупок');
    await page.getByLabel('Имя или почта').fill('Leaver');
    await page.getByLabel('Пароль').fill('kubik-pass-42');
    await page.getByRole('button', { name: 'Войти' }).click();
    await seeFormError(page, 'Неверное имя пользователя или пароль');
  });
});
