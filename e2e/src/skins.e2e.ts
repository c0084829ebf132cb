import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blank, fill, toPng, type Colour } from '../../testing/skin-images.ts';
import { errorBeside, loginUi, registerAndConfirm, see, seeErrorBeside, startSite, toast, until, type Site } from './harness.ts';

const BODY: Colour = [230, 20, 230, 255];
const FACE: Colour = [20, 200, 220, 255];

/** A wide-armed 64×64 skin: every base-layer region magenta, the face cyan, no outer layer. */
async function magentaSkin(): Promise<Buffer> {
  const img = blank(64, 64);
  fill(img, 0, 0, 32, 16, BODY);
  fill(img, 0, 16, 56, 16, BODY);
  fill(img, 16, 48, 32, 16, BODY);
  fill(img, 8, 8, 8, 8, FACE);
  return toPng(img);
}

/**
 * Counts the pixels of the WebGL preview that look magenta (the uploaded skin) or green (the
 * default skin's shirt), lit or shaded. The viewer keeps its drawing buffer, so the canvas can be read.
 */
function previewPixels(page: Page, colour: 'magenta' | 'green'): Promise<number> {
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
      if (colour === 'magenta' ? r > 90 && b > 90 && gr * 2.5 < Math.min(r, b) : gr > 80 && gr > r * 1.8 && gr > b * 1.3) n++;
    }
    return n;
  }, colour);
}

/** The colour in the middle of the header avatar, read from the image the browser shows. */
function avatarCentre(page: Page): Promise<number[] | null> {
  return page.evaluate(() => {
    const img = document.querySelector<HTMLImageElement>('.profile-button img[data-testid="avatar"]');
    if (!img || !img.complete || img.naturalWidth === 0) return null;
    const c = document.createElement('canvas');
    c.width = img.naturalWidth;
    c.height = img.naturalHeight;
    const g = c.getContext('2d')!;
    g.drawImage(img, 0, 0);
    return [...g.getImageData(Math.floor(c.width / 2) - 1, Math.floor(c.height / 2) + 2, 1, 1).data];
  });
}

