import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotifyChannel } from './notify-channel.ts';

/** One public answer, serialized and compressed once, served from memory until a write. */
export interface CachedBody {
  json: Buffer;
  gzip: Buffer;
  etag: string;
  contentType: string;
  /** Only for a browser without the signed-in marker (a page drawn for guests). */
  guestsOnly?: boolean;
  /** Date.now() after which it is built again (none: until a write drops it). */
  expiresAt?: number;
}

export interface CacheOptions {
  /** Served from memory only to requests without the signed-in marker cookie. */
  guestsOnly?: boolean;
  /** Built again after this long even without a write (what it shows depends on the clock). */
  maxAgeMs?: number;
}

/** Which cached answer a request was sent, and its generation (see PublicCache.dependOn). */
export interface AnswerSource {
  key: string;
  generation: number;
}
const answered = new WeakMap<IncomingMessage, AnswerSource>();
/** The cached answer sendCached() gave this request (an app.inject's `res.raw.req`), if any. */
export const answeredFrom = (req: IncomingMessage): AnswerSource | undefined => answered.get(req);

/** The readable cookie the server sets beside a session (plugins/auth.ts SIGNED_IN_COOKIE). */
const SIGNED_IN = /(?:^|;\s*)kubik_in=1(?:;|$)/;
export const hasSignedInMarker = (cookie: string | undefined): boolean => cookie !== undefined && SIGNED_IN.test(cookie);

type Variant = 'gzip' | 'plain';

/** A URL whose last answer came from the cache, with the exact headers Fastify sent for it. */
interface FastRoute {
  key: string;
  body: CachedBody;
  /** The Fastify route pattern that built the answer (the metrics' route label). */
  route: string;
  /** Per variant, the headers as writeHead's flat [name, value, …] list, content-length included. */
  headers: Partial<Record<Variant, string[]>>;
  /** Per variant, the body's bytes as a Latin-1 string (see latin1Body). */
  bodies: Partial<Record<Variant, string>>;
}

declare module 'fastify' {
  interface FastifyRequest {
    publicCacheCapture?: { key: string; body: CachedBody; variant: Variant };
  }
}

const CHANNEL = 'kubik_public_cache';

/**
 * Public reads (news, tiers, servers, shop items) change only when an admin or a background job
 * writes, so they are built once, kept serialized and gzipped, and dropped on write. With
 * PostgreSQL invalidate() tells every instance through the shared notification channel; while
 * that channel is down nothing is cached (another instance's write would go unseen).
 */
export class PublicCache {
  private readonly entries = new Map<string, CachedBody>();
  private readonly keys = new WeakMap<CachedBody, string>();
  private readonly fast = new Map<string, FastRoute>();
  private readonly pending = new Map<string, Promise<CachedBody>>();
  /** Bumped on every invalidation of a key, so a build that raced a write is not kept. */
  private readonly generations = new Map<string, number>();
  /** For each answer, the entries built from it (dependOn). */
  private readonly dependents = new Map<string, Set<string>>();

  constructor(private readonly channel: NotifyChannel = new NotifyChannel()) {
    channel.on(CHANNEL, (key) => this.dropLocal(key));
    // A lost connection would leave stale entries: drop everything (get() stops caching meanwhile).
    channel.onDown(() => {
      this.entries.clear();
      this.fast.clear();
    });
  }

