import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import type { DbHandle } from './db/index.ts';
import { ClaimOwner, JobRunner, Scheduler } from './lib/jobs/index.ts';
import type { Mailer } from './lib/mailer.ts';
import type { Metrics } from './lib/metrics.ts';
import { NotifyChannel } from './lib/notify-channel.ts';
import { PublicCache } from './lib/public-cache.ts';
import { createRateLimiter } from './lib/rate-limit.ts';
import { SettingsStore } from './lib/settings.ts';
import { UserCache } from './lib/user-cache.ts';
import { recordAudit } from './modules/audit/audit.service.ts';

/** The shared services every module gets (context.ts), made once per site. */
export function createContext(
  config: Readonly<Config>,
  parts: { database: DbHandle; mailer: Mailer; log: FastifyBaseLogger; metrics: Metrics },
): AppContext {
  const { database, mailer, log, metrics } = parts;
  // One LISTEN connection on PostgreSQL tells every instance of writes to cached data; none on SQLite.
  const notifications = new NotifyChannel(database.kind === 'pg' ? config.databaseUrl : undefined, log);
  const userCache = new UserCache({ channel: notifications });
  userCache.watch(database);
  // SQLite is one process: every claim it finds at start is an earlier life's.
  const claims = new ClaimOwner(config.instanceId, database.kind === 'sqlite');
  return {
    config,
    db: database.db,
    dbKind: database.kind,
    mailer,
    jobs: new JobRunner(log, (name, ms, ok) => metrics.job(name, ms, ok)),
    metrics,
    claims,
    schedule: new Scheduler(database.db, claims),
    limiter: createRateLimiter(database.db, database.kind, config.rateLimits),
    publicCache: new PublicCache(notifications),
    userCache,
    notifications,
    settings: new SettingsStore(
      database.db,
      database.kind,
      config,
      notifications,
      (trx, e) =>
        recordAudit(trx, {
          actorId: e.actorId,
          action: 'settings.update',
          entity: 'settings',
          entityId: e.key,
          before: e.before,
          after: e.after,
        }),
      log,
    ),
  };
}
