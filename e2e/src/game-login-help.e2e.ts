import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, loginUi, startSite, type Site } from './harness.ts';

describe('/help tells a player what to do; the owner’s server setup is in the admin area', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite({ GRAVIT_SECRET: 'a-long-enough-secret-for-gravit' });
    const owner = await site.newPage();
    await loginUi(owner, 'Founder', 'founder-password-42');
    expect((await callApi(owner, 'PUT', '/api/admin/settings', { game_address: 'play.kubik.test' })).status).toBe(200);
  });
  afterAll(async () => {
    await site?.stop();
  });

  it('a player on a 360 px phone: the steps, the launchers, the 2FA login — and nothing for server owners', async () => {
    const page = await site.newPage({ width: 360, height: 740 });
    await page.goto('/help');
    const steps = page.getByTestId('start-steps');
    await steps.getByRole('heading', { name: 'Как начать играть' }).waitFor();
    await steps.getByRole('link', { name: 'Зарегистрируйтесь' }).waitFor();
    expect(await steps.getByTestId('help-game-address').textContent()).toBe('play.kubik.test');
    await page.getByRole('heading', { name: 'Какие лаунчеры подходят' }).waitFor();
    const launchers = await page.getByTestId('launchers').innerText();
    expect(launchers).toContain('HMCL');
    expect(launchers).toContain('Fjord Launcher');
    expect(launchers).toContain('GravitLauncher');
    expect(await page.getByTestId('two-factor-login').innerText()).toContain('пароль:123456');
    expect(await page.getByTestId('yggdrasil-url').textContent()).toBe(`${site.url}/api/yggdrasil/`);

    // No launcher of the server's own yet: where to get one, not «ссылки не опубликованы» above «скачивайте только здесь».
    const launcher = page.getByTestId('launcher-section');
    await launcher.getByTestId('other-launchers').getByRole('link', { name: 'HMCL' }).waitFor();
    expect(await launcher.innerText()).not.toContain('не опубликованы');

    // The owners' setup is not a player's business.
    const text = await page.locator('main').innerText();
    for (const owners of ['-javaagent', 'server.properties', 'BungeeCord', 'Velocity', 'LaunchServer', 'online-mode'])
      expect(text, owners).not.toContain(owners);
    expect(await page.getByTestId('server-setup').count()).toBe(0);

    // Nothing sticks out sideways on a phone: the long addresses wrap.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });

  it('the owner finds the server setup in Админ-панель → Вход в игру, and copies the launch line', async () => {
    const page = await site.newPage({ width: 360, height: 740 });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url });
    await loginUi(page, 'Founder', 'founder-password-42');
    await page.goto('/admin/game-login');
    const api = `${site.url}/api/yggdrasil/`;
    expect(await page.getByTestId('javaagent-line').textContent()).toBe(`-javaagent:authlib-injector.jar=${api}`);
    const setup = await page.getByTestId('server-setup').innerText();
    expect(setup).toContain('enforce-secure-profile=true');
    expect(setup).toContain('online-mode=true');
    expect(setup).toContain(`java -javaagent:authlib-injector.jar=${api} -jar server.jar nogui`);
    expect(await page.getByTestId('gravit-config').innerText()).toContain('"type": "myhttp"');
    await page.getByRole('button', { name: 'Скопировать: параметр запуска' }).click();
    await page.getByRole('button', { name: 'Скопировано: параметр запуска' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`-javaagent:authlib-injector.jar=${api}`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
});
