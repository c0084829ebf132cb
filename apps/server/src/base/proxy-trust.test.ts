import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { createTestApp } from '../test/test-app.ts';
import { requestIds } from '../lib/logging.ts';
import { fastifyTrustProxy, parseProxyTrust, peerIsTrustedProxy } from './proxy-trust.ts';

describe('TRUST_PROXY', () => {
  it('reads off, a hop count (on/true mean one hop) or a list of proxy addresses and ranges', () => {
    for (const v of [undefined, '', 'off', 'false', '0']) expect(parseProxyTrust(v)).toBe(false);
    expect(parseProxyTrust('on')).toBe(1);
    expect(parseProxyTrust('true')).toBe(1);
    expect(parseProxyTrust('1')).toBe(1);
    expect(parseProxyTrust('2')).toBe(2);
    expect(parseProxyTrust('10.0.0.0/8, 127.0.0.1,::1')).toEqual(['10.0.0.0/8', '127.0.0.1', '::1']);
    expect(() => parseProxyTrust('11')).toThrow(/не больше 10/);
    expect(() => parseProxyTrust('nginx.local')).toThrow();
    expect(() => parseProxyTrust('10.0.0.0/40')).toThrow();
    expect(() => loadConfig({ TRUST_PROXY: 'yes please' })).toThrow(/Invalid configuration:\nTRUST_PROXY: .*список адресов/);
    expect(loadConfig({ TRUST_PROXY: 'on' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1' }).trustProxy).toEqual(['127.0.0.1']);
  });

  /** The client address Fastify derives with our trust function, as every route (rate limits, YooKassa's list) sees it. */
  async function clientIp(trust: Parameters<typeof fastifyTrustProxy>[0], peer: string, xff?: string): Promise<string> {
    const app = Fastify({ trustProxy: fastifyTrustProxy(trust) });
    app.get('/ip', async (req) => ({ ip: req.ip }));
    try {
      const res = await app.inject({ method: 'GET', url: '/ip', remoteAddress: peer, headers: xff ? { 'x-forwarded-for': xff } : {} });
      return res.json<{ ip: string }>().ip;
    } finally {
      await app.close();
    }
  }

  it('the client is the first untrusted address from the right of X-Forwarded-For', async () => {
    // Not behind a proxy: forwarding headers are ignored.
    expect(await clientIp(false, '203.0.113.5', '198.51.100.1')).toBe('203.0.113.5');
    // One hop (nginx setting the header): its entry is the client.
    expect(await clientIp(1, '127.0.0.1', '203.0.113.5')).toBe('203.0.113.5');
    // A proxy that appends: the client's own forged entry stays on the left, unused.
    expect(await clientIp(1, '127.0.0.1', '198.51.100.66, 203.0.113.5')).toBe('203.0.113.5');
    // `true` is one hop too, never the leftmost entry (Fastify's own reading of true).
    expect(await clientIp(true, '127.0.0.1', '198.51.100.66, 203.0.113.5')).toBe('203.0.113.5');
    // Two hops (a CDN, then nginx).
    expect(await clientIp(2, '127.0.0.1', '198.51.100.66, 203.0.113.5, 192.0.2.10')).toBe('203.0.113.5');
    // A list: only the listed proxies are skipped.
    const list = ['127.0.0.1', '10.0.0.0/8'];
    expect(await clientIp(list, '127.0.0.1', '198.51.100.66, 203.0.113.5, 10.1.2.3')).toBe('203.0.113.5');
    // A client reaching the port directly is not a listed proxy: its header is ignored.
    expect(await clientIp(list, '203.0.113.9', '198.51.100.66')).toBe('203.0.113.9');
    // IPv4 peers on a dual-stack socket.
    expect(await clientIp(list, '::ffff:127.0.0.1', '203.0.113.5')).toBe('203.0.113.5');
  });

  it("a proxy's X-Request-Id is kept only from a trusted proxy, and only when it looks like an id", () => {
    const req = (peer: string, id: string) => ({ socket: { remoteAddress: peer }, headers: { 'x-request-id': id } }) as never;
    const listed = requestIds({ trustProxy: ['127.0.0.1'] });
    expect(listed(req('127.0.0.1', 'f3b1c2d4e5f60718293a4b5c6d7e8f90'))).toBe('f3b1c2d4e5f60718293a4b5c6d7e8f90');
    expect(listed(req('203.0.113.9', 'f3b1c2d4e5f60718293a4b5c6d7e8f90'))).not.toBe('f3b1c2d4e5f60718293a4b5c6d7e8f90');
    expect(listed(req('127.0.0.1', 'x'.repeat(101)))).toMatch(/^[0-9a-f]{8}-/);
    expect(listed(req('127.0.0.1', 'a b'))).toMatch(/^[0-9a-f]{8}-/);
    const off = requestIds({ trustProxy: false });
    expect(off(req('127.0.0.1', 'chosen'))).not.toBe('chosen');
    expect(peerIsTrustedProxy(2)('203.0.113.9')).toBe(true);
    expect(peerIsTrustedProxy(false)('127.0.0.1')).toBe(false);
  });
});

describe('request ids on cached answers', () => {
  it('each answer from memory carries its own id, never the one of the request that filled the cache', async () => {
    const t = await createTestApp('sqlite', { workers: false });
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await fetch(`${base}/api/tidings/news`, { headers: { 'x-request-id': 'chosen-by-client' } });
        expect(res.status).toBe(200);
        ids.push(res.headers.get('x-request-id') ?? '');
      }
      expect(new Set(ids).size).toBe(4);
      for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
      // The cached index page too.
      const pages = await Promise.all([1, 2, 3].map(() => fetch(`${base}/api/site`).then((r) => r.headers.get('x-request-id'))));
      expect(new Set(pages).size).toBe(3);
    } finally {
      await t.close();
    }
  });
});
