import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultStatus, StatusPeer } from '../../testing/minecraft-status-peer.ts';
import { confirmDialog, loginUi, see, startSite, toast, type Site } from './harness.ts';

async function noHorizontalScroll(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

describe('servers in the browser', () => {
  let site: Site;
  let peer: StatusPeer;
  let closedPort: number;
  let token: string;

  const apiCall = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${site.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  /** Waits until the monitor (every second here) has settled every server's status. */
  const waitForStatuses = async (want: Record<string, string>) => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const { json } = await apiCall('GET', '/api/servers/');
      const servers = json.servers as { name: string; status: string }[];
      if (Object.entries(want).every(([name, status]) => servers.find((s) => s.name === name)?.status === status)) return;
      if (Date.now() > deadline) throw new Error(`statuses not reached: ${JSON.stringify(servers.map((s) => [s.name, s.status]))}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  beforeAll(async () => {
    peer = await new StatusPeer({ status: defaultStatus(5, 50, { text: '§aКубик', extra: [' — выживание'] }) }).start();
    const gone = await new StatusPeer({ mode: 'close' }).start();
    closedPort = gone.port;
    await gone.stop();
    site = await startSite({ MONITOR_INTERVAL_SEC: '1', MONITOR_TIMEOUT_MS: '500' }, { fresh: true });
    site.createAdmin('Owner', 'owner@example.com', 'owner-password');
    const login = await fetch(`${site.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'Owner', password: 'owner-password', bearer: true }),
    });
    token = ((await login.json()) as { token: string }).token;
    expect(
      (
        await apiCall('POST', '/api/servers/', {
          name: 'Выживание',
          description: 'Ванильное выживание без приватов',
          ip_address: '127.0.0.1',
          port: peer.port,
          max_online: 50,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await apiCall('POST', '/api/servers/', {
          name: 'Мини-игры',
          description: 'Скоро откроемся',
          ip_address: '127.0.0.1',
          port: closedPort,
          max_online: 80,
        })
      ).status,
    ).toBe(201);
  });
  afterAll(async () => {
    await site?.stop();
    await peer?.stop();
  });

  it('a visitor sees an online and an offline server, with the total on the home page, also on a phone', async () => {
    await waitForStatuses({ Выживание: 'online', 'Мини-игры': 'offline' });

    const page = await site.newPage();
    await page.goto('/servers');
    await page.getByRole('heading', { name: 'Список серверов', level: 1 }).waitFor();
    expect(await page.title()).toBe('Список серверов — Kubik');
    await see(page, /Мониторинг наших игровых серверов/);
    const survival = page.getByTestId('server-card').filter({ hasText: 'Выживание' });
    await survival.getByText('Онлайн: 5 / 50').waitFor();
    await survival.getByText('Ванильное выживание без приватов').waitFor();
    expect(await survival.locator('.srv-dot-online').count()).toBe(1);
    expect(await survival.getByRole('img', { name: /Выживание: онлайн за сутки, пик 5/ }).count()).toBe(1);
    await survival.getByText(`127.0.0.1:${peer.port}`).waitFor();
    const minigames = page.getByTestId('server-card').filter({ hasText: 'Мини-игры' });
    await minigames.getByText('Оффлайн').waitFor();
    expect(await minigames.locator('.srv-dot-offline').count()).toBe(1);
    expect(await minigames.getByText(/Онлайн:/).count()).toBe(0);

    await page.getByRole('navigation', { name: 'Основная навигация' }).getByRole('link', { name: 'Главная' }).click();
    await page.getByTestId('total-online').getByText('5').waitFor();
    expect(await page.getByTestId('total-online').textContent()).toContain('Сейчас играют: 5 игроков');

    const phone = await site.newPage({ width: 360, height: 740 });
    await phone.goto('/servers');
    await phone.getByText('Онлайн: 5 / 50').waitFor();
    expect(await noHorizontalScroll(phone)).toBe(true);
  });

  it('shows the load error and an empty list when the list cannot be loaded', async () => {
    const page = await site.newPage();
    await page.route('**/api/servers/', (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"Внутренняя ошибка сервера"}' }),
    );
    // On the way from another page: a guest who opens /servers itself gets it drawn by the
    // server with the list inside (prerender.e2e.ts), and asks the API for nothing.
    await page.goto('/rules');
    await page.getByRole('navigation', { name: 'Основная навигация' }).getByRole('link', { name: 'Серверы' }).click();
    await toast(page, 'danger', 'Ошибка загрузки серверов');
    expect(await page.getByTestId('server-card').count()).toBe(0);
  });

  it('an admin adds, inspects, edits, refreshes and deletes a server', async () => {
    const page = await site.newPage();
    await loginUi(page, 'Owner', 'owner-password');
    await page.goto('/admin/servers');
    await page.getByRole('heading', { name: 'Серверы', level: 2 }).waitFor();
    await page.getByRole('cell', { name: 'Выживание', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Добавить сервер' }).click();
    const dialog = page.getByRole('dialog', { name: 'Новый сервер' });
    expect(await dialog.getByLabel('Порт', { exact: true }).inputValue()).toBe('25565');
    expect(await dialog.getByLabel('Максимальный онлайн').inputValue()).toBe('100');
    expect(await dialog.getByLabel('Название').inputValue()).toBe('');
    // Checked in the browser with the server's own rules, before any request.
    await dialog.getByRole('button', { name: 'Сохранить' }).click();
    await dialog.getByText('Введите название сервера').waitFor();
    await dialog.getByText('Введите описание сервера').waitFor();

    await dialog.getByLabel('Название').fill('Скайблок');
    await dialog.getByLabel('Описание').fill('Остров в небе и ничего лишнего');
    await dialog.getByLabel('IP-адрес или домен').fill('127.0.0.1');
    await dialog.getByLabel('Порт', { exact: true }).fill('70000');
    await dialog.getByRole('button', { name: 'Сохранить' }).click();
    await dialog.getByText('Порт — целое число от 1 до 65535').first().waitFor();
    await dialog.getByLabel('Порт', { exact: true }).fill(String(peer.port));
    await dialog.getByLabel('Максимальный онлайн').fill('30');
    await dialog.getByLabel('Пароль RCON', { exact: true }).fill('rcon-secret-1');
    await dialog.getByRole('button', { name: 'Сохранить' }).click();
    await toast(page, 'success', 'Сервер добавлен');
    await dialog.waitFor({ state: 'hidden' });
    const row = page.getByRole('row').filter({ hasText: 'Скайблок' });
    await row.waitFor();

    // The '...' panel: details, closing on an outside click.
    await row.getByRole('button', { name: 'Действия с сервером «Скайблок»' }).click();
    const panel = row.locator('.dropdown-panel');
    await panel.getByText('127.0.0.1', { exact: true }).waitFor();
    expect(await panel.textContent()).toContain(String(peer.port));
    expect(await panel.textContent()).toContain('Остров в небе');
    expect(await panel.textContent()).toMatch(/RCON\s*настроен/);
    await page.getByRole('heading', { name: 'Серверы', level: 2 }).click();
    await panel.waitFor({ state: 'hidden' });

    await row.getByRole('button', { name: 'Действия с сервером «Скайблок»' }).click();
    await panel.getByRole('button', { name: 'Изменить' }).click();
    const edit = page.getByRole('dialog', { name: 'Изменить сервер' });
    expect(await edit.getByLabel('Название').inputValue()).toBe('Скайблок');
    expect(await edit.getByLabel('Пароль RCON', { exact: true }).inputValue()).toBe('');
    await edit.getByText('Пароль задан. Оставьте поле пустым, чтобы не менять его.').waitFor();
    await edit.getByLabel('Название').fill('Скайблок 2');
    // «Отмена» with typed text asks first, in the site's own dialog; staying keeps the text.
    await edit.getByRole('button', { name: 'Отмена' }).click();
    const ask = page.getByRole('dialog', { name: 'Уйти без сохранения?' });
    await ask.getByRole('button', { name: 'Остаться' }).click();
    await ask.waitFor({ state: 'detached' });
    expect(await edit.getByLabel('Название').inputValue()).toBe('Скайблок 2');
    await edit.getByRole('button', { name: 'Отмена' }).click();
    await ask.getByRole('button', { name: 'Не сохранять' }).click();
    await edit.waitFor({ state: 'hidden' });
    await row.getByRole('button', { name: 'Действия с сервером «Скайблок»' }).click();
    await panel.getByRole('button', { name: 'Изменить' }).click();
    await edit.getByLabel('Название').fill('Скайблок 2');
    await edit.getByRole('button', { name: 'Сохранить' }).click();
    await toast(page, 'success', 'Сервер обновлён');
    const renamed = page.getByRole('row').filter({ hasText: 'Скайблок 2' });
    await renamed.waitFor();
    const admin = await apiCall('GET', '/api/servers/admin');
    expect(JSON.stringify(admin.json)).not.toContain('rcon-secret-1');
    expect(
      (admin.json.servers as { name: string; has_rcon_password: boolean }[]).find((s) => s.name === 'Скайблок 2')?.has_rcon_password,
    ).toBe(true);

    await page.getByRole('button', { name: 'Обновить статусы' }).click();
    await renamed.getByText('Онлайн', { exact: true }).waitFor();
    await renamed.getByRole('cell', { name: '5', exact: true }).waitFor();

    // Failures show the spec's texts.
    await page.route('**/api/servers/monitor', (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"Внутренняя ошибка сервера"}' }),
    );
    await page.getByRole('button', { name: 'Обновить статусы' }).click();
    await toast(page, 'danger', 'Ошибка мониторинга');
    await page.unroute('**/api/servers/monitor');

    await page.route('**/api/servers/*', (route) =>
      route.request().method() === 'PUT' ? route.fulfill({ status: 500, contentType: 'application/json', body: '{}' }) : route.fallback(),
    );
    await renamed.getByRole('button', { name: 'Действия с сервером «Скайблок 2»' }).click();
    await renamed.locator('.dropdown-panel').getByRole('button', { name: 'Изменить' }).click();
    await edit.getByRole('button', { name: 'Сохранить' }).click();
    await toast(page, 'danger', 'Ошибка сохранения');
    await edit.getByRole('button', { name: 'Отмена' }).click();
    await page.unrouteAll();

    // Declining the confirmation keeps the server; accepting deletes it.
    const dialogs: string[] = [];
    await renamed.getByRole('button', { name: 'Действия с сервером «Скайблок 2»' }).click();
    await renamed.locator('.dropdown-panel').getByRole('button', { name: 'Удалить' }).click();
    dialogs.push(await confirmDialog(page, false));
    await page.waitForTimeout(300);
    expect(await renamed.count()).toBe(1);

    await page.route('**/api/servers/*', (route) =>
      route.request().method() === 'DELETE'
        ? route.fulfill({ status: 500, contentType: 'application/json', body: '{}' })
        : route.fallback(),
    );
    await renamed.getByRole('button', { name: 'Действия с сервером «Скайблок 2»' }).click();
    await renamed.locator('.dropdown-panel').getByRole('button', { name: 'Удалить' }).click();
    dialogs.push(await confirmDialog(page));
    await toast(page, 'danger', 'Ошибка удаления');
    await page.unrouteAll();

    await renamed.getByRole('button', { name: 'Действия с сервером «Скайблок 2»' }).click();
    await renamed.locator('.dropdown-panel').getByRole('button', { name: 'Удалить' }).click();
    dialogs.push(await confirmDialog(page));
    await toast(page, 'success', 'Сервер удалён');
    await renamed.waitFor({ state: 'detached' });
    expect(dialogs).toEqual(['Удалить сервер?', 'Удалить сервер?', 'Удалить сервер?']);
  });

  it('the admin screen asks for fresh statuses every 5 minutes while it is open', async () => {
    const page = await site.newPage();
    await loginUi(page, 'Owner', 'owner-password');
    await page.clock.install();
    const monitorCalls: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/servers/monitor')) monitorCalls.push(r.method());
    });
    await page.goto('/admin/servers');
    await page.getByRole('row').filter({ hasText: 'Выживание' }).waitFor();
    await page.clock.fastForward('04:50');
    expect(monitorCalls).toEqual([]);
    await page.clock.fastForward('00:15');
    await expect.poll(() => monitorCalls).toEqual(['POST']);
    await page.clock.fastForward('05:00');
    await expect.poll(() => monitorCalls).toEqual(['POST', 'POST']);
  });

  it('the admin screen works on a 360 px phone', async () => {
    const page = await site.newPage();
    await loginUi(page, 'Owner', 'owner-password');
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto('/admin/servers');
    const row = page.getByRole('row').filter({ hasText: 'Выживание' });
    await row.waitFor();
    expect(await noHorizontalScroll(page)).toBe(true);
    await row.getByRole('button', { name: 'Действия с сервером «Выживание»' }).click();
    await row.locator('.dropdown-panel').getByText('127.0.0.1', { exact: true }).waitFor();
    expect(await noHorizontalScroll(page)).toBe(true);
  });
});
