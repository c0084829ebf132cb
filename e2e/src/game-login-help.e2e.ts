import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSite, type Site } from './harness.ts';

describe('/help «Вход в игру» for players and server owners', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite({ GRAVIT_SECRET: 'a-long-enough-secret-for-gravit' });
  });
  afterAll(async () => {
    await site?.stop();
  });

  it('names the launchers, the 2FA login, and what a server owner sets — and fits a 360 px phone', async () => {
    const page = await site.newPage({ width: 360, height: 740 });
    await page.goto('/help');
    await page.getByRole('heading', { name: 'Какие лаунчеры подходят' }).waitFor();
    const launchers = await page.getByTestId('launchers').innerText();
    expect(launchers).toContain('HMCL');
    expect(launchers).toContain('Fjord Launcher');
    expect(launchers).toContain('GravitLauncher');
    expect(await page.getByTestId('two-factor-login').innerText()).toContain('пароль:123456');

    const api = `${site.url}/api/yggdrasil/`;
    expect(await page.getByTestId('javaagent-line').textContent()).toBe(`-javaagent:authlib-injector.jar=${api}`);
    const setup = await page.getByTestId('server-setup').innerText();
    expect(setup).toContain('enforce-secure-profile=true');
    expect(setup).toContain('online-mode=true');
    expect(setup).toContain(`java -javaagent:authlib-injector.jar=${api} -jar server.jar nogui`);

    // Nothing sticks out sideways on a phone: the long addresses wrap.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });

  it('the game server line can be copied', async () => {
    const page = await site.newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url });
    await page.goto('/help');
    await page.getByRole('button', { name: 'Копировать параметр запуска' }).click();
    await page.getByRole('button', { name: 'Копировать параметр запуска' }).filter({ hasText: 'Скопировано' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`-javaagent:authlib-injector.jar=${site.url}/api/yggdrasil/`);
  });
});
