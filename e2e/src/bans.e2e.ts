import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, loginUi, registerAndConfirm, startSite, type Site } from './harness.ts';

describe('the public ban list', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite();
    site.createAdmin('Owner', 'owner@example.com', 'owner-password');
  }, 120_000);
  afterAll(async () => {
    await site?.stop();
  });

  it('a guest on a phone reads who was banned and why, searches by name, and «Обжаловать» leads to the appeal page', async () => {
    const signup = await site.newPage();
    await registerAndConfirm(site, signup, 'Griefer_1');
    await registerAndConfirm(site, signup, 'Spammer');
    const owner = await site.newPage();
    await loginUi(owner, 'Owner', 'owner-password');
    const users = (await callApi(owner, 'GET', '/api/user/all?page=1&per_page=25')).json as { users: { id: number; username: string }[] };
    const idOf = (name: string) => users.users.find((u) => u.username === name)!.id;
    const ban = async (name: string, reason: string) =>
      expect(
        (await callApi(owner, 'POST', `/api/admin/users/${idOf(name)}/ban`, { reason, note: 'внутренняя заметка', until: null })).status,
      ).toBe(200);
    await ban('Griefer_1', 'Гриф <b>спавна</b>');
    await ban('Spammer', 'Реклама');

    const guest = await site.newPage({ width: 360, height: 740 });
    const crashes: string[] = [];
    guest.on('pageerror', (e) => crashes.push(e.message));
    await guest.goto('/bans');
    await guest.getByRole('heading', { name: 'Наказания', level: 1 }).waitFor();
    const list = guest.getByRole('list', { name: 'Баны' });
    await list.getByText('Griefer_1').waitFor();
    // The reason is text: the tag shows as typed; the note is nowhere.
    await list.getByText('Гриф <b>спавна</b>').waitFor();
    expect(await guest.content()).not.toContain('внутренняя заметка');
    expect(await guest.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

    await guest.getByLabel('Имя игрока').fill('spam');
    await guest.getByRole('button', { name: 'Найти' }).click();
    await guest.waitForURL('**/bans?q=spam');
    await list.getByText('Griefer_1').waitFor({ state: 'detached' });
    await list.getByText('Реклама').waitFor();
    expect(await list.getByRole('listitem').count()).toBe(1);

    await list.getByRole('link', { name: 'Обжаловать' }).click();
    await guest.waitForURL('**/support/appeal');
    await guest.getByText('Чтобы обжаловать блокировку, войдите').waitFor();
    expect(crashes).toEqual([]);
  });
});
