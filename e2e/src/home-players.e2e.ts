import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusPeer } from '../../testing/minecraft-status-peer.ts';
import { callApi as call, loginUi, registerAndConfirm, startSite, until, type Site } from './harness.ts';

const noHorizontalScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe('a home page that sells the server, and players’ public profiles', () => {
  let site: Site;
  let admin: Page;
  let player: Page;
  let peer: StatusPeer;

  beforeAll(async () => {
    // A vanilla server's status reply lists some players online; a player who turned off
    // «Allow Server Listings» comes as "Anonymous Player" with the all-zero UUID.
    peer = await new StatusPeer({
      status: {
        version: { name: '1.21.4', protocol: 769 },
        players: {
          max: 40,
          online: 2,
          sample: [
            { name: 'Miner', id: '4566e69f-c907-48ee-8d71-d7ba5aa00d20' },
            { name: 'Anonymous Player', id: '00000000-0000-0000-0000-000000000000' },
          ],
        },
        description: 'Кубик',
      },
    }).start();
    site = await startSite({ MONITOR_INTERVAL_SEC: '1', MONITOR_TIMEOUT_MS: '800' });
    site.createAdmin('Owner', 'owner@example.com', 'kubik-pass-42');
    admin = await site.newPage();
    await loginUi(admin, 'Owner');
    player = await site.newPage();
    await registerAndConfirm(site, player, 'Miner');
    const users = (await call(admin, 'GET', '/api/user/all')).json as
      { id: number; username: string }[] | { users: { id: number; username: string }[] };
    const minerId = (Array.isArray(users) ? users : users.users).find((u) => u.username === 'Miner')!.id;
    expect((await call(admin, 'PUT', `/api/user/${minerId}`, { balance: 500 })).status).toBe(200);
    const server = await call(admin, 'POST', '/api/servers/', {
      name: 'Выживание',
      description: 'Ванильное выживание',
      ip_address: '127.0.0.1',
      port: peer.port,
      max_online: 40,
    });
    expect(server.status).toBe(201);
    const item = await call(admin, 'POST', '/api/shop/admin/create', {
      name: 'Алмазный меч',
      price: 99,
      count: 10,
      icon: '/favicon.svg',
      item_id_minecraft: 'diamond_sword',
    });
    expect(item.status, JSON.stringify(item.json)).toBe(201);
    await loginUi(player, 'Miner');
    const bought = await player.evaluate(
      async (shopId) => {
        const res = await fetch('/api/shop/buy', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
          body: JSON.stringify({ shop_id: shopId, quantity: 1 }),
        });
        return res.status;
      },
      (item.json as { id: number }).id,
    );
    expect(bought).toBe(200);
    await until(
      async () => (await call(admin, 'GET', '/api/servers/')).json as { servers: { players: string[] }[] },
      (list) => list.servers[0]?.players.includes('Miner') ?? false,
      'the status sample on the server list',
    );
  });
  afterAll(async () => {
    await site?.stop();
    await peer?.stop();
  });

  it('a guest on a phone sees each server with the heads of its players, the latest purchase and the month’s top, and opens a player’s profile', async () => {
    const guest = await site.newPage({ width: 360, height: 740 });
    await guest.goto('/');
    const cards = guest.getByTestId('home-servers');
    await cards.getByText('Выживание').waitFor();
    await cards.getByText('2 из 40 игроков').waitFor();
    // Only real names get a head; the anonymous entry is left out.
    expect(await cards.getByRole('img').evaluateAll((imgs) => imgs.map((i) => i.getAttribute('alt')))).toEqual(['Miner']);
    const recent = guest.getByTestId('recent-purchases');
    await recent.getByText('Алмазный меч × 1').waitFor();
    expect(await noHorizontalScroll(guest)).toBe(true);

    await recent.getByRole('link', { name: 'Miner' }).click();
    await guest.waitForURL('**/u/Miner');
    await guest.getByRole('heading', { name: 'Miner', level: 1 }).waitFor();
    await guest.getByText('Был в игре').waitFor();
    expect(await guest.getByText('Неизвестно').count()).toBe(0);
    // The 3D skin: a canvas the viewer drew into; the page stays within the phone's width once it is laid out.
    await guest.locator('.pl-profile-skin canvas').waitFor();
    await expect.poll(() => noHorizontalScroll(guest)).toBe(true);
    expect(await guest.title()).toMatch(/^Игрок Miner/);

    await guest.goto('/u/NoSuchPlayer');
    await guest.getByText('Игрок не найден').waitFor();
  });

  it('a player hides their profile in the settings: the home page shows no name and the profile only the name', async () => {
    await player.goto('/profile?tab=settings');
    await player.getByLabel('Скрыть мой профиль').check();
    await player.getByRole('region', { name: 'Открытый профиль' }).getByRole('button', { name: 'Сохранить' }).click();
    await player.getByText('Профиль скрыт').waitFor();

    const guest = await site.newPage({ width: 1280, height: 800 });
    // The widgets are built at most every 10 s per instance; a privacy change drops them at once.
    await guest.goto('/');
    const recent = guest.getByTestId('recent-purchases');
    await recent.getByText('Игрок скрыл имя').waitFor();
    expect(await recent.getByRole('link', { name: 'Miner' }).count()).toBe(0);
    await guest.goto('/u/Miner');
    await guest.getByTestId('profile-hidden').waitFor();
  });

  it('the owner turns the latest purchases off', async () => {
    await admin.goto('/admin/settings');
    await admin.getByLabel('Последние покупки').uncheck();
    await admin.getByRole('button', { name: 'Сохранить виджеты' }).click();
    await admin.getByText('Настройки главной сохранены').waitFor();
    const guest = await site.newPage();
    const answer = guest.waitForResponse((r) => r.url().endsWith('/api/home/showcase'));
    await guest.goto('/');
    expect(await (await answer).json()).toMatchObject({ recent_purchases: null });
    await guest.getByTestId('home-servers').waitFor();
    expect(await guest.getByTestId('recent-purchases').count()).toBe(0);
  });
});
