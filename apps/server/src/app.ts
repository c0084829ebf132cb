import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import http from 'node:http';
import path from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { z } from 'zod';
import ru from 'zod/v4/locales/ru.js';
import { PERMISSIONS, type RoutePermission } from '@kubik/contract';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { openDatabase, type DbHandle } from './db/index.ts';
import { JobRunner, Scheduler } from './lib/jobs/index.ts';
import type { ErrorBody } from './lib/errors.ts';
import { createMailer, type Mailer } from './lib/mailer.ts';
import { accessLogger, loggerOptions, memoryAnswerLog, requestIds, type AccessLog, type MemoryAnswerLog } from './lib/logging.ts';
import { Metrics } from './lib/metrics.ts';
import { NotifyChannel } from './lib/notify-channel.ts';
import { backupJob } from './lib/backup.ts';
import { ensurePrivateDir } from './lib/private-files.ts';
import { hasSignedInMarker, PublicCache, sendCached } from './lib/public-cache.ts';
import { fastifyTrustProxy } from './lib/proxy-trust.ts';
import { createRateLimiter, DatabaseRateLimiter } from './lib/rate-limit.ts';
import { REPLAYED_ROUTES, SessionReplay } from './lib/session-replay.ts';
import { SettingsStore } from './lib/settings.ts';
import { UserCache } from './lib/user-cache.ts';
import { recordAudit } from './modules/audit/audit.service.ts';
import { modules } from './modules/index.ts';
import { indexPage } from './modules/site/site.index-page.ts';
import { Prerender, prerenderFile } from './modules/site/site.prerender.ts';
import { setupNeeded } from './modules/setup/setup.service.ts';
import { siteName, SiteSettingsDoc } from './modules/site/site.settings.ts';
import { mailJob, mailQueueDepth } from './modules/mail/mail.outbox.ts';
import { keyCleanupJob } from './modules/purchases/purchases.keys.ts';
import { registerErrorHandling } from './plugins/errors.ts';
import { registerAccessCheck, type Access } from './plugins/auth.ts';
import { cachedSession, sessionSweepJob } from './modules/users/users.logins.ts';
import { requireAdminTwoFactor } from './modules/security/two-factor.service.ts';
import { registerSessionActivity } from './modules/security/sessions.service.ts';
import { registerOriginCheck } from './plugins/origin.ts';
import { frameworkErrors, registerJsonParser, registerSecurityHeaders } from './plugins/security.ts';

// Russian messages only. `z` itself carries `z.locales`, every language; the bundle keeps Russian alone (scripts/build.mjs).
z.config(ru());

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    /** Every API route with its declared access; the authorization matrix test walks it. */
    apiRoutes: ApiRoute[];
    /** The signed-in player's own reads answered from memory (lib/session-replay.ts). */
    sessionReplay: SessionReplay;
  }
}

export interface ApiRoute {
  method: string;
  url: string;
  access: Access;
  /** The staff permission of an 'admin' route (every one declares it), or 'owner'. */
  permission?: RoutePermission;
}

const ROUTE_PERMISSIONS = new Set<string>([...PERMISSIONS, 'owner']);

/**
 * The request id made in the server's handler before Fastify sees the request (see genReqId),
 * and the user cache's generation when it arrived (lib/session-replay.ts).
 */
type RequestWithId = http.IncomingMessage & { kubikRequestId?: string; kubikUserGeneration?: number };

export interface BuildOptions {
  /** An already opened (and migrated) database; otherwise one is opened from the config. */
  database?: DbHandle;
  mailer?: Mailer;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
}

const SHUTTING_DOWN_BODY = JSON.stringify({
  error: 'Сайт перезапускается. Повторите через несколько секунд.',
  code: 'shutting_down',
} satisfies ErrorBody);
const SHUTTING_DOWN_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': String(Buffer.byteLength(SHUTTING_DOWN_BODY)),
  connection: 'close',
  'retry-after': '5',
  'cache-control': 'no-store',
};

