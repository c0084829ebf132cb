import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, loginAs, seedUser, type TestApp } from '../test/test-app.ts';

/** The fast path must answer exactly what Fastify answered, and never a stale answer. */
describe('public answers served before Fastify', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { workers: false });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    await seedUser(t, 'Editor', { admin: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  const strip = (h: Headers) =>
    Object.fromEntries([...h.entries()].filter(([k]) => k !== 'date' && k !== 'keep-alive' && k !== 'connection'));

  it('repeats the same bytes and headers, and drops them on write', async () => {
    const first = await fetch(`${base}/api/tidings/news`, { headers: { 'accept-encoding': 'gzip' } });
    const firstBody = await first.text();
    const second = await fetch(`${base}/api/tidings/news`, { headers: { 'accept-encoding': 'gzip' } });
    expect(await second.text()).toBe(firstBody);
    // The same headers, except that each answer carries its own request id.
    expect({ ...strip(second.headers), 'x-request-id': '' }).toEqual({ ...strip(first.headers), 'x-request-id': '' });
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(second.headers.get('content-security-policy')).toContain("default-src 'self'");

    const token = await loginAs(t, 'Editor');
    const created = await fetch(`${base}/api/tidings/news`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Свежая новость', content: 'Текст', image_url: '' }),
    });
    expect(created.status).toBeLessThan(300);
    const after = await fetch(`${base}/api/tidings/news`);
    expect(await after.text()).toContain('Свежая новость');
    const again = await fetch(`${base}/api/tidings/news`);
    expect(await again.text()).toContain('Свежая новость');

    // Byte for byte, plain and gzip alike: the answer from memory is sent as Latin-1 text, which
    // must carry every byte of the UTF-8 (Cyrillic here) and of the gzip stream unchanged.
    const raw = (encoding: string) =>
      new Promise<{ body: Buffer; id: string }>((resolve, reject) => {
        http
          .get(`${base}/api/tidings/news`, { headers: { 'accept-encoding': encoding } }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ body: Buffer.concat(chunks), id: String(res.headers['x-request-id']) }));
          })
          .on('error', reject);
      });
    for (const encoding of ['identity', 'gzip']) {
      const [fromRoute, fromMemory, again] = [await raw(encoding), await raw(encoding), await raw(encoding)];
      expect(fromMemory.body.equals(fromRoute.body), encoding).toBe(true);
      expect(again.body.equals(fromRoute.body), encoding).toBe(true);
      expect(new Set([fromRoute.id, fromMemory.id, again.id]).size).toBe(3);
    }
    expect((await raw('identity')).body.toString('utf8')).toContain('Свежая новость');
  });

  it('leaves conditional requests to Fastify (304)', async () => {
    const first = await fetch(`${base}/api/donate/fully`);
    const etag = first.headers.get('etag')!;
    const cond = await fetch(`${base}/api/donate/fully`, { headers: { 'if-none-match': etag } });
    expect(cond.status).toBe(304);
  });
});
