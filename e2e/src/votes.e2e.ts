import { createHash } from 'node:crypto';
import type { AdminVoteSite } from '@kubik/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, loginUi, registerAndConfirm, see, startSite, type Site } from './harness.ts';

/** TopCraft's callback as its docs describe it: a form POST signed with sha1(username + timestamp + secret). */
async function topcraftVote(callbackUrl: string, username: string, secret: string): Promise<Response> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHash('sha1').update(`${username}${timestamp}${secret}`).digest('hex');
  return fetch(callbackUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username, timestamp, signature }).toString(),
  });
}

describe('voting on a server top in the browser', () => {
  let site: Site;

  beforeAll(async () => {
    site = await startSite();
    site.createAdmin('Owner', 'owner@example.com', 'owner-pass-42');
  });
  afterAll(() => site?.stop());

  it('the owner adds a top; the player sees it on /vote, a callback pays them, and the page shows when they can vote again', async () => {
    const owner = await site.newPage();
    await loginUi(owner, 'Owner', 'owner-pass-42');
    // Two servers; the top's reward commands are to run on the second only.
    for (const name of ['Лобби', 'Выживание'])
      expect(
        (await callApi(owner, 'POST', '/api/servers/', { name, description: name, ip_address: '127.0.0.1', port: 25565 })).status,
      ).toBe(201);
    await owner.goto('/admin/votes');
    await owner.getByRole('heading', { name: 'Голосование' }).waitFor();
    await owner.getByRole('button', { name: 'Добавить топ' }).click();
    const dialog = owner.getByRole('dialog');
    await dialog.getByLabel('Название на странице голосования').fill('TopCraft');
    await dialog.getByLabel('Ссылка для голосования').fill('https://topcraft.ru/servers/123/');
    await dialog.getByLabel('Секретный ключ').fill('tc-secret-e2e');
    await dialog.getByLabel('Награда на баланс, ₽').fill('5');
    await dialog.getByTestId('vote-site-servers').getByLabel('Выживание').check();
    await dialog.getByRole('button', { name: 'Сохранить' }).click();
    await owner.getByRole('cell', { name: 'TopCraft (TopCraft)' }).waitFor();
    const list = await callApi(owner, 'GET', '/api/admin/vote-sites');
    const [top] = list.json as AdminVoteSite[];
    const servers = (await callApi(owner, 'GET', '/api/servers/')).json as { servers: { id: number; name: string }[] };
    expect(top!.server_ids).toEqual([servers.servers.find((x) => x.name === 'Выживание')!.id]);
    expect(top!.callback_url).toBe(`${site.url}/api/votes/callback/${top!.id}`);

    const player = await site.newPage({ width: 360, height: 740 });
    await registerAndConfirm(site, player, 'Voter');
    await loginUi(player, 'Voter');
    await player.goto('/vote');
    const card = player.getByTestId('vote-site');
    await card.getByRole('heading', { name: 'TopCraft' }).waitFor();
    await card.getByText('Можно голосовать').waitFor();
    expect(await card.getByRole('link', { name: 'Голосовать' }).getAttribute('href')).toBe('https://topcraft.ru/servers/123/');
    expect(await player.getByTestId('my-votes').textContent()).toBe('Ваши голоса в этом месяце: 0');

    // The player voted on TopCraft; TopCraft calls the site back.
    const answer = await topcraftVote(top!.callback_url, 'Voter', 'tc-secret-e2e');
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('ok');

    await player.reload();
    await card.getByTestId('vote-cooldown').waitFor();
    expect(await card.getByTestId('vote-cooldown').textContent()).toMatch(/^Снова можно через 2[34] ч \d+ мин$/);
    expect(await player.getByTestId('my-votes').textContent()).toBe('Ваши голоса в этом месяце: 1');
    await player.getByTestId('vote-top').getByRole('cell', { name: 'Voter' }).waitFor();
    const me = await callApi(player, 'GET', '/api/user/me');
    expect((me.json as { balance: number }).balance).toBe(5);

    // The owner sees the accepted callback in the top's log.
    await owner.reload();
    await owner.getByText(/TopCraft: адрес колбэка и журнал \(принят, награда выдана: 1\)/).click();
    await see(owner, 'Voter');
  });
});
