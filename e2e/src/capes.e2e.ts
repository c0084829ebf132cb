import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blank, fill, toPng } from '../../testing/skin-images.ts';
import { loginUi, registerAndConfirm, see, seeErrorBeside, startSite, toast, until, type Site } from './harness.ts';

/** A 64×32 cape: the cape itself (x 0–21, y 0–16) bright yellow, the elytra wings' part (x 22–45, y 0–21) cyan. */
async function yellowCape(): Promise<Buffer> {
  const img = fill(blank(64, 32), 0, 0, 22, 17, [255, 220, 0, 255]);
  return toPng(fill(img, 22, 0, 24, 22, [0, 220, 255, 255]));
}

/** Pixels of the WebGL preview that look like the yellow cape, or the cyan wings (lit or shaded). */
function previewPixels(page: Page, colour: 'yellow' | 'cyan'): Promise<number> {
  return page.evaluate((colour) => {
    const gl = document.querySelector<HTMLCanvasElement>('[data-testid="skin-canvas"]');
    if (!gl || gl.width === 0) return 0;
    const c = document.createElement('canvas');
    c.width = gl.width;
    c.height = gl.height;
    const g = c.getContext('2d')!;
    g.drawImage(gl, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) {
      const [r, gr, b, a] = [d[i]!, d[i + 1]!, d[i + 2]!, d[i + 3]!];
      if (a < 200) continue;
      if (colour === 'yellow' ? r > 90 && gr > r * 0.6 && b * 3 < gr : b > 90 && gr > b * 0.6 && r * 3 < gr) n++;
    }
    return n;
  }, colour);
}

describe('capes in the browser', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(async () => {
    await site?.stop();
  });

  it('the admin uploads a cape and gives it to a player, who picks it and sees it in the 3D preview', async () => {
    const player = await site.newPage();
    await registerAndConfirm(site, player, 'Caped');

    site.createAdmin('CapeAdmin', 'cape-admin@example.com', 'admin-password-1');
    const admin = await site.newPage();
    await loginUi(admin, 'CapeAdmin', 'admin-password-1');
    await admin.goto('/admin/capes');
    await see(admin, 'Плащей пока нет');
    await admin.getByRole('button', { name: 'Загрузить плащ' }).click();
    // A file that is not a cape is refused next to the file field.
    await admin.getByLabel('Название').fill('Солнце');
    await admin
      .getByLabel('Файл плаща (PNG)')
      .setInputFiles({ name: 'square.png', mimeType: 'image/png', buffer: await toPng(blank(64, 64)) });
    await admin.getByRole('button', { name: 'Загрузить', exact: true }).click();
    await seeErrorBeside(admin.getByLabel('Файл плаща (PNG)'), /^Неподходящий размер плаща: 64×64\./);
    await admin.getByLabel('Файл плаща (PNG)').setInputFiles({ name: 'sun.png', mimeType: 'image/png', buffer: await yellowCape() });
    await admin.getByRole('button', { name: 'Загрузить', exact: true }).click();
    await toast(admin, 'success', 'Плащ загружен: «Солнце»');
    await see(admin, 'Никому');

    await admin.getByRole('button', { name: 'Изменить плащ «Солнце»' }).click();
    // A player the site does not know is refused beside the name.
    await admin.getByLabel('Имя игрока').fill('Nobody');
    await admin.getByRole('button', { name: 'Выдать', exact: true }).click();
    await seeErrorBeside(admin.getByLabel('Имя игрока'), 'Игрок не найден');
    await admin.getByLabel('Имя игрока').fill('Caped');
    await admin.getByRole('button', { name: 'Выдать', exact: true }).click();
    await toast(admin, 'success', 'Плащ выдан игроку Caped');
    await see(admin, 'игрок Caped');

    await loginUi(player, 'Caped');
    await player.goto('/profile');
    const canvas = player.locator('[data-testid="skin-canvas"]');
    await canvas.waitFor();
    await player.waitForFunction(() => !document.querySelector('.skin-viewer[aria-busy="true"]'));
    expect(await player.getByRole('radio', { name: 'Без плаща' }).isChecked()).toBe(true);
    // Turned round, with nothing on the back: no yellow.
    for (let i = 0; i < 6; i++) await player.getByRole('button', { name: 'Повернуть влево' }).click();
    expect(await previewPixels(player, 'yellow')).toBe(0);

    await player.getByRole('radio', { name: 'Солнце' }).check();
    await toast(player, 'success', 'Плащ выбран: «Солнце»');
    await until(
      () => previewPixels(player, 'yellow'),
      (n) => n > 300,
      'the yellow cape on the back of the preview',
    );
    expect(await player.getByLabel('На спине').inputValue()).toBe('cape');
    expect(await previewPixels(player, 'cyan')).toBe(0);

    // As elytra: the wings drawn from the same texture's elytra part, and no cape.
    await player.getByLabel('На спине').selectOption('elytra');
    await until(
      () => previewPixels(player, 'cyan'),
      (n) => n > 100,
      'the elytra part of the texture on the wings',
    );
    await until(
      () => previewPixels(player, 'yellow'),
      (n) => n === 0,
      'no cape while elytra are on',
    );

    // The choice is saved: after a reload the cape is still chosen, and «Без плаща» takes it off.
    await player.reload();
    await player.getByRole('radio', { name: 'Солнце' }).waitFor();
    expect(await player.getByRole('radio', { name: 'Солнце' }).isChecked()).toBe(true);
    await player.getByRole('radio', { name: 'Без плаща' }).check();
    await toast(player, 'success', 'Плащ снят');
    const mine = await player.evaluate(async () => (await fetch('/api/user/capes')).json());
    expect(mine).toMatchObject({ selected: null, capes: [{ title: 'Солнце' }] });
  });

  it('/help shows how to point a launcher at the site', async () => {
    const page = await site.newPage();
    await page.goto('/help');
    await page.getByRole('heading', { name: 'Вход в лаунчере' }).waitFor();
    expect(await page.getByTestId('yggdrasil-url').textContent()).toBe(`${site.url}/api/yggdrasil/`);
    const link = page.getByRole('link', { name: 'эту ссылку' });
    expect(await link.getAttribute('href')).toBe(`authlib-injector:yggdrasil-server:${encodeURIComponent(`${site.url}/api/yggdrasil/`)}`);
    // GravitLauncher's part only when the site has GRAVIT_SECRET.
    expect(await page.getByTestId('gravit-config').count()).toBe(0);
  });
});
