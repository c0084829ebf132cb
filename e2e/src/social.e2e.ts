import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDiscord } from '../../testing/social/discord-server.ts';
import { loginUi, registerAndConfirm, see, startSite, toast, type Site } from './harness.ts';

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
});
