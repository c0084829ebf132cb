import type { DbHandle } from '../db/index.ts';
import { NotifyChannel } from './notify-channel.ts';

/** Tables whose rows the cached values are made of: any write to one of them drops everything. */
const USER_CACHE_TABLES = ['users', 'sessions', 'user_skins', 'staff_roles'] as const;
const USER_CACHE_CHANNEL = 'kubik_user_cache';
const WATCHED = new Set<string>(USER_CACHE_TABLES);

interface Entry {
  value: unknown;
  /** Not served after this moment: the TTL, or earlier when the value itself expires (a session). */
  until: number;
}

/** Where a live session is kept, by its token's hash (modules/users cachedSession fills it, the session replay reads it). */
export const sessionCacheKey = (tokenHash: string) => `session:${tokenHash}`;

/**
 * Per-instance memory of values built from users, sessions and worn skins — the signed-in user
 * behind a session token, a player's worn skin — so /api/user/me and the player's head need no
 * query per request.
 *
 * Correctness comes first: every write to those tables through this process's database handle
 * clears the cache before and after it runs (watch()); on PostgreSQL, triggers NOTIFY every
 * instance after each commit that changed them, which clears theirs too. A lookup that raced a
 * write is not stored (generation counter). Without a working channel on PostgreSQL nothing is
 * cached; entries also expire after a few seconds, which bounds writes by other processes to a
 * SQLite file (the admin:create command).
 */
export class UserCache {
  private readonly entries = new Map<string, Entry>();
  /** Loads under way, by key, with the generation they began in (see get). */
  private readonly loading = new Map<string, { generation: number; value: Promise<unknown> }>();
  private cleared = 0;
  private unwatch: (() => void) | undefined;
  private readonly channel: NotifyChannel;

  constructor(private readonly options: { channel?: NotifyChannel; ttlMs?: number; max?: number } = {}) {
    this.channel = options.channel ?? new NotifyChannel();
    this.channel.on(USER_CACHE_CHANNEL, () => this.clear());
    this.channel.onDown(() => this.clear());
  }

  private get ttlMs(): number {
    return this.options.ttlMs ?? 10_000;
  }

  /** Clears on this process's writes to the watched tables. */
  watch(handle: Pick<DbHandle, 'onWrite'>): void {
    this.unwatch?.();
    this.unwatch = handle.onWrite((table, kind) => {
      // A new session cannot change what is cached (found values only, by their own keys); a login
      // then leaves every other player's cached session and answers alone.
      if (WATCHED.has(table) && !(kind === 'insert' && table === 'sessions')) this.clear();
    });
  }

  stop(): void {
    this.unwatch?.();
    this.clear();
  }

  private get enabled(): boolean {
    return this.channel.up;
  }

  clear(): void {
    this.cleared++;
    this.entries.clear();
    this.loading.clear();
  }

  /** Bumped by every clear(): an answer built while it stayed the same saw no write to the cached tables. */
  get generation(): number {
    return this.cleared;
  }

  /** The value under key if it is cached and still served, without loading it (lib/session-replay.ts compares it by identity). */
  peek(key: string, now = Date.now()): unknown {
    const hit = this.entries.get(key);
    return hit && hit.until > now ? hit.value : undefined;
  }

  /**
   * The value under key, loaded on a miss. `expiresAt` may shorten how long a loaded value is
   * served (a session that ends sooner than the TTL).
   */
  async get<T>(key: string, load: () => Promise<T | undefined>, expiresAt?: (value: T) => number): Promise<T | undefined> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.value as T;
    if (hit) this.entries.delete(key);
    const generation = this.cleared;
    // Requests that miss the same key while it loads share that load (a write since it began
    // drops it: clear() empties the map). Each loading on its own made as many queries, and
    // each stored value replaced the last, so a busy session's answers kept missing the
    // session replay, which wants the value the cache holds (about a third dearer /me in the
    // bench, each time the entry's TTL ran out under 50 connections).
    const shared = this.loading.get(key);
    if (shared?.generation === generation) return shared.value as Promise<T | undefined>;
    const value = load().then((value) => {
      if (value !== undefined && this.enabled && generation === this.cleared) {
        const until = Math.min(now + this.ttlMs, expiresAt ? expiresAt(value) : Infinity);
        if (this.entries.size >= (this.options.max ?? 20_000)) this.entries.delete(this.entries.keys().next().value!);
        this.entries.set(key, { value, until });
      }
      return value;
    });
    this.loading.set(key, { generation, value });
    try {
      return await value;
    } finally {
      if (this.loading.get(key)?.value === value) this.loading.delete(key);
    }
  }
}
