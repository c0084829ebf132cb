import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cookie-authenticated writes must come from our own pages: a browser request whose Origin is
 * another site is refused. Clients that send no Origin (the launcher, curl) use a bearer token.
 */
export function registerOriginCheck(app: FastifyInstance, config: Readonly<Config>): void {
  const allowed = new URL(config.publicUrl).origin;
  app.addHook('onRequest', async (request, reply) => {
    if (SAFE.has(request.method)) return;
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
    return reply.code(403).send({ error: 'Запрос с другого сайта отклонён', code: 'cross_site' });
  });
}
