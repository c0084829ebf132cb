import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import type { DbHandle } from '../db/index.ts';
import { bearerMatches } from '../lib/bearer-secret.ts';
import { HttpError } from '../lib/errors.ts';
import { mailQueueDepth } from '../modules/mail/mail.outbox.ts';

/** A peer on this machine that reached us directly: a proxy in front on the same host adds forwarding headers. */
function fromLoopback(request: FastifyRequest): boolean {
  const peer = request.raw.socket.remoteAddress ?? '';
  const loopback = peer.startsWith('127.') || peer === '::1' || peer.startsWith('::ffff:127.');
  const proxied =
    request.headers['x-forwarded-for'] !== undefined ||
    request.headers.forwarded !== undefined ||
    request.headers['x-real-ip'] !== undefined;
  return loopback && !proxied;
}

/**
 * /metrics (Prometheus), answered to this machine, or to a collector with METRICS_TOKEN; and the
 * platform's own figures: the database connections and the mail queue. Features add theirs
 * through ctx.metrics where their routes are registered.
 */
export function registerMetrics(app: FastifyInstance, ctx: AppContext, database: DbHandle): void {
  const { metrics, notifications } = ctx;
  const health = database.health;
  metrics.counter({
    name: 'kubik_db_connection_errors_total',
    help: 'Connection errors to the database: connects that failed and open connections that broke, by client (pool, listen)',
    labelNames: ['client'],
    read: () => [
      { labels: { client: 'pool' }, value: health.errors },
      { labels: { client: 'listen' }, value: notifications.errors },
    ],
  });
  metrics.counter({
    name: 'kubik_db_reconnects_total',
    help: 'Connections to the database made again after an outage, by client (pool, listen)',
    labelNames: ['client'],
    read: () => [
      { labels: { client: 'pool' }, value: health.reconnects },
      { labels: { client: 'listen' }, value: notifications.reconnects },
    ],
  });
  metrics.gauge({
    name: 'kubik_db_up',
    help: '1 while the database is reachable by this process (its last connect worked, the LISTEN connection is up), by client',
    labelNames: ['client'],
    read: async () => [
      { labels: { client: 'pool' }, value: health.up ? 1 : 0 },
      { labels: { client: 'listen' }, value: notifications.up ? 1 : 0 },
    ],
  });
  metrics.gauge({
    name: 'kubik_mail_queue',
    help: 'Letters in the outbox: queued (to send now or on retry) and failed (given up)',
    labelNames: ['state'],
    read: () => mailQueueDepth(ctx.db),
  });

  app.get(
    '/metrics',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Эксплуатация'],
        summary:
          'Метрики Prometheus (текстовый формат). Только с этого компьютера, или с Authorization: Bearer METRICS_TOKEN, если он задан',
        hide: false,
      },
    },
    async (request, reply) => {
      const token = ctx.config.metricsToken;
      if (token) {
        if (!bearerMatches(token, request.headers.authorization)) {
          reply.header('www-authenticate', 'Bearer realm="metrics"');
          throw new HttpError(401, 'Нужен заголовок Authorization: Bearer METRICS_TOKEN', { code: 'unauthorized' });
        }
      } else if (!fromLoopback(request)) {
        throw new HttpError(
          403,
          'Метрики отдаются только запросам с этого же компьютера; для сборщика с другого адреса задайте METRICS_TOKEN',
          {
            code: 'forbidden',
          },
        );
      }
      const { contentType, body } = await metrics.scrape();
      return reply.header('cache-control', 'no-store').type(contentType).send(body);
    },
  );
}
