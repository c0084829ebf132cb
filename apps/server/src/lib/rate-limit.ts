import { isIPv6 } from 'node:net';
import { sql } from 'kysely';
import type { Db, DbKind } from '../db/index.ts';
import type { ScheduledJobSpec } from './jobs/index.ts';
import { tooMany } from './errors.ts';
import { plural } from './plural.ts';

/**
 * Fixed-window counters. Login, registration and password recovery need two keys per request
 * (the IP and the account), which the stock plugin cannot express.
 *
 * Two stores behind one interface (docs/decisions/170-shared-rate-limits.md):
 * - SQLite runs one process, so its counters live in that process's memory;
 * - PostgreSQL may run several instances behind a proxy, so the counters live in the database
 *   (rate_limits, one atomic upsert per hit) and every instance counts the same attempts.
 */
export interface RateLimiter {
  /** Counts a hit on key and throws 429 when more than limit hits fell in the window. */
  hit(key: string, limit: number, now?: number): Promise<void>;
  /** Forgets the key's hits (a successful login clears its account's failures). */
  reset(key: string): Promise<void>;
  /**
   * Milliseconds this instance still refuses the key for, from memory (0: not refused): a route's
   * onRequest hook answers 429 with it before the body is read or the database touched.
   */
  blockedFor(key: string, now?: number): number;
}

/**
 * Keys over their limit, until their window ends: kept in this process's memory in front of
 * either store, so a refused client costs a map lookup (docs/decisions/290-refusals-in-memory.md).
 * Bounded: when full, ended entries go, then the oldest.
 */
class Blocks {
  private readonly until = new Map<string, number>();

  add(key: string, until: number, now: number): void {
    if (this.until.size >= 50_000) {
      for (const [k, v] of this.until) if (v <= now) this.until.delete(k);
      if (this.until.size >= 50_000) this.until.delete(this.until.keys().next().value!);
    }
    this.until.set(key, until);
  }

  left(key: string, now: number): number {
    const until = this.until.get(key);
    if (until === undefined) return 0;
    if (until > now) return until - now;
    this.until.delete(key);
    return 0;
  }

  delete(key: string): void {
    this.until.delete(key);
  }
}

/**
 * The key a client address is counted under: an IPv4 address as it is (also when IPv4-mapped),
 * an IPv6 address by its /64 — one subscriber gets a whole /64, so counting full addresses let
 * one client rotate through 2^64 of them.
 */