  /** build() returns a value to serialize as JSON, or raw bytes served with contentType. */
  async get(
    key: string,
    build: () => Promise<unknown>,
    contentType = 'application/json; charset=utf-8',
    options: CacheOptions = {},
  ): Promise<CachedBody> {
    // With PostgreSQL but no working channel, other instances' writes would go unseen: don't cache.
    const shared = this.channel.up;
    const hit = shared ? this.entries.get(key) : undefined;
    if (hit && (hit.expiresAt === undefined || hit.expiresAt > Date.now())) return hit;
    const running = this.pending.get(key);
    if (running) return running;
    const generation = this.generations.get(key) ?? 0;
    const promise = build()
      .then((value) => {
        const json = Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value));
        const body: CachedBody = {
          json,
          gzip: gzipSync(json),
          etag: `"${createHash('sha1').update(json).digest('base64url')}"`,
          contentType,
          ...(options.guestsOnly ? { guestsOnly: true } : {}),
          ...(options.maxAgeMs ? { expiresAt: Date.now() + options.maxAgeMs } : {}),
        };
        this.keys.set(body, key);
        if (shared && (this.generations.get(key) ?? 0) === generation) this.entries.set(key, body);
        return body;
      })
      .finally(() => this.pending.delete(key));
    this.pending.set(key, promise);
    return promise;
  }

  keyOf(body: CachedBody): string | undefined {
    return this.keys.get(body);
  }

  generationOf(key: string): number {
    return this.generations.get(key) ?? 0;
  }

  /**
   * `key` is built from these answers (as answeredFrom() saw them sent): it is dropped with any
   * of them, here and, through their own invalidation, on every instance. Called inside the
   * build; an answer that changed since it was read drops the build at once.
   */
  dependOn(key: string, inputs: Iterable<AnswerSource>): void {
    for (const input of inputs) {
      let set = this.dependents.get(input.key);
      if (!set) this.dependents.set(input.key, (set = new Set()));
      set.add(key);
      if ((this.generations.get(input.key) ?? 0) !== input.generation) this.dropLocal(key);
    }
  }

  /** Drops the key here and on every other instance. Call after the write has committed. */
  async invalidate(key: string): Promise<void> {
    this.dropLocal(key);
    if (this.channel.kind === 'pg') await this.channel.notify(CHANNEL, key);
  }

  /**
   * Remembers the headers Fastify sent with a cached answer, so the next request for the same
   * URL can be answered before Fastify sees it (see tryServe).
   */
  remember(
    url: string,
    capture: { key: string; body: CachedBody; variant: Variant },
    headers: Record<string, string | number | string[] | undefined>,
    pattern = url,
  ): void {
    if (this.entries.get(capture.key) !== capture.body) return;
    let route = this.fast.get(url);
    // A signed-in visitor's answer for a URL whose guests' answer is in memory stays out of it.
    if (route?.body.guestsOnly && !capture.body.guestsOnly && this.entries.get(route.key) === route.body) return;
    if (!route || route.body !== capture.body) {
      route = { key: capture.key, body: capture.body, headers: {}, bodies: {}, route: pattern };
      if (this.fast.size > 1000) this.fast.clear();
      this.fast.set(url, route);
    }
    const bytes = capture.variant === 'gzip' ? capture.body.gzip : capture.body.json;
    const flat: string[] = [];
    for (const [name, value] of Object.entries(headers)) {
      // Each answer carries its own request id (tryServe adds it), never the one that filled the cache.
      if (value === undefined || name === 'content-length' || name === 'x-request-id') continue;
      for (const v of Array.isArray(value) ? value : [value]) flat.push(name, String(v));
    }
    // The last slot is the request id's value, written by tryServe just before writeHead reads the list.
    flat.push('content-length', String(bytes.length), 'x-request-id', '');
    route.headers[capture.variant] = flat;
    route.bodies[capture.variant] = latin1Body(bytes);
  }

  /**
   * The fast path for public reads: a GET for a URL whose current cached answer Fastify already
   * sent once is written straight to the socket with the same bytes and headers. Anything
   * else (stale entry, conditional request, unknown URL) goes on to Fastify.
   */
  /** Answers from memory when it can; returns the route pattern it answered for, or null (Fastify's turn). */
  tryServe(req: IncomingMessage, res: ServerResponse, requestId: string): string | null {
    if (req.method !== 'GET' || req.headers['if-none-match']) return null;
    const route = this.fast.get(req.url ?? '');
    if (!route || this.entries.get(route.key) !== route.body) return null;
    if (route.body.guestsOnly && hasSignedInMarker(req.headers.cookie)) return null;
    if (route.body.expiresAt !== undefined && route.body.expiresAt <= Date.now()) return null;
    const variant: Variant = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '') ? 'gzip' : 'plain';
    const headers = route.headers[variant];
    const body = route.bodies[variant];
    if (!headers || body === undefined) return null;
    // writeHead reads the list at once and keeps no reference: one list serves every answer, no copy.
    headers[headers.length - 1] = requestId;
    res.writeHead(200, headers);
    res.end(body, 'latin1');
    return route.route;
  }

  private dropLocal(key: string): void {
    this.entries.delete(key);
    this.pending.delete(key);
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
    const dependents = this.dependents.get(key);
    this.dependents.delete(key);
    for (const other of dependents ?? []) this.dropLocal(other);
  }
}

/**
 * An answer's bytes as a string of one byte per character, to be sent with `res.end(text,
 * 'latin1')`: Node then writes its header and the body as one string (its own header-and-first-
 * chunk join), where a Buffer body is a second chunk of the socket's write — about 2,300 fewer
 * instructions an answer under valgrind, 2.5 % of a bare server's answer (issue 29). The bytes
 * are the same: Latin-1 maps each byte to the character of that code and back.
 */
export const latin1Body = (bytes: Buffer): string => bytes.toString('latin1');

/** Sends a cached body: 304 when the client has it, gzip when the client accepts it. */
export function sendCached(request: FastifyRequest, reply: FastifyReply, body: CachedBody, maxAgeSec = 0): FastifyReply {
  reply
    .header('etag', body.etag)
    .header('vary', 'accept-encoding')
    .header('cache-control', maxAgeSec > 0 ? `public, max-age=${maxAgeSec}` : 'no-cache');
  if (request.headers['if-none-match'] === body.etag) return reply.code(304).send();
  reply.header('content-type', body.contentType);
  const gzip = /\bgzip\b/.test(request.headers['accept-encoding'] ?? '');
  const cache = request.server.ctx.publicCache;
  const key = cache.keyOf(body);
  if (key && request.method === 'GET') {
    request.publicCacheCapture = { key, body, variant: gzip ? 'gzip' : 'plain' };
    answered.set(request.raw, { key, generation: cache.generationOf(key) });
  }
  if (gzip) return reply.header('content-encoding', 'gzip').send(body.gzip);
  return reply.send(body.json);
}
