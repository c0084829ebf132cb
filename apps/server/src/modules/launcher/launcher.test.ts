import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { formatFileSize } from '@kubik/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipart } from '../../../../../testing/skin-images.ts';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { safeLauncherFileName } from './launcher.service.ts';

const MAX = 256 * 1024;
const exe = (size: number) => Buffer.concat([Buffer.from('MZ'), randomBytes(size - 2)]);
const elf = (size: number) => Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46]), randomBytes(size - 4)]);
const form = (data: Buffer, filename: string) => multipart([{ name: 'file', filename, type: 'application/octet-stream', data }]);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Build {
  platform: string;
  version: string;
  url: string;
  kind: string;
  file_name: string | null;
  size: number | null;
  sha256: string | null;
}

describe('formatFileSize', () => {
  it('writes sizes in Russian units', () => {
    expect(formatFileSize(512)).toBe('512 Б');
    expect(formatFileSize(48.2 * 1024 * 1024)).toBe('48,2 МБ');
    expect(formatFileSize(300 * 1024 * 1024)).toBe('300 МБ');
    expect(formatFileSize(1536)).toBe('1,5 КБ');
  });
});

describe('safeLauncherFileName', () => {
  it('keeps Latin letters, digits, dots and dashes and the platform extension', () => {
    expect(safeLauncherFileName('KubikLauncher-2.0.exe', 'windows')).toBe('KubikLauncher-2.0.exe');
    expect(safeLauncherFileName('../../evil name ё.EXE', 'windows')).toBe('evil-name.exe');
    expect(safeLauncherFileName('C:\\Users\\me\\Лаунчер.AppImage', 'linux')).toBe('Launcher.AppImage');
    expect(safeLauncherFileName('.hidden.jar', 'jar')).toBe('hidden.jar');
  });
});

