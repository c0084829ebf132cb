import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/index.ts';
import type { ErrorBody } from '../lib/errors.ts';
import { accessLogger, memoryAnswerLog, requestIds, type AccessLog, type MemoryAnswerLog } from '../lib/logging.ts';
import type { Metrics } from '../lib/metrics.ts';
import type { PublicCache } from '../lib/public-cache.ts';
import { hashToken } from '../lib/tokens.ts';
import type { UserCache } from '../lib/user-cache.ts';
import { SessionActivity } from '../modules/users/session-activity.ts';
import { isConditional, writeKept } from './http.ts';
import { MemoryAnswers } from './memory.ts';

/**
 * Every request comes in here (docs/decisions/300-how-a-request-is-answered.md). serve() answers
 * what it can before Fastify sees the request — an answer kept in memory, or a turn-away while
 * the site stops — and hands everything else to Fastify. The hooks it adds to Fastify keep what
 * Fastify answered, give each request its id, note a session's use and write the access line, so
 * that both ways in are counted and logged alike.
 */

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

declare module 'fastify' {
  interface FastifyRequest {
    /** The user cache's generation when the request arrived: a write since then clears what was looked up meanwhile. */
    arrivedAt: number;
  }
}

export interface FrontDoorParts {
  config: Readonly<Config>;
  db: Db;
  log: FastifyBaseLogger;
  metrics: Metrics;
  publicCache: PublicCache;
  userCache: UserCache;
}

export class FrontDoor {
  readonly memory: MemoryAnswers;
  readonly activity: SessionActivity;
  /** Fastify's genReqId: a proxy's id when trusted, else one of this process's (lib/logging.ts). */
  readonly requestId: (req: IncomingMessage) => string;
  /** Answers given from memory so far (tests tell the two ways in apart by it). */
  served = 0;
  private closing = false;
  private readonly access: { write: AccessLog; flush: () => Promise<void> } | null;
  private readonly fromMemory: { count: MemoryAnswerLog; flush: () => Promise<void> } | null;

  constructor(private readonly parts: FrontDoorParts) {
    this.activity = new SessionActivity(parts.db);
    this.memory = new MemoryAnswers(parts.publicCache, parts.userCache, this.activity, parts.config.sessionReplay);
    this.requestId = requestIds(parts.config);
    this.access = accessLogger(parts.log, parts.config);
    // At info, answers from memory are summed up every 10 s instead of a line each.
    this.fromMemory = this.access ? memoryAnswerLog(parts.log, parts.config) : null;
  }

  /** The HTTP server Fastify runs on: each request goes through serve() first. */
  readonly server = (handler: http.RequestListener): http.Server => {
    const server = http.createServer((req, res) => {
      if (!this.serve(req, res)) handler(req, res);
    });
    // Fastify's own default; Node's 5 s would close idle keep-alive sockets under clients' feet.
    server.keepAliveTimeout = 72_000;
    return server;
  };

  /** Answers the request when it can without Fastify; false: Fastify's turn. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.closing) {
      // A request that still arrives on a kept-alive connection is turned away (in Russian) so the client retries on another instance.
      res.writeHead(503, { ...SHUTTING_DOWN_HEADERS, 'x-request-id': this.requestId(req) }).end(SHUTTING_DOWN_BODY);
      return true;
    }
    if (req.method !== 'GET' || isConditional(req.headers)) return false;
    const started = performance.now();
    const kept = this.memory.find(req, Date.now());
    if (!kept) return false;
    const id = this.requestId(req);
    writeKept(res, kept.headers, kept.body, id);
    this.served++;
    const ms = performance.now() - started;
    this.parts.metrics.request('GET', kept.route, 200, ms / 1000);
    if (this.fromMemory) this.fromMemory.count(req.url ?? '', ms);
    else this.access?.write(id, 'GET', req.url ?? '', 200, ms);
    return true;
  }

  /**
   * The Fastify side of the door, registered after the cookie plugin (so a cookie an answer sets
   * is among its headers when onSend sees them, and such an answer is never kept).
   */
  register(app: FastifyInstance): void {
    const { userCache, metrics } = this.parts;
    app.decorateRequest('arrivedAt', 0);
    app.addHook('onRequest', (request, reply, done) => {
      request.arrivedAt = userCache.generation;
      reply.header('x-request-id', request.id);
      done();
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      const method = request.method;
      // A write has committed by the time it answers; if anything cached was written since it
      // arrived (this instance's writes, other instances' NOTIFYs), whatever this instance looked
      // up meanwhile is dropped before the client can ask again.
      if (method !== 'GET' && method !== 'HEAD' && userCache.generation !== request.arrivedAt) userCache.clear();
      if (this.closing) reply.header('connection', 'close');
      const route = request.routeOptions.url;
      if (method === 'GET' && reply.statusCode === 200 && route)
        this.memory.remember({
          url: request.url,
          route,
          requestHeaders: request.headers,
          headers: reply.getHeaders(),
          payload,
          publicCapture: request.publicCapture,
          token: request.authState?.token,
          user: request.user,
          arrivedAt: request.arrivedAt,
        });
      done(null, payload);
    });
    app.addHook('onResponse', (request, reply, done) => {
      metrics.request(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
      this.access?.write(request.id, request.method, request.url, reply.statusCode, reply.elapsedTime);
      // A signed-in request's session was used: noted at most once a minute. A refused one changes nothing.
      const token = request.authState?.token;
      if (request.user && token && token.length <= 200 && reply.statusCode < 400)
        this.activity.touch(hashToken(token), request.ip).then(() => done(), done);
      else done();
    });
  }

  /** The site is stopping: later requests are turned away, answers end their connections. */
  stop(): void {
    this.closing = true;
  }

  /** Writes what the access log and the summary of answers from memory still hold. */
  async flush(): Promise<void> {
    await this.access?.flush();
    await this.fromMemory?.flush();
  }
}
