import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
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

/** Which cached answer a request was sent, and its generation then (see PublicCache.dependOn). */
export interface AnswerSource {
  key: string;
  generation: number;
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
  private readonly pending = new Map<string, Promise<CachedBody>>();
  /** Bumped on every invalidation of a key, so a build that raced a write is not kept. */
  private readonly generations = new Map<string, number>();
  /** For each answer, the entries built from it (dependOn). */
  private readonly dependents = new Map<string, Set<string>>();

  constructor(private readonly channel: NotifyChannel = new NotifyChannel()) {
    channel.on(CHANNEL, (key) => this.dropLocal(key));
    // A lost connection would leave stale entries: drop everything (get() stops caching meanwhile).
    channel.onDown(() => this.entries.clear());
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

  /** Whether `body` is what the cache holds under `key` now (an answer made from it is still right). */
  isCurrent(key: string, body: CachedBody): boolean {
    return this.entries.get(key) === body && (body.expiresAt === undefined || body.expiresAt > Date.now());
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
