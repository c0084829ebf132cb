import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmDialog, loginUi, see, seeErrorBeside, startSite, toast, type Site } from './harness.ts';

describe('launcher builds: uploaded in the admin, offered on /help', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite({ LAUNCHER_LINUX_URL: 'https://mirror.example/Kubik.AppImage' });
  });
  afterAll(async () => {
    await site?.stop();
  });

  it('keeps the settings links, hiding one whose file is not on the disk', async () => {
    const page = await site.newPage({ width: 360, height: 740 });
    await page.goto('/help');
    await see(page, 'Linux (.AppImage) · v1.0.0');
    expect(await page.getByText('Windows (.exe)').count()).toBe(0);
    // The default Windows link's file appears: it is offered.
    mkdirSync(path.join(site.dataDir, 'downloads'), { recursive: true });
    writeFileSync(path.join(site.dataDir, 'downloads', 'KubikLauncher-1.0.0.exe'), Buffer.from('MZ'));
    await page.reload();
    await see(page, 'Windows (.exe) · v1.0.0');
  });

  it('the owner uploads a Windows build; /help shows its version, size and SHA-256 on a phone', async () => {
    site.createAdmin('LaunchOwner', 'launch-owner@example.com', 'admin-password-1');
    const admin = await site.newPage();
    await loginUi(admin, 'LaunchOwner', 'admin-password-1');
    await admin.goto('/admin/launcher');
    const card = admin.getByTestId('launcher-windows');
    await card.getByText('Загрузить файл').click();
    await card.getByLabel('Версия').first().fill('2.0.1');
    // A file of another kind is refused as it is picked.
    await card
      .getByLabel('Файл лаунчера (.exe)')
      .setInputFiles({ name: 'setup.msi', mimeType: 'application/octet-stream', buffer: Buffer.from('x') });
    await seeErrorBeside(card.getByLabel('Файл лаунчера (.exe)'), 'Для Windows нужен файл .exe');
    const file = Buffer.concat([Buffer.from('MZ'), randomBytes(Math.round(1.5 * 1024 * 1024))]);
    const sha = createHash('sha256').update(file).digest('hex');
    await card
      .getByLabel('Файл лаунчера (.exe)')
      .setInputFiles({ name: 'Kubik Setup 2.0.1.exe', mimeType: 'application/octet-stream', buffer: file });
    await card.getByRole('button', { name: 'Загрузить' }).click();
    await toast(admin, 'success', 'Файл лаунчера загружен: Windows');
    await card
      .getByText(/Файл Kubik-Setup-2\.0\.1\.exe · 1,5 МБ · версия 2\.0\.1/)
      .first()
      .waitFor();

    const page = await site.newPage({ width: 360, height: 740 });
    await page.goto('/help');
    await see(page, 'Windows (.exe) · 2.0.1');
    const item = page.locator('[data-platform="windows"]');
    await item.getByText('1,5 МБ').first().waitFor();
    await item.getByText('SHA-256:').click();
    expect(await item.locator('.copy-text-value').textContent()).toBe(sha);
    const href = await item.getByRole('link').getAttribute('href');
    expect(href).toBe('/downloads/launcher/windows/Kubik-Setup-2.0.1.exe');
    const download = await page.request.get(href!);
    expect(
      createHash('sha256')
        .update(await download.body())
        .digest('hex'),
    ).toBe(sha);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);

    // Hidden on this page: /help no longer offers it.
    await card.getByRole('button', { name: 'Скрыть' }).click();
    await confirmDialog(admin);
    await card.getByText('Скрыт: на странице помощи не показывается').first().waitFor();
    await page.reload();
    await see(page, 'Linux (.AppImage) · v1.0.0');
    expect(await page.getByText('Windows (.exe)').count()).toBe(0);
  });
});