/** The whole site as a Fastify instance, without listen(): main.ts listens, tests inject. */
export async function buildApp(config: Readonly<Config>, options: BuildOptions = {}): Promise<FastifyInstance> {
  // Public reads already answered once from the cache skip Fastify entirely (PublicCache.tryServe).
  let fastPath: PublicCache | null = null;
  // The signed-in player's own /me and head, answered again from memory while nothing changed.
  let ownPath: SessionReplay | null = null;
  let cachedUsers: UserCache | null = null;
  const metrics = new Metrics();
  const nextRequestId = requestIds(config);
  // The one line per answered request (our own: Fastify's two lines per request stay off).
  let accessLog: AccessLog | null = null;
  // At info, answers from memory are counted and summed up every 10 s instead (memoryAnswerLog).
  let memoryLog: MemoryAnswerLog | null = null;
  // While shutting down, answers end their keep-alive connections, so the server can close as
  // soon as the requests in flight are done.
  let closing = false;
  const app = Fastify({
    serverFactory: (handler) => {
      const server = http.createServer((req, res) => {
        // Shutting down: a request that still arrives on a kept-alive connection is turned away
        // (in Russian, unlike Fastify's own 503) so the client retries on another instance.
        // The id is made here, so the answer from memory carries one too; Fastify's genReqId takes it over.
        const id = nextRequestId(req);
        if (closing) return void res.writeHead(503, { ...SHUTTING_DOWN_HEADERS, 'x-request-id': id }).end(SHUTTING_DOWN_BODY);
        const started = performance.now();
        // The answers from memory put the id into writeHead's list themselves: a header set
        // before writeHead sends Node down its slow path, every header set and checked again.
        const route = fastPath && (fastPath.tryServe(req, res, id) ?? ownPath?.tryServe(req, res, id));
        if (!route) {
          const fastify = req as RequestWithId;
          fastify.kubikRequestId = id;
          res.setHeader('x-request-id', id);
          if (cachedUsers) fastify.kubikUserGeneration = cachedUsers.generation;
          return handler(req, res);
        }
        const ms = performance.now() - started;
        metrics.request('GET', route, 200, ms / 1000);
        if (memoryLog) memoryLog(req.url ?? '', ms);
        else accessLog?.(id, 'GET', req.url ?? '', 200, ms);
      });
      // Fastify's own default; Node's 5 s would close idle keep-alive sockets under clients' feet.
      server.keepAliveTimeout = 72_000;
      return server;
    },
    logger: options.logStream ? { ...loggerOptions(config), stream: options.logStream } : loggerOptions(config),
    genReqId: (req) => (req as RequestWithId).kubikRequestId ?? nextRequestId(req),
    requestIdHeader: false,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: 64 * 1024,
    frameworkErrors,
    logController: new LogController({ disableRequestLogging: true }),
    // Every route's schemas are zod's: given as factories, Fastify never loads Ajv and
    // fast-json-stringify for its defaults (about 50 ms of a one-core cold start). Their types
    // speak of Ajv's compile functions; the compilers are set again below with zod's types.
    schemaController: {
      compilersFactory: { buildValidator: (() => validatorCompiler) as never, buildSerializer: (() => serializerCompiler) as never },
    },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const database = options.database ?? openDatabase(config);
  const mailer = options.mailer ?? createMailer(config);
  const notifications = new NotifyChannel(database.kind === 'pg' ? config.databaseUrl : undefined, app.log);
  const userCache = new UserCache({ channel: notifications });
  userCache.watch(database);
  const ctx: AppContext = {
    config,
    db: database.db,
    dbKind: database.kind,
    mailer,
    jobs: new JobRunner(app.log, (name, ms, ok) => metrics.job(name, ms, ok)),
    metrics,
    schedule: new Scheduler(database.db),
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
      app.log,
    ),
  };
  await notifications.start();
  fastPath = ctx.publicCache;
  cachedUsers = ctx.userCache;
  // One synchronous onSend for the whole site (issue 29: three async hooks cost three promises per answer).
  app.addHook('onSend', (request, reply, payload, done) => {
    // A write request has committed by the time it answers; if anything cached was written since
    // it arrived (the generation moved: this instance's writes, other instances' NOTIFYs), whatever
    // this instance looked up meanwhile is dropped before the client can ask again. A request that
    // wrote nothing cached (a login only adds a session) leaves the cache alone.
    if (
      request.method !== 'GET' &&
      request.method !== 'HEAD' &&
      ctx.userCache.generation !== (request.raw as RequestWithId).kubikUserGeneration
    )
      ctx.userCache.clear();
    if (closing) reply.header('connection', 'close');
    const capture = request.publicCacheCapture;
    if (capture && reply.statusCode === 200)
      ctx.publicCache.remember(
        request.url,
        capture,
        reply.getHeaders() as Record<string, string | number | string[] | undefined>,
        request.routeOptions.url,
      );
    done(null, payload);
  });
  const access = accessLogger(app.log, config);
  const fromMemory = memoryAnswerLog(app.log, config);
  if (access) {
    accessLog = access.write;
    memoryLog = fromMemory?.count ?? null;
    app.addHook('onClose', (_app, done) => {
      // The lines still in the batch first: the summary comes after the period it sums up.
      access.flush();
      fromMemory?.flush();
      done();
    });
  }
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // Every answer Fastify gives, by its route's pattern (bounded labels; 404s share one).
  app.addHook('onResponse', (request, reply, done) => {
    metrics.request(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    accessLog?.(request.id, request.method, request.url, reply.statusCode, reply.elapsedTime);
    done();
  });
  app.decorate('ctx', ctx);

  registerErrorHandling(app);
  await app.register(fastifyCookie);
  registerSecurityHeaders(app, config);
  registerJsonParser(app);
  registerOriginCheck(app, config);
  registerAccessControl(app, ctx);
  const activity = registerSessionActivity(app, ctx);
  const replay = new SessionReplay(ctx.userCache, (tokenHash, now) => activity.fresh(tokenHash, now));
  ownPath = config.sessionReplay ? replay : null;
  app.decorate('sessionReplay', replay);
  // Added after the cookie plugin's onSend, so a cookie set on the answer is among its headers
  // by now (such an answer is never replayed).
  app.addHook('onSend', (request, reply, payload, done) => {
    const route = request.routeOptions.url;
    // Only a GET's 200 is ever replayed: a refusal (a guest's 401) does not gather its headers.
    if (ownPath && route && request.method === 'GET' && reply.statusCode === 200 && REPLAYED_ROUTES.has(route))
      replay.remember({
        method: request.method,
        route,
        url: request.url,
        status: reply.statusCode,
        token: request.authState?.token,
        user: request.user,
        startedAt: (request.raw as RequestWithId).kubikUserGeneration,
        requestHeaders: request.headers,
        headers: reply.getHeaders() as Record<string, string | number | string[] | undefined>,
        payload,
      });
    done(null, payload);
  });

  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: `${config.siteName} API`,
        description:
          'API сайта игрового сервера. Ошибки: { "error": "текст", "code": "машинный_код", "field": "путь.к.полю" } (field — только когда виновато одно поле). Вход: cookie сеанса или заголовок Authorization: Bearer <токен из /api/user/login с bearer: true>.',
        version: '1.0.0',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
    // Schemas with an id (the contract's ErrorCode) become components the routes refer to.
    transformObject: jsonSchemaTransformObject,
  });
  // Its pages and logo lie beside its own code, which the production bundle moves (scripts/build.mjs).
  const swaggerUiFiles = path.join(path.dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui/package.json')), 'static');
  await app.register(fastifySwaggerUi, {
    routePrefix: '/api/docs',
    baseDir: swaggerUiFiles,
    logo: { type: 'image/svg+xml', content: readFileSync(path.join(swaggerUiFiles, 'logo.svg')) },
  });

  // Letters go out under the site's name as the owner set it (Админ-панель → Настройки).
  ctx.jobs.register(mailJob(database.db, mailer, app.log, () => siteName(ctx)));
  ctx.jobs.register(ctx.schedule.job(keyCleanupJob(database.db)));
  ctx.jobs.register(ctx.schedule.job(sessionSweepJob(database.db)));
  // Connections to PostgreSQL: the query pool and the LISTEN connection (zero on SQLite).
  const dbHealth = database.health;
  dbHealth.log = app.log;
  metrics.counter({
    name: 'kubik_db_connection_errors_total',
    help: 'Connection errors to the database: connects that failed and open connections that broke, by client (pool, listen)',
    labelNames: ['client'],
    read: () => [
      { labels: { client: 'pool' }, value: dbHealth.errors },
      { labels: { client: 'listen' }, value: notifications.errors },
    ],
  });
  metrics.counter({
    name: 'kubik_db_reconnects_total',
    help: 'Connections to the database made again after an outage, by client (pool, listen)',
    labelNames: ['client'],
    read: () => [
      { labels: { client: 'pool' }, value: dbHealth.reconnects },
      { labels: { client: 'listen' }, value: notifications.reconnects },
    ],
  });
  metrics.gauge({
    name: 'kubik_db_up',
    help: '1 while the database is reachable by this process (its last connect worked, the LISTEN connection is up), by client',
    labelNames: ['client'],
    read: async () => [
      { labels: { client: 'pool' }, value: dbHealth.up ? 1 : 0 },
      { labels: { client: 'listen' }, value: notifications.up ? 1 : 0 },
    ],
  });
  metrics.gauge({
    name: 'kubik_mail_queue',
    help: 'Letters in the outbox: queued (to send now or on retry) and failed (given up)',
    labelNames: ['state'],
    read: () => mailQueueDepth(database.db),
  });
  if (config.backup.dir) ctx.jobs.register(ctx.schedule.job(backupJob(config, app.log)));
  if (ctx.limiter instanceof DatabaseRateLimiter) ctx.jobs.register(ctx.schedule.job(ctx.limiter.sweepJob()));
  for (const mod of modules) await app.register(mod(ctx));

  registerWebApp(app, config);

  // The one place background work starts and stops (lib/jobs); tests switch it off and call passes directly.
  app.addHook('onReady', async () => {
    if (config.workers) ctx.jobs.start();
  });
  // Jobs start winding down while in-flight requests finish (preClose), both within the timeout.
  let jobsStopped: Promise<boolean> | undefined;
  app.addHook('preClose', async () => {
    closing = true;
    jobsStopped = ctx.jobs.stop(config.shutdownTimeoutMs);
  });
  app.addHook('onClose', async () => {
    if (!(await (jobsStopped ?? ctx.jobs.stop(config.shutdownTimeoutMs))))
      app.log.warn('background jobs still running at the shutdown deadline; their claims were released');
    ctx.userCache.stop();
    await notifications.stop();
    mailer.close();
    if (!options.database) await database.close();
  });
  return app;
}

/**
 * Every /api route must say who may call it (`config: { access }`); a route without a rule
 * stops the app from starting, so nothing is exposed by accident.
 */
function registerAccessControl(app: FastifyInstance, ctx: AppContext): void {
  app.decorate('apiRoutes', [] as ApiRoute[]);
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/') || route.url.startsWith('/api/docs')) return;
    const access = route.config?.access;
    if (!access) throw new Error(`route ${String(route.method)} ${route.url} declares no config.access`);
    // Every admin route names the staff permission it needs (issue 26), so none is open to every staff member by accident.
    const permission = route.config?.permission;
    if (access === 'admin' && (!permission || !ROUTE_PERMISSIONS.has(permission)))
      throw new Error(`admin route ${String(route.method)} ${route.url} declares no known config.permission`);
    if (access !== 'admin' && permission)
      throw new Error(`route ${String(route.method)} ${route.url} declares a permission but is not access 'admin'`);
    for (const method of [route.method].flat())
      if (method !== 'HEAD') app.apiRoutes.push({ method, url: route.url, access, ...(permission ? { permission } : {}) });
  });
  // Keyed by the token's hash: the cache holds no usable secret.
  registerAccessCheck(
    app,
    (token) => cachedSession(ctx, token),
    ctx.config.gravitSecret,
    (user) => requireAdminTwoFactor(ctx, user),
  );
}