export function addressKey(ip: string): string {
  if (ip.startsWith('::ffff:') && ip.includes('.')) return ip.slice(7);
  if (!ip.includes(':') || !isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.split('%')[0]!.toLowerCase().split('::') as [string, string?];
  const left = head ? head.split(':') : [];
  const right = ip.includes('::') && tail ? tail.split(':') : [];
  // An embedded IPv4 tail (::1.2.3.4) only ever touches the last 32 bits, outside the /64.
  const groups = ip.includes('::') ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => (parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
}

/**
 * The network an address belongs to: IPv4 /24, IPv6 /64. Password checks take turns by it
 * (front-door/admission.ts) and strangers' failed logins are counted by it
 * (modules/users/login-throttle.ts): a client rotating through its network's addresses is still
 * one client there.
 */
export function networkOf(address: string): string {
  const key = addressKey(address);
  if (key.includes(':')) return key;
  const dot = key.lastIndexOf('.');
  return dot < 0 ? key : `${key.slice(0, dot)}.0/24`;
}

/** The per-process store (SQLite: one process holds the site). */
export class MemoryRateLimiter implements RateLimiter {
  private readonly hits = new Map<string, { count: number; resetAt: number }>();
  private readonly blocks = new Blocks();

  constructor(
    private readonly enabled: boolean,
    private readonly windowMs: number,
  ) {}

  async hit(key: string, limit: number, now = Date.now()): Promise<void> {
    if (!this.enabled) return;
    let entry = this.hits.get(key);
    if (!entry || entry.resetAt <= now) {
      entry = { count: 0, resetAt: now + this.windowMs };
      this.hits.set(key, entry);
      if (this.hits.size > 100_000) this.sweep(now);
    }
    entry.count += 1;
    if (entry.count > limit) {
      this.blocks.add(key, entry.resetAt, now);
      throw limitReached(entry.resetAt, now);
    }
  }

  async reset(key: string): Promise<void> {
    this.hits.delete(key);
    this.blocks.delete(key);
  }

  blockedFor(key: string, now = Date.now()): number {
    return this.enabled ? this.blocks.left(key, now) : 0;
  }

  private sweep(now: number): void {
    for (const [k, v] of this.hits) if (v.resetAt <= now) this.hits.delete(k);
  }
}

/**
 * The shared store on PostgreSQL: one row per key. A hit is one statement — insert, or on
 * conflict count up (or start a new window when the old one ended) — so concurrent hits from
 * any number of instances are serialised by the row lock and none is lost. Ended windows are
 * deleted by a periodic job (sweepJob), which runs once per period across instances.
 */
export class DatabaseRateLimiter implements RateLimiter {
  private readonly blocks = new Blocks();

  constructor(
    private readonly db: Db,
    private readonly enabled: boolean,
    private readonly windowMs: number,
  ) {}

  async hit(key: string, limit: number, now = Date.now()): Promise<void> {
    if (!this.enabled) return;
    // Refused already: counting further would only cost a statement per refusal.
    const left = this.blocks.left(key, now);
    if (left > 0) throw limitReached(now + left, now);
    const resetAt = now + this.windowMs;
    const row = await sql<{ count: number; reset_at: number }>`
      insert into rate_limits as r (key, count, reset_at) values (${key}, 1, ${resetAt})
      on conflict (key) do update set
        count = case when r.reset_at <= ${now} then 1 else r.count + 1 end,
        reset_at = case when r.reset_at <= ${now} then ${resetAt} else r.reset_at end
      returning count, reset_at`
      .execute(this.db)
      .then((r) => r.rows[0]!);
    if (Number(row.count) > limit) {
      this.blocks.add(key, Number(row.reset_at), now);
      throw limitReached(Number(row.reset_at), now);
    }
  }

  async reset(key: string): Promise<void> {
    this.blocks.delete(key);
    await this.db.deleteFrom('rate_limits').where('key', '=', key).execute();
  }

  blockedFor(key: string, now = Date.now()): number {
    return this.enabled ? this.blocks.left(key, now) : 0;
  }

  /** Deletes the rows whose window has ended; returns how many. */
  async sweep(now = Date.now()): Promise<number> {
    const res = await this.db.deleteFrom('rate_limits').where('reset_at', '<=', now).executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /** The periodic cleanup of ended windows, once per window across all instances. */
  sweepJob(): ScheduledJobSpec {
    return { name: 'rate-limits-sweep', everyMs: Math.max(60_000, this.windowMs), run: () => this.sweep() };
  }
}

export function createRateLimiter(db: Db, kind: DbKind, opts: { enabled: boolean; windowMs: number }): RateLimiter {
  return kind === 'pg' ? new DatabaseRateLimiter(db, opts.enabled, opts.windowMs) : new MemoryRateLimiter(opts.enabled, opts.windowMs);
}

/** The 429 of a key over its limit (also for an onRequest refusal by blockedFor). */
export function limitReached(resetAt: number, now: number) {
  return tooMany(limitText(resetAt - now), { extra: { retry_after: Math.max(1, Math.ceil((resetAt - now) / 1000)) } });
}

/** The refusal's text: when to try again, in whole minutes. */
export function limitText(leftMs: number): string {
  const minutes = Math.max(1, Math.ceil(leftMs / 60_000));
  return `Слишком много попыток. Попробуйте через ${minutes} ${plural(minutes, ['минуту', 'минуты', 'минут'])}.`;
}
