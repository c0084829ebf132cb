import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, startInstance, type TestApp } from '../../test/test-app.ts';

/** The built index.html as Vite writes it, in short: the boot script, the app's script and its preloads. */
const BUILT_INDEX = `<!doctype html>
<html lang="ru">
  <head>
    <title>Kubik</title>
    <script type="module" crossorigin src="/assets/boot-a1.js" data-page-files='{"/donate":["/assets/DonatePage-b2.js","/assets/donate-c3.css"]}' data-app='["/assets/index-d4.js"]'></script>
    <script type="module" crossorigin src="/assets/index-d4.js"></script>
    <link rel="modulepreload" crossorigin href="/assets/jsx-runtime-e5.js">
    <link rel="stylesheet" crossorigin href="/assets/index-f6.css">
  </head>
  <body>
    <div id="root"><header class="site-header"><div class="container header-inner"><a href="/" class="brand"><span data-site-name>Kubik</span></a></div></header></div>
  </body>
</html>
`;

/** A web build's directory: that index.html, and testing/page-renderer.mjs as its page renderer. */
function builtWeb(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kubik-web-'));
  writeFileSync(path.join(dir, 'index.html'), BUILT_INDEX);
  mkdirSync(path.join(dir, 'ssr'));
  copyFileSync(path.resolve(import.meta.dirname, '../../../../../testing/page-renderer.mjs'), path.join(dir, 'ssr', 'entry-server.js'));
  return dir;
}

const TIER = { content: 'Описание', amount: 99, currency: '₽', image_url: '', is_best: false, kits: [], features: [] };