describe('skins and the profile in the browser', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(async () => {
    await site?.stop();
  });

  it('loads the 3D viewer only on the profile, as a chunk of its own', async () => {
    const page = await site.newPage();
    const scripts: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
    });
    await registerAndConfirm(site, page, 'Viewer_1');
    await loginUi(page, 'Viewer_1');
    await page.goto('/');
    await page.waitForLoadState('networkidle');
    expect(scripts.some((s) => /skinview3d/.test(s))).toBe(false);
    await page.goto('/profile');
    await page.locator('[data-testid="skin-canvas"]').waitFor();
    await until(async () => scripts.some((s) => /skinview3d/.test(s)), Boolean, 'skinview3d chunk requested');
  });

  it('upload → the WebGL preview shows the skin → the header avatar changes', async () => {
    const page = await site.newPage();
    await registerAndConfirm(site, page, 'Skinner');
    await loginUi(page, 'Skinner');
    await page.getByTestId('header-username').click();
    await page.getByRole('menuitem', { name: 'Личный кабинет' }).click();
    await page.waitForURL('**/profile');
    await page.getByRole('heading', { name: 'Личный кабинет', level: 1 }).waitFor();
    expect(await page.title()).toBe('Личный кабинет — Kubik');

    // Information tab: role, balance, the avatar from the head endpoint.
    await page.getByRole('tab', { name: 'Информация', selected: true }).waitFor();
    expect(await page.getByTestId('profile-username').textContent()).toBe('Skinner');
    await see(page, 'Пользователь');
    expect(await page.getByTestId('profile-balance').textContent()).toBe('0\u00a0₽');
    expect(await page.locator('.profile-info img').getAttribute('src')).toMatch(/^\/api\/user\/head\?size=192/);

    // The default skin first: a preview with no magenta in it.
    const canvas = page.locator('[data-testid="skin-canvas"]');
    await canvas.waitFor();
    await page.waitForFunction(() => !document.querySelector('.skin-viewer[aria-busy="true"]'));
    const box = await canvas.boundingBox();
    expect([Math.round(box!.width), Math.round(box!.height)]).toEqual([180, 270]);
    await until(
      () => previewPixels(page, 'green'),
      (n) => n > 300,
      'the default skin in the WebGL preview',
    );
    expect(await previewPixels(page, 'magenta')).toBe(0);
    const headerBefore = await until(
      () => avatarCentre(page),
      (v) => v !== null,
      'header avatar loaded',
    );
    const srcBefore = await page.locator('.profile-button img').getAttribute('src');

    const upload = page.getByRole('button', { name: 'Загрузить скин' });
    expect(await upload.isDisabled()).toBe(true);
    await see(page, 'Файл не выбран');
    await page.getByLabel('Файл скина (PNG)').setInputFiles({ name: 'magenta.png', mimeType: 'image/png', buffer: await magentaSkin() });
    await see(page, 'Выбран файл: magenta.png');
    expect(await upload.isEnabled()).toBe(true);
    await upload.click();
    await toast(page, 'success', 'Скин успешно загружен!');
    await see(page, 'Файл не выбран');

    const magenta = await until(
      () => previewPixels(page, 'magenta'),
      (n) => n > 500,
      'magenta in the WebGL preview',
    );
    expect(magenta).toBeGreaterThan(500);

    const srcAfter = await until(
      () => page.locator('.profile-button img').getAttribute('src'),
      (s) => s !== srcBefore,
      'header avatar URL changed',
    );
    expect(srcAfter).toMatch(/[?&]v=[0-9a-f]{16}/);
    const headerAfter = await until(
      () => avatarCentre(page),
      (v) => v !== null && v[0] === FACE[0] && v[1] === FACE[1] && v[2] === FACE[2],
      'header avatar shows the new face',
    );
    expect(headerAfter).not.toEqual(headerBefore);

    // The skin keeps its detected model; switching it is saved for the game.
    expect(await page.getByRole('radio', { name: 'Обычные (4 пикселя)' }).isChecked()).toBe(true);
    await page.getByRole('radio', { name: 'Тонкие (3 пикселя)' }).check();
    await toast(page, 'success', 'Модель сохранена');
    const info = await page.evaluate(() => fetch('/api/user/skin').then((r) => r.json()));
    expect(info).toMatchObject({ custom: true, model: 'slim' });

    // After a reload the avatar asks for the same versioned URL and the preview still shows the skin.
    await page.reload();
    await until(
      () => previewPixels(page, 'magenta'),
      (n) => n > 500,
      'magenta after reload',
    );
    expect(await page.getByRole('radio', { name: 'Тонкие (3 пикселя)' }).isChecked()).toBe(true);
  });

  it('takes only PNG files and explains a refused upload', async () => {
    const page = await site.newPage();
    await registerAndConfirm(site, page, 'Picky');
    await loginUi(page, 'Picky');
    // The rest on a 360 px phone (the header hides the name there, so log in first).
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto('/profile');
    const input = page.getByLabel('Файл скина (PNG)');
    await input.setInputFiles({ name: 'photo.jpg', mimeType: 'image/jpeg', buffer: Buffer.from([0xff, 0xd8, 0xff, 0xe0]) });
    await seeErrorBeside(input, 'Пожалуйста, выберите PNG-файл.');
    await see(page, 'Файл не выбран');
    expect(await page.getByRole('button', { name: 'Загрузить скин' }).isDisabled()).toBe(true);

    const odd = await toPng(fill(blank(65, 64), 0, 0, 65, 64, BODY));
    await input.setInputFiles({ name: 'odd.png', mimeType: 'image/png', buffer: odd });
    await page.getByRole('button', { name: 'Загрузить скин' }).click();
    await seeErrorBeside(input, /^Ошибка загрузки скина\. Неподходящий размер скина: 65×64\./);
    await see(page, 'Выбран файл: odd.png');
    // Nothing covers the form on the phone: the refusal is beside the field, not in a toast.
    expect(await page.locator('.toast[data-type="danger"]').count()).toBe(0);
    // A new pick clears it.
    await input.setInputFiles({ name: 'skin.png', mimeType: 'image/png', buffer: await magentaSkin() });
    await until(
      () => errorBeside(input),
      (shown) => shown === null,
      'the refusal cleared by a new pick',
    );

    // Layer switches, back equipment and the pose buttons are ordinary, labelled controls.
    await page.getByRole('checkbox', { name: 'Второй слой (шапка, куртка)' }).uncheck();
    await page.getByLabel('На спине').selectOption('elytra');
    await page.getByRole('button', { name: 'Повернуть вправо' }).click();
    await page.getByRole('button', { name: 'Сбросить позу' }).click();
    expect(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)).toBe(false);
  });

  it('changes the password for real and ends the other sessions', async () => {
    const page = await site.newPage();
    await registerAndConfirm(site, page, 'Changer');
    await loginUi(page, 'Changer');
    const other = await site.newPage();
    await loginUi(other, 'Changer');

    await page.goto('/profile');
    await page.getByRole('tab', { name: 'Настройки' }).click();
    await page.getByRole('heading', { name: 'Смена пароля' }).waitFor();
    // Its own «Сохранить»: the privacy panel on the same tab has one too.
    const section = page.getByRole('region', { name: 'Смена пароля' });
    const form = {
      old: page.getByLabel('Текущий пароль'),
      next: page.getByLabel('Новый пароль', { exact: true }),
      repeat: page.getByLabel('Повторите новый пароль'),
      save: section.getByRole('button', { name: 'Сохранить' }),
    };
    await form.old.fill('kubik-pass-42');
    await form.next.fill('short');
    await form.repeat.fill('short');
    await form.save.click();
    await see(page, 'Пароль должен быть не короче 8 символов');
    await form.next.fill('brand-new-pass');
    await form.repeat.fill('brand-new-typo');
    await form.save.click();
    await see(page, 'Пароли не совпадают');

    await form.old.fill('not-my-password');
    await form.repeat.fill('brand-new-pass');
    await form.save.click();
    // Beside its field, not in a toast over the form.
    await seeErrorBeside(form.old, 'Текущий пароль указан неверно');
    expect(await page.locator('.toast[data-type="danger"]').count()).toBe(0);

    await form.old.fill('kubik-pass-42');
    await form.save.click();
    await toast(page, 'success', 'Пароль изменён. Другие сеансы завершены.');
    expect(await form.old.inputValue()).toBe('');

    expect(await other.evaluate(() => fetch('/api/user/me').then((r) => r.status))).toBe(401);
    expect(await page.evaluate(() => fetch('/api/user/me').then((r) => r.status))).toBe(200);
    const login = (password: string) =>
      other.evaluate(
        (password) =>
          fetch('/api/user/login', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ username: 'Changer', password }),
          }).then((r) => r.status),
        password,
      );
    expect(await login('kubik-pass-42')).toBe(401);
    expect(await login('brand-new-pass')).toBe(200);
  }, 120_000);
});