describe.each(dbKinds)('launcher on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let player: string;
  let downloads: string;
  beforeAll(async () => {
    t = await createTestApp(kind, {
      launcher: {
        version: 'v1.0.0',
        windowsUrl: '/downloads/KubikLauncher-1.0.0.exe',
        linuxUrl: 'https://mirror.example/KubikLauncher.AppImage',
        maxBytes: MAX,
      },
    });
    downloads = path.join(t.dataDir, 'downloads');
    await seedUser(t, 'Owner', { admin: true });
    await seedUser(t, 'Player');
    admin = await loginAs(t, 'Owner');
    player = await loginAs(t, 'Player');
  });
  afterAll(async () => {
    await t?.close();
  });

  const upload = (token: string | null, platform: string, version: string, f: { payload: Buffer; headers: Record<string, string> }) =>
    t.app.inject(
      asUser(token, {
        method: 'POST',
        url: `/api/admin/launcher/${platform}/file?version=${encodeURIComponent(version)}`,
        payload: f.payload,
        headers: f.headers,
      }),
    );
  const publicList = async () => (await t.app.inject({ method: 'GET', url: '/api/launcher' })).json<{ builds: Build[] }>().builds;
  const adminView = async () =>
    (await t.app.inject(asUser(admin, { method: 'GET', url: '/api/admin/launcher' }))).json<{
      platforms: { platform: string; source: string; missing: boolean; build: Build | null }[];
      max_bytes: number;
    }>();
  const leftovers = (platform: string) => {
    const dir = path.join(downloads, 'launcher', platform);
    return fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.part')) : [];
  };

  it('lets only administrators see and change the launcher', async () => {
    const file = form(exe(1000), 'L.exe');
    expect((await upload(null, 'windows', '2.0', file)).statusCode).toBe(401);
    expect((await upload(player, 'windows', '2.0', file)).statusCode).toBe(403);
    for (const [method, url, payload] of [
      ['GET', '/api/admin/launcher', undefined],
      ['PUT', '/api/admin/launcher/macos/link', { version: '1', url: 'https://x.example/a.dmg' }],
      ['DELETE', '/api/admin/launcher/windows', undefined],
    ] as const) {
      expect((await t.app.inject({ method, url, payload })).statusCode).toBe(401);
      expect((await t.app.inject(asUser(player, { method, url, payload }))).statusCode).toBe(403);
    }
    expect(await t.handle.db.selectFrom('launcher_builds').selectAll().execute()).toEqual([]);
    expect(leftovers('windows')).toEqual([]);
  });

  it('keeps the links of the settings, hiding a /downloads/ one whose file is not there', async () => {
    expect(await publicList()).toEqual([
      expect.objectContaining({ platform: 'linux', kind: 'link', version: 'v1.0.0', url: 'https://mirror.example/KubikLauncher.AppImage' }),
    ]);
    const view = await adminView();
    expect(view.max_bytes).toBe(MAX);
    expect(view.platforms.find((p) => p.platform === 'windows')).toMatchObject({ source: 'settings', missing: true });
    expect(view.platforms.find((p) => p.platform === 'macos')).toMatchObject({ source: 'none', build: null });

    fs.writeFileSync(path.join(downloads, 'KubikLauncher-1.0.0.exe'), exe(100));
    const builds = await publicList();
    expect(builds.map((b) => b.platform)).toEqual(['windows', 'linux']);
    expect(builds[0]).toMatchObject({ kind: 'link', url: '/downloads/KubikLauncher-1.0.0.exe', size: null });
  });

  it('stores an upload on disk with its size and SHA-256, served under /downloads/, and replaces the old file', async () => {
    const first = exe(100_000);
    const res = await upload(admin, 'windows', '2.0.0', form(first, '../../Kubik Лаунчер 2.0.exe'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      platform: 'windows',
      kind: 'file',
      version: '2.0.0',
      file_name: 'Kubik-2.0.exe',
      size: first.length,
      sha256: sha(first),
    });
    const served = await t.app.inject({ method: 'GET', url: '/downloads/launcher/windows/Kubik-2.0.exe' });
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(first)).toBe(true);
    const win = (await publicList()).find((b) => b.platform === 'windows');
    expect(win).toMatchObject({ kind: 'file', size: first.length, sha256: sha(first), url: '/downloads/launcher/windows/Kubik-2.0.exe' });

    const second = exe(50_000);
    expect((await upload(admin, 'windows', '2.1.0', form(second, 'Kubik-2.1.exe'))).statusCode).toBe(200);
    const dir = path.join(downloads, 'launcher', 'windows');
    await expect.poll(() => fs.readdirSync(dir)).toEqual(['Kubik-2.1.exe']);
    expect(fs.readFileSync(path.join(dir, 'Kubik-2.1.exe')).equals(second)).toBe(true);
    expect((await t.app.inject({ method: 'GET', url: '/downloads/launcher/windows/Kubik-2.0.exe' })).statusCode).toBe(404);
    expect((await publicList()).find((b) => b.platform === 'windows')).toMatchObject({ version: '2.1.0', sha256: sha(second) });

    const audit = await t.handle.db.selectFrom('audit_log').select(['action', 'entity_id']).where('entity', '=', 'launcher').execute();
    expect(audit).toEqual([
      { action: 'launcher.upload', entity_id: 'windows' },
      { action: 'launcher.upload', entity_id: 'windows' },
    ]);
  });

  it('refuses a file over the limit, of the wrong kind or broken, and keeps the current build', async () => {
    const before = await t.handle.db.selectFrom('launcher_builds').selectAll().execute();
    const big = await upload(admin, 'linux', '3', form(elf(MAX + 1), 'big.AppImage'));
    expect(big.statusCode).toBe(413);
    expect(big.json()).toMatchObject({ code: 'file_too_large', error: 'Файл слишком большой: не больше 256 КБ' });

    const wrongName = await upload(admin, 'windows', '3', form(exe(1000), 'launcher.msi'));
    expect(wrongName.statusCode).toBe(400);
    expect(wrongName.json()).toMatchObject({ code: 'not_launcher', field: 'file', error: 'Для Windows нужен файл .exe' });

    const notExe = await upload(admin, 'windows', '3', form(Buffer.from('just text, renamed'), 'fake.exe'));
    expect(notExe.statusCode).toBe(400);
    expect(notExe.json()).toMatchObject({ code: 'not_launcher' });
    const notJar = await upload(admin, 'jar', '3', form(exe(1000), 'fake.jar'));
    expect(notJar.json()).toMatchObject({ code: 'not_launcher' });

    expect((await upload(admin, 'windows', '3', form(Buffer.alloc(0), 'empty.exe'))).json()).toMatchObject({ code: 'no_file' });
    expect((await upload(admin, 'bsd', '3', form(exe(100), 'a.exe'))).statusCode).toBe(400);
    expect((await upload(admin, 'windows', '', form(exe(100), 'a.exe'))).statusCode).toBe(400);
    const notForm = await t.app.inject(
      asUser(admin, { method: 'POST', url: '/api/admin/launcher/windows/file?version=1', payload: { file: 'x' } }),
    );
    expect(notForm.statusCode).toBe(415);
    const truncated = form(exe(5000), 'cut.exe');
    const cut = await upload(admin, 'windows', '3', { payload: truncated.payload.subarray(0, 3000), headers: truncated.headers });
    expect(cut.statusCode).toBe(400);

    expect(await t.handle.db.selectFrom('launcher_builds').selectAll().execute()).toEqual(before);
    for (const p of ['windows', 'linux', 'jar']) expect(leftovers(p)).toEqual([]);
    expect(fs.readdirSync(path.join(downloads, 'launcher', 'windows'))).toEqual(['Kubik-2.1.exe']);
  });

  it('takes a link instead of a file, hides a platform, and goes back to the settings', async () => {
    const bad = await t.app.inject(
      asUser(admin, { method: 'PUT', url: '/api/admin/launcher/macos/link', payload: { version: '1', url: 'javascript:alert(1)' } }),
    );
    expect(bad.statusCode).toBe(400);
    const mac = await t.app.inject(
      asUser(admin, {
        method: 'PUT',
        url: '/api/admin/launcher/macos/link',
        payload: { version: '2.1', url: 'https://cdn.example/Kubik.dmg' },
      }),
    );
    expect(mac.statusCode).toBe(200);
    expect((await publicList()).map((b) => [b.platform, b.kind])).toEqual([
      ['windows', 'file'],
      ['linux', 'link'],
      ['macos', 'link'],
    ]);

    // A link replaces the uploaded file, which is removed.
    const link = await t.app.inject(
      asUser(admin, {
        method: 'PUT',
        url: '/api/admin/launcher/windows/link',
        payload: { version: '2.2', url: 'https://cdn.example/K.exe' },
      }),
    );
    expect(link.statusCode).toBe(200);
    await expect.poll(() => fs.readdirSync(path.join(downloads, 'launcher', 'windows'))).toEqual([]);

    expect((await t.app.inject(asUser(admin, { method: 'DELETE', url: '/api/admin/launcher/linux' }))).statusCode).toBe(200);
    expect((await publicList()).map((b) => b.platform)).toEqual(['windows', 'macos']);
    expect((await adminView()).platforms.find((p) => p.platform === 'linux')).toMatchObject({ source: 'hidden' });

    expect((await t.app.inject(asUser(admin, { method: 'DELETE', url: '/api/admin/launcher/linux?reset=1' }))).statusCode).toBe(200);
    expect((await publicList()).find((b) => b.platform === 'linux')).toMatchObject({
      url: 'https://mirror.example/KubikLauncher.AppImage',
    });
    expect((await t.app.inject(asUser(admin, { method: 'DELETE', url: '/api/admin/launcher/linux?reset=yes' }))).statusCode).toBe(400);
  });

  it('does not offer an uploaded file that is gone from the disk', async () => {
    const jar = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), randomBytes(2000)]);
    expect((await upload(admin, 'jar', '1.0', form(jar, 'Kubik.jar'))).statusCode).toBe(200);
    expect((await publicList()).some((b) => b.platform === 'jar')).toBe(true);
    fs.rmSync(path.join(downloads, 'launcher', 'jar', 'Kubik.jar'));
    expect((await publicList()).some((b) => b.platform === 'jar')).toBe(false);
    expect((await adminView()).platforms.find((p) => p.platform === 'jar')).toMatchObject({ source: 'file', missing: true });
  });
});
