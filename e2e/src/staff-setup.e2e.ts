import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultStatus, StatusPeer } from '../../testing/minecraft-status-peer.ts';
import { callApi, loginUi, registerAndConfirm, see, startSite, toast, until, type Site } from './harness.ts';

describe('first-run setup', () => {
  let site: Site;
  let peer: StatusPeer;
  beforeAll(async () => {
    peer = await new StatusPeer({ status: defaultStatus(4, 20) }).start();
    site = await startSite({}, { fresh: true });
  }, 120_000);
  afterAll(async () => {
    await site?.stop();
    await peer?.stop();
  });

  it('a fresh site leads every page to /setup; the code from the data dir creates the owner, once', async () => {
    const page = await site.newPage({ width: 360, height: 740 });
    await page.goto('/servers');
    await page.waitForURL('**/setup');
    await page.getByRole('heading', { name: 'Первый запуск' }).waitFor();

    // A wrong code is refused beside its field.
    await page.getByLabel('Код из журнала сервера').fill('WRONGWRONG22');
    await page.getByLabel('Название сайта').fill('Кубик Тест');
    await page.getByLabel('Адрес игрового сервера').fill('play.kubik.test');
    await page.getByLabel('Имя владельца').fill('Founder');
    await page.getByLabel('Почта').fill('founder@example.com');
    await page.getByLabel('Пароль', { exact: true }).fill('founder-password-42');
    // The optional first server: a game server answering status pings (the status double).
    await page.getByLabel('Добавить первый игровой сервер').check();
    await page.getByLabel('Название сервера').fill('Выживание');
    await page.getByLabel('Адрес сервера (хост)').fill('127.0.0.1');
    await page.getByLabel('Порт', { exact: true }).fill(String(peer.port));
    await page.getByLabel('Пароль RCON').fill('rcon-secret-1');
    await page.getByRole('button', { name: 'Создать владельца и открыть сайт' }).click();
    await see(page, /Неверный код/);
    expect(await page.getByLabel('Код из журнала сервера').getAttribute('aria-invalid')).toBe('true');

    const code = readFileSync(path.join(site.dataDir, 'setup-code'), 'utf8').trim();
    await page.getByLabel('Код из журнала сервера').fill(code);
    await page.getByRole('button', { name: 'Создать владельца и открыть сайт' }).click();
    await page.waitForURL('**/admin**');
    await toast(page, 'success', 'Сайт настроен. Добро пожаловать в админ-панель!');
    await page.getByRole('heading', { name: 'Админ-панель' }).waitFor();

    // Setup is over: pages open, both calls refuse, the site has its name.
    const guest = await site.newPage();
    await guest.goto('/servers');
    expect(new URL(guest.url()).pathname).toBe('/servers');
    // The first server was checked at once: it is listed online with the double's players.
    const listed = await until(
      async () => ((await callApi(guest, 'GET', '/api/servers/')).json as { servers: { name: string; status: string }[] }).servers,
      (list) => list[0]?.status === 'online',
      'the first server online',
    );
    expect(listed.map((s) => s.name)).toEqual(['Выживание']);
    await guest.getByRole('link', { name: 'Кубик Тест — на главную' }).waitFor();
    expect((await callApi(guest, 'GET', '/api/setup')).json).toEqual({ needed: false });
    const again = await callApi(guest, 'POST', '/api/setup', {
      code,
      username: 'Thief',
      email: 'thief@example.com',
      password: 'thief-password-42',
      site_name: 'Чужой',
    });
    expect(again.status).toBe(409);
    await guest.goto('/setup');
    await guest.getByRole('heading', { name: 'Сайт уже настроен' }).waitFor();
  }, 180_000);
});

describe('a moderator', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite();
  }, 120_000);
  afterAll(async () => {
    await site?.stop();
  });

  it('sees only players and bans in the admin area; the rest is closed to them', async () => {
    const player = await site.newPage();
    await registerAndConfirm(site, player, 'Moder');
    await registerAndConfirm(site, player, 'Cheater');

    // The owner makes a «Модератор» role and gives it to Moder.
    const owner = await site.newPage();
    await loginUi(owner, 'Founder', 'founder-password-42');
    await owner.goto('/admin/staff');
    await owner.getByRole('button', { name: 'Новая роль' }).click();
    const dialog = owner.getByRole('dialog');
    await dialog.getByLabel('Название').fill('Модератор');
    await dialog.getByLabel('Игроки: просмотр').check();
    await dialog.getByLabel('Блокировки').check();
    await dialog.getByRole('button', { name: 'Сохранить' }).click();
    await toast(owner, 'success', 'Роль создана');
    await owner.getByLabel('Имя игрока').fill('Moder');
    await owner.getByRole('button', { name: 'Назначить' }).click();
    await toast(owner, 'success', 'Moder теперь сотрудник');

    const moder = await site.newPage({ width: 360, height: 740 });
    await loginUi(moder, 'Moder');
    await moder.goto('/admin');
    // The overview needs payments: the moderator lands on the first screen they may use.
    await moder.waitForURL('**/admin/users');
    await moder.getByRole('button', { name: /^Разделы/ }).click();
    const menu = moder.getByRole('navigation', { name: 'Разделы админ-панели' });
    const links = await menu.getByRole('link').allTextContents();
    expect(links).toEqual(['Пользователи', 'Баны на сайте']);
    await see(moder, 'Ваша роль: Модератор');

    // Other screens send them back; the API refuses them too.
    await moder.goto('/admin/payments');
    await moder.waitForURL('**/admin/users');
    expect((await callApi(moder, 'GET', '/api/admin/payments')).status).toBe(403);
    expect((await callApi(moder, 'GET', '/api/admin/settings')).status).toBe(403);
    expect((await callApi(moder, 'POST', '/api/admin/roles', { name: 'Всё', permissions: ['settings'] })).status).toBe(403);
    const me = (await callApi(moder, 'GET', '/api/user/me')).json as { permissions: string[] };
    expect(me.permissions).toEqual(['players.view', 'bans']);

    // The moderator bans the cheater through the API the user card uses.
    const list = (await callApi(moder, 'GET', '/api/user/all?q=Cheater')).json as { users: { id: number; username: string }[] };
    const cheater = list.users.find((u) => u.username === 'Cheater')!;
    expect((await callApi(moder, 'POST', `/api/admin/users/${cheater.id}/ban`, { note: 'Читы', until: null })).status).toBe(200);
    // …but cannot change anyone's balance.
    expect((await callApi(moder, 'POST', `/api/admin/users/${cheater.id}/balance`, { amount: 100, comment: 'подарок' })).status).toBe(403);
  }, 240_000);
});
