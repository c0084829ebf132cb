import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDiscord } from '../../testing/social/discord-server.ts';
import { linkIn, loginUi, registerAndConfirm, see, startSite, toast, type Site } from './harness.ts';

describe('social login in the browser', () => {
  let site: Site;
  let discord: FakeDiscord;
  beforeAll(async () => {
    discord = await new FakeDiscord().start();
    site = await startSite({ DISCORD_CLIENT_ID: discord.clientId, DISCORD_CLIENT_SECRET: discord.clientSecret, DISCORD_URL: discord.url });
    discord.redirectUris.push(`${site.url}/api/auth/discord/callback`);
  });
  afterAll(async () => {
    await site?.stop();
    await discord?.stop();
  });

  it('a player links Discord in the settings, logs out and logs in with it', async () => {
    discord.signInAs({ id: '80351110224670001', username: 'e2e_player', global_name: 'E2E Player' });
    const page = await site.newPage();
    await registerAndConfirm(site, page, 'Social_E2E');

    // Only providers with keys are offered: Discord, not VK or Telegram.
    await page.goto('/login');
    const buttons = page.locator('.social-buttons');
    await buttons.getByRole('link', { name: 'Discord' }).waitFor();
    expect(await buttons.getByRole('link').count()).toBe(1);

    await loginUi(page, 'Social_E2E');
    await page.goto('/profile?tab=settings');
    await page.getByRole('heading', { name: 'Вход через соцсети' }).waitFor();
    const row = page.getByTestId('social-discord');
    await see(page, 'не привязан');
    await row.getByRole('button', { name: 'Привязать' }).click();
    await toast(page, 'success', 'Аккаунт привязан');
    await row.getByText('E2E Player').waitFor();

    await page.getByTestId('header-username').click();
    await page.getByRole('menuitem', { name: 'Выйти' }).click();
    await page.waitForURL('**/login');

    await page.locator('.social-buttons').getByRole('link', { name: 'Discord' }).click();
    await page.waitForURL('**/profile');
    expect(await page.getByTestId('header-username').textContent()).toContain('Social_E2E');
  });

  it('a newcomer registers through Discord, confirms the address, and sets a password from the settings for the launcher', async () => {
    discord.signInAs({ id: '80351110224670002', username: 'newcomer', global_name: 'Newcomer' });
    const page = await site.newPage({ width: 360, height: 740 });
    await page.goto('/login');
    await page.locator('.social-buttons').getByRole('link', { name: 'Discord' }).click();
    await page.waitForURL('**/login/social');
    await page.getByLabel('Имя в игре').fill('Newcomer_1');
    await page.getByLabel('Почта').fill('newcomer@example.com');
    await page.getByRole('button', { name: 'Продолжить' }).click();
    const confirm = await site.smtp.waitFor('newcomer@example.com');
    await page.goto(linkIn(confirm, '/api/auth/social/confirm/'));
    await page.waitForURL('**/profile**');
    expect(await page.getByTestId('header-username').textContent()).toContain('Newcomer_1');

    await page.goto('/profile?tab=settings');
    await page.getByRole('button', { name: 'Задать пароль' }).click();
    await page.getByTestId('password-letter-sent').getByText('newcomer@example.com').waitFor();
    const reset = await site.smtp.waitFor('newcomer@example.com', (l) => l.subject.includes('Сброс пароля'));
    await page.goto(linkIn(reset, '/reset-password?token='));
    await page.getByLabel('Новый пароль').fill('launcher-pass-42');
    await page.getByRole('button', { name: 'Сохранить пароль' }).click();
    await page.waitForURL('**/login**');
    await loginUi(page, 'Newcomer_1', 'launcher-pass-42');
    expect(await page.getByTestId('header-username').textContent()).toContain('Newcomer_1');
  });

  it('the owner sets a Telegram bot in the admin: the secret is write-only and Telegram is offered at login', async () => {
    const page = await site.newPage();
    await loginUi(page, 'Founder', 'founder-password-42');
    await page.goto('/admin/settings');
    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Вход через соцсети' }) });
    await section.getByLabel('Имя бота Telegram').fill('kubik_e2e_bot');
    await section.getByLabel('Токен бота Telegram').fill('7000000001:AAHfakeTelegramBotTokenForTests_0123');
    await page.getByRole('button', { name: 'Сохранить ключи', exact: true }).click();
    await toast(page, 'success', 'Ключи входа через соцсети сохранены');
    await section.getByText('Сейчас: задан в админ-панели.').waitFor();
    expect(await section.getByLabel('Токен бота Telegram').inputValue()).toBe('');

    const guest = await site.newPage();
    await guest.goto('/login');
    const telegram = guest.locator('.social-buttons').getByRole('link', { name: 'Telegram' });
    await telegram.waitFor();
    const href = new URL((await telegram.getAttribute('href'))!);
    expect(href.origin + href.pathname).toBe('https://oauth.telegram.org/auth');
    expect(href.searchParams.get('bot_id')).toBe('7000000001');
    expect(href.searchParams.get('return_to')).toBe(`${site.url}/login/telegram`);
  });
});