/**
 * The web build's files as URL paths (`/assets/index-d4.js`), without the page renderer (`ssr/`,
 * the server's, not a download) and the compressed copies the static plugin picks by itself.
 */
function webFiles(root: string): Set<string> {
  const files = new Set<string>();
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const name = `${prefix}/${entry.name}`;
      if (entry.isDirectory()) {
        if (name !== '/ssr') walk(path.join(dir, entry.name), name);
      } else if (entry.isFile() && !/\.(br|gz)$/.test(name)) files.add(name);
    }
  };
  walk(root, '');
  return files;
}

/** Serves the built single-page app, with index.html for every non-API path it does not know. */
function registerWebApp(app: FastifyInstance, config: Readonly<Config>): void {
  // Launcher builds and other files the owner publishes: DATA_DIR/downloads → /downloads/.
  const downloads = path.join(config.dataDir, 'downloads');
  ensurePrivateDir(downloads);
  void app.register(fastifyStatic, { root: downloads, prefix: '/downloads/', decorateReply: false, index: false });

  const indexFile = path.join(config.webDist, 'index.html');
  const hasWeb = existsSync(indexFile);
  if (hasWeb) {
    // The build's files, listed once at start (a new build comes with a restart). Any other path
    // (a page of the app, a scanner's guess, /api/…) goes to the 404 handler without touching the
    // disk: the static plugin's own catch-all tried .br, .gz and the plain name, each with a
    // directory read to check the spelling, for every such request (about 300 µs of CPU a 404).
    // A listed name is spelled exactly, so the plugin's check is not needed for it.
    const files = webFiles(config.webDist);
    void app.register(fastifyStatic, {
      root: config.webDist,
      serve: false,
      index: false,
      // The build writes .br and .gz beside every text asset (apps/web/vite.config.ts).
      preCompressed: true,
      setHeaders(res, filePath) {
        res.header('cache-control', filePath.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
    app.get('/*', { config: { access: 'public' }, schema: { hide: true } }, (request, reply) => {
      const pathname = request.url.split('?', 1)[0]!;
      return files.has(pathname) ? reply.sendFile(pathname) : reply.callNotFound();
    });
  }
  // The static plugin would treat '/' as a directory: the home page is the app's index.
  const indexHtml = async () => indexPage(indexFile, await app.ctx.settings.get(SiteSettingsDoc));
  const prerender = new Prerender(app, prerenderFile(config.webDist), app.log);
  const sendIndex = async (request: FastifyRequest, reply: FastifyReply, pathname: string) => {
    const cache = app.ctx.publicCache;
    // A guest's first pages come drawn (modules/site/site.prerender.ts), drawn again when an
    // answer they show changes; a signed-in visitor's header is their own: they get the shell.
    if (!hasSignedInMarker(request.headers.cookie) && (await prerender.draws(pathname))) {
      const key = `web.page:${pathname}`;
      const page = await cache.get(
        key,
        async () => {
          const { html, inputs } = await prerender.page((await indexHtml()).toString(), pathname);
          cache.dependOn(key, inputs);
          return Buffer.from(html);
        },
        'text/html; charset=utf-8',
        // Prices on sale and the footer's year follow the clock: drawn again at least every minute.
        { guestsOnly: true, maxAgeMs: 60_000 },
      );
      return sendCached(request, reply, page);
    }
    return sendCached(request, reply, await cache.get('web.index', indexHtml, 'text/html; charset=utf-8'));
  };
  // A fresh site (no administrator yet) leads every page to first-run setup (modules/setup);
  // once an administrator exists this is a flag in memory.
  const sendPage = async (request: FastifyRequest, reply: FastifyReply, pathname: string) =>
    pathname !== '/setup' && (await setupNeeded(app.ctx)) ? reply.redirect('/setup') : sendIndex(request, reply, pathname);
  if (hasWeb) app.get('/', { config: { access: 'public' }, schema: { hide: true } }, (request, reply) => sendPage(request, reply, '/'));
  app.setNotFoundHandler((request, reply) => {
    const url = request.url;
    if (url.startsWith('/api/') || url === '/api' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      return reply.code(404).send({ error: 'Не найдено', code: 'not_found' } satisfies ErrorBody);
    }
    // A missing file (a script, an image, a download) is a 404, not the app's index page.
    const pathname = url.split('?')[0] ?? '';
    if (pathname.startsWith('/downloads/') || /\.[a-z0-9]{1,8}$/i.test(pathname)) {
      return reply.code(404).type('text/plain; charset=utf-8').send('Файл не найден');
    }
    if (!hasWeb) return reply.code(503).type('text/plain; charset=utf-8').send('Веб-приложение не собрано: выполните npm run build');
    return sendPage(request, reply, pathname);
  });
}