describe.each(dbKinds)('pages drawn on the server on %s', (kind) => {
  let t: TestApp;
  let webDist: string;
  let admin: string;
  const page = async (url: string, headers: Record<string, string> = {}) => {
    const res = await t.app.inject({ method: 'GET', url, headers });
    expect(res.statusCode).toBe(200);
    return res.body;
  };
  const first = (html: string) => {
    const json = /<script type="application\/json" id="kubik-first">(.*?)<\/script>/s.exec(html)?.[1];
    return json === undefined ? undefined : (JSON.parse(json) as Record<string, unknown>);
  };
  const addTier = (title: string) => t.app.inject(asUser(admin, { method: 'POST', url: '/api/donate/add', payload: { ...TIER, title } }));

  beforeAll(async () => {
    webDist = builtWeb();
    t = await createTestApp(kind, { webDist, rateLimits: { enabled: false } });
    await seedUser(t, 'DrawAdmin', { admin: true });
    admin = await loginAs(t, 'DrawAdmin');
    expect((await addTier('Рыцарь')).statusCode).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    rmSync(webDist, { recursive: true, force: true });
  });

  it('sends a guest the page drawn, with the answers it was drawn from, its title and its styles', async () => {
    const html = await page('/donate');
    expect(html).toContain(
      '<div id="root"><header><span>Kubik</span></header><main><h1>Донат</h1><ul><li class="tier">Рыцарь</li></ul></main></div>',
    );
    expect(html).toContain('<title>Донат — Kubik</title>');
    const answers = first(html)!;
    expect(Object.keys(answers)).toEqual(['/api/site/settings', '/api/pages', '/api/donate/fully']);
    expect((answers['/api/donate/fully'] as { title: string }[]).map((tier) => tier.title)).toEqual(['Рыцарь']);
    // The page's styles are in the head; the app's script and preloads are left to boot.ts.
    expect(html).toContain('<link rel="stylesheet" crossorigin href="/assets/donate-c3.css">');
    expect(html).not.toContain('<script type="module" crossorigin src="/assets/index-d4.js">');
    expect(html).not.toContain('modulepreload');
    expect(html).toContain('src="/assets/boot-a1.js"');
    // React's preload hint goes to the head, out of #root.
    expect(html.indexOf('<link rel="preload" as="image" href="/favicon.svg"/>')).toBeLessThan(html.indexOf('</head>'));
    // The renderer itself is not a file to download.
    expect((await t.app.inject({ method: 'GET', url: '/ssr/entry-server.js' })).statusCode).toBe(404);
  });

  it('sends a signed-in visitor the app shell, also when the guest page is already in memory', async () => {
    const guest = await page('/');
    expect(guest).toContain('<h1>Главная</h1>');
    for (const cookie of ['kubik_in=1', 'theme=dark; kubik_in=1', 'kubik_in=1; kubik_session=x']) {
      const shell = await page('/', { cookie });
      expect(shell).not.toContain('kubik-first');
      expect(shell).toContain('<script type="module" crossorigin src="/assets/index-d4.js">');
    }
    // …and the guest's page after the shell was sent, from memory again.
    expect(await page('/')).toBe(guest);
    expect(await page('/', { cookie: 'kubik_in=0' })).toBe(guest);
  });

  it('draws the page anew after a public answer changes, and sends the answers inert', async () => {
    await page('/donate');
    expect((await addTier('</script><script>alert(1)</script>')).statusCode).toBe(201);
    const html = await page('/donate');
    expect(html).toContain('<li class="tier">&#60;/script&#62;&#60;script&#62;alert(1)&#60;/script&#62;</li>');
    // Only the JSON block and boot's tag are scripts: no "<" inside the answers.
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(JSON.stringify(first(html))).toContain('</script><script>alert(1)</script>');
  });

  it('sends the app shell when the page cannot be drawn, and shells for pages it does not draw', async () => {
    const boom = await addTier('boom');
    expect(boom.statusCode).toBe(201);
    const html = await page('/donate');
    expect(html).not.toContain('kubik-first');
    expect(html).toContain('<script type="module" crossorigin src="/assets/index-d4.js">');
    expect(html).toContain('<span data-site-name>Kubik</span>');
    for (const url of ['/servers', '/donate/', '/profile', '/?page=2']) {
      const other = await page(url);
      expect(other).toBe(url === '/?page=2' ? await page('/') : html);
    }
    const removed = await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/donate/${boom.json<{ id: number }>().id}` }));
    expect(removed.statusCode).toBe(200);
    expect(await page('/donate')).toContain('kubik-first');
  });

  if (kind === 'pg')
    it('draws anew on every instance when another instance changes an answer', async () => {
      const second = await startInstance(t.app.ctx.config.databaseUrl!, { webDist, rateLimits: { enabled: false } });
      try {
        const before = await second.app.inject({ method: 'GET', url: '/donate' });
        expect(before.body).not.toContain('Паладин');
        expect((await addTier('Паладин')).statusCode).toBe(201);
        await expect
          .poll(async () => (await second.app.inject({ method: 'GET', url: '/donate' })).body, { timeout: 5000 })
          .toContain('Паладин');
      } finally {
        await second.close();
      }
    });
});

describe('pages drawn on the server, answered from memory before Fastify', () => {
  let t: TestApp;
  let webDist: string;
  let base: string;
  beforeAll(async () => {
    webDist = builtWeb();
    t = await createTestApp('sqlite', { webDist, workers: false });
    await seedUser(t, 'FastAdmin', { admin: true });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await t?.close();
    rmSync(webDist, { recursive: true, force: true });
  });

  it('never gives a signed-in visitor the guests’ page, nor a guest the shell, however they alternate', async () => {
    const get = async (cookie?: string) => {
      const res = await fetch(`${base}/`, { headers: { 'accept-encoding': 'gzip', ...(cookie ? { cookie } : {}) } });
      expect(res.status).toBe(200);
      return (await res.text()).includes('id="kubik-first"') ? 'drawn' : 'shell';
    };
    const seen = [];
    for (const cookie of [undefined, undefined, 'kubik_in=1', 'kubik_in=1', undefined, 'a=b; kubik_in=1', undefined, 'kubik_in=1'])
      seen.push(await get(cookie));
    expect(seen).toEqual(['drawn', 'drawn', 'shell', 'shell', 'drawn', 'shell', 'drawn', 'shell']);
  });
});
