import fastifyCookie from '@fastify/cookie';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import ru from 'zod/v4/locales/ru.js';
import { createContext } from './app-context.ts';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { openDatabase, type DbHandle } from './db/index.ts';
import { FrontDoor } from './front-door/front-door.ts';
import { backupJob } from './lib/backup.ts';
import { createLogger } from './lib/logging.ts';
import { createMailer, type Mailer } from './lib/mailer.ts';
import { Metrics } from './lib/metrics.ts';
import { fastifyTrustProxy } from './base/proxy-trust.ts';
import { DatabaseRateLimiter } from './lib/rate-limit.ts';
import { modules } from './modules/index.ts';
import { mailJob } from './modules/mail/mail.outbox.ts';
import { keyCleanupJob } from './modules/purchases/purchases.keys.ts';
import { requireAdminTwoFactor } from './modules/security/two-factor.service.ts';
import { setupNeeded } from './modules/setup/setup.service.ts';
import { siteName } from './modules/site/site.settings.ts';
import { cachedSession, sessionSweepJob } from './modules/users/users.logins.ts';
import { registerApiDocs } from './plugins/api-docs.ts';
import { registerAccessCheck } from './plugins/auth.ts';
import { registerErrorHandling } from './plugins/errors.ts';
import { registerMetrics } from './plugins/metrics.ts';
import { registerOriginCheck } from './plugins/origin.ts';
import { frameworkErrors, registerJsonParser, registerSecurityHeaders } from './plugins/security.ts';
import { registerWebApp } from './modules/site/site.web-app.ts';

// Russian messages only. `z` itself carries `z.locales`, every language; the bundle keeps Russian alone (scripts/build.mjs).
z.config(ru());

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    /** Where every request comes in (front-door/front-door.ts). */
    frontDoor: FrontDoor;
  }
}

export interface BuildOptions {
  /** An already opened (and migrated) database; otherwise one is opened from the config. */
  database?: DbHandle;
  mailer?: Mailer;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
}

/**
 * The whole site as a Fastify instance, without listen(): main.ts listens, tests inject. The
 * shared services come first, then the front door every request passes, then Fastify with the
 * site's plugins and every module's routes, in this order.
 */
export async function buildApp(config: Readonly<Config>, options: BuildOptions = {}): Promise<FastifyInstance> {
  const log = createLogger(config, options.logStream);
  const database = options.database ?? openDatabase(config);
  const ctx = createContext(config, { database, mailer: options.mailer ?? createMailer(config), log, metrics: new Metrics() });
  const door = new FrontDoor({ ...ctx, log });

  const app = Fastify({
    serverFactory: door.server,
    loggerInstance: log as FastifyBaseLogger,
    genReqId: door.requestId,
    requestIdHeader: false,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: 64 * 1024,
    frameworkErrors,
    // The front door writes one access line per request; Fastify's two stay off.
    logController: new LogController({ disableRequestLogging: true }),
    // Every route's schemas are zod's: given as factories, Fastify never loads Ajv and
    // fast-json-stringify for its defaults (a twentieth of a one-core cold start).
    schemaController: {
      compilersFactory: { buildValidator: (() => validatorCompiler) as never, buildSerializer: (() => serializerCompiler) as never },
    },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorate('ctx', ctx);
  app.decorate('frontDoor', door);
  await ctx.notifications.start();

  registerErrorHandling(app);
  await app.register(fastifyCookie);
  door.register(app);
  registerSecurityHeaders(app, config);
  registerJsonParser(app);
  registerOriginCheck(app, config);
  registerAccessCheck(
    app,
    (token) => cachedSession(ctx, token),
    config.gravitSecret,
    (user) => requireAdminTwoFactor(ctx, user),
  );
  await registerApiDocs(app, config);
  registerMetrics(app, ctx, database);
  registerPlatformJobs(ctx, database, log);
  for (const mod of modules) await app.register(mod(ctx));
  registerWebApp(app, config, () => setupNeeded(ctx));
  registerLifecycle(app, ctx, door, options.database ? null : database);
  return app;
}

/** The platform's own background work: letters, expired keys and sessions, backups, rate-limit counters. */
function registerPlatformJobs(ctx: AppContext, database: DbHandle, log: FastifyBaseLogger): void {
  // Letters go out under the site's name as the owner set it (Админ-панель → Настройки).
  ctx.jobs.register(mailJob(database.db, ctx.mailer, log, () => siteName(ctx), ctx.claims));
  ctx.jobs.register(ctx.schedule.job(keyCleanupJob(database.db)));
  ctx.jobs.register(ctx.schedule.job(sessionSweepJob(database.db)));
  if (ctx.config.backup.dir) ctx.jobs.register(ctx.schedule.job(backupJob(ctx.config, log)));
  if (ctx.limiter instanceof DatabaseRateLimiter) ctx.jobs.register(ctx.schedule.job(ctx.limiter.sweepJob()));
}

/**
 * Background work starts once the site is ready (when config.workers; tests call passes
 * directly), a job's first pass per event-loop turn, so the site listens and answers meanwhile. On close the front door turns new requests away, jobs wind down (releasing their
 * claims) while requests in flight finish, then the caches, the channel, the mailer and the
 * database it opened itself (`owned`) close.
 */
function registerLifecycle(app: FastifyInstance, ctx: AppContext, door: FrontDoor, owned: DbHandle | null): void {
  app.addHook('onReady', async () => {
    if (ctx.config.workers) ctx.jobs.startInTurns();
  });
  let jobsStopped: Promise<boolean> | undefined;
  app.addHook('preClose', async () => {
    door.stop();
    jobsStopped = ctx.jobs.stop(ctx.config.shutdownTimeoutMs);
  });
  app.addHook('onClose', async () => {
    if (!(await (jobsStopped ?? ctx.jobs.stop(ctx.config.shutdownTimeoutMs))))
      app.log.warn('background jobs still running at the shutdown deadline; their claims were released');
    await door.flush();
    ctx.userCache.stop();
    await ctx.notifications.stop();
    ctx.mailer.close();
    await owned?.close();
  });
}
