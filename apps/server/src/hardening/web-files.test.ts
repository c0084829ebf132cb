import { brotliCompressSync, gzipSync } from 'node:zlib';
import fs, { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, seedUser, type TestApp } from '../test/test-app.ts';

const SCRIPT = 'export const answer = 42;\n'.repeat(40);

/** A web build as Vite writes it: index.html, hashed assets with .br and .gz beside them, and testing/page-renderer.mjs as its page renderer. */
function builtWeb(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kubik-web-'));
  writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><html lang="ru"><head><title>Kubik</title></head><body><div id="root"></div></body></html>',
  );
  writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'assets', 'index-d4.js'), SCRIPT);
  writeFileSync(path.join(dir, 'assets', 'index-d4.js.br'), brotliCompressSync(SCRIPT));
  writeFileSync(path.join(dir, 'assets', 'index-d4.js.gz'), gzipSync(SCRIPT));
  mkdirSync(path.join(dir, 'ssr'));
  copyFileSync(path.resolve(import.meta.dirname, '../../../../testing/page-renderer.mjs'), path.join(dir, 'ssr', 'entry-server.js'));
  return dir;
}

describe("the web build's files", () => {
  let t: TestApp;
  let webDist: string;
  const get = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') => t.app.inject({ method, url, headers });

  beforeAll(async () => {
    webDist = builtWeb();
    t = await createTestApp('sqlite', { webDist, workers: false });
    // With no administrator yet every page would lead to first-run setup.
    await seedUser(t, 'Owner', { admin: true });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(webDist, { recursive: true, force: true });
  });

  it('serves an asset compressed as the client accepts, cached for good, also to HEAD and with a query', async () => {
    const br = await get('/assets/index-d4.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.rawPayload.equals(brotliCompressSync(SCRIPT))).toBe(true);
    const gz = await get('/assets/index-d4.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    const plain = await get('/assets/index-d4.js?v=2');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(SCRIPT);
    const head = await get('/assets/index-d4.js', {}, 'HEAD');
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    const icon = await get('/favicon.svg', { 'accept-encoding': 'br' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['cache-control']).toBe('no-cache');
  });

  it('answers what is not one of its files without it: a missing file, another spelling, the renderer, a way out of the folder', async () => {
    // Refused without a look at the disk (the static plugin's catch-all stat'ed three names for each).
    const stat = vi.spyOn(fs, 'stat');
    try {
      for (const url of [
        '/assets/missing-e5.js',
        '/ASSETS/index-d4.js',
        '/assets/INDEX-d4.js',
        '/ssr/entry-server.js',
        '/assets/index-d4.js.br',
      ]) {
        const res = await get(url, { 'accept-encoding': 'br' });
        expect(res.statusCode, url).toBe(404);
        expect(res.body, url).toBe('Файл не найден');
      }
      expect(stat).not.toHaveBeenCalled();
      expect((await get('/assets/index-d4.js')).statusCode).toBe(200);
      expect(stat).toHaveBeenCalled();
    } finally {
      stat.mockRestore();
    }
    for (const url of ['/assets/../index.html', '/assets/%2e%2e/index.html', '/%2e%2e/%2e%2e/etc/passwd', '/..%2f..%2fetc%2fpasswd']) {
      const res = await get(url);
      expect(res.body, url).not.toContain('root:');
      expect(res.headers['content-encoding'], url).toBeUndefined();
    }
    // Not the app's folder: a page of the app, an unknown API path.
    const shop = await get('/shop');
    expect(shop.statusCode).toBe(200);
    expect(shop.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(shop.body).toContain('<div id="root">');
    const api = await get('/api/no-such');
    expect(api.statusCode).toBe(404);
    expect(api.json()).toEqual({ error: 'Не найдено', code: 'not_found' });
  });
});
