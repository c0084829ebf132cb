import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, seedUser, type TestApp } from '../../test/test-app.ts';

describe('the index page', () => {
  let t: TestApp;
  let webDist: string;
  beforeAll(async () => {
    // The web app's own index.html: the markers the server fills in must be there.
    webDist = mkdtempSync(path.join(os.tmpdir(), 'kubik-web-'));
    writeFileSync(path.join(webDist, 'index.html'), readFileSync(path.resolve(import.meta.dirname, '../../../../web/index.html')));
    t = await createTestApp('sqlite', { webDist, siteName: 'Мир <Кубов> & Co' });
    // A site without an administrator sends every page to /setup (first-run setup).
    await seedUser(t, 'SiteOwner', { admin: true });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(webDist, { recursive: true, force: true });
  });

  it('carries the site name, escaped, in its title and in the header painted before the app runs', async () => {
    for (const url of ['/', '/servers', '/donate']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('<title>Мир &lt;Кубов&gt; &amp; Co</title>');
      expect(res.body).toContain('<span data-site-name>Мир &lt;Кубов&gt; &amp; Co</span>');
      expect(res.body).not.toContain('Kubik');
    }
  });
});
