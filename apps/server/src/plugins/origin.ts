import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { ErrorBody } from '../lib/errors.ts';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Game launcher protocols: they never read the session cookie (their own tokens or a server
 * secret only), so a request from another page can do nothing with them, and launchers built
 * on web engines send an Origin of their own.
 */
const NO_COOKIE_PREFIXES = ['/api/yggdrasil/', '/api/gravit/'];

/**
 * Cookie-authenticated writes must come from our own pages: a browser request whose Origin is
 * another site is refused. Clients that send no Origin (the launcher, curl) use a bearer token.
 */
export function registerOriginCheck(app: FastifyInstance, config: Readonly<Config>): void {
  const allowed = new URL(config.publicUrl).origin;
  app.addHook('onRequest', async (request, reply) => {
    if (SAFE.has(request.method) || NO_COOKIE_PREFIXES.some((p) => request.url.startsWith(p))) return;
    const origin = request.headers.origin;
    const fetchSite = request.headers['sec-fetch-site'];
    if (!origin && fetchSite !== 'cross-site') return;
    if (origin) {
      if (origin === allowed) return;
      const host = request.headers.host;
      try {
        if (host && new URL(origin).host === host) return;
      } catch {
        // An unparsable Origin is treated as foreign.
      }
    }
    return reply.code(403).send({ error: 'Запрос с другого сайта отклонён', code: 'cross_site' } satisfies ErrorBody);
  });
}
