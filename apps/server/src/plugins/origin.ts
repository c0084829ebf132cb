import type { FastifyInstance, FastifyRequest } from 'fastify';
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
  const sameSite = (request: FastifyRequest): boolean => {
    if (SAFE.has(request.method) || NO_COOKIE_PREFIXES.some((p) => request.url.startsWith(p))) return true;
    const origin = request.headers.origin;
    const fetchSite = request.headers['sec-fetch-site'];
    if (!origin && fetchSite !== 'cross-site') return true;
    if (origin) {
      if (origin === allowed) return true;
      const host = request.headers.host;
      try {
        if (host && new URL(origin).host === host) return true;
      } catch {
        // An unparsable Origin is treated as foreign.
      }
    }
    return false;
  };
  // Synchronous: every request passes here, and a promise per request costs.
  app.addHook('onRequest', (request, reply, done) => {
    if (sameSite(request)) return done();
    void reply.code(403).send({ error: 'Запрос с другого сайта отклонён', code: 'cross_site' } satisfies ErrorBody);
  });
}
