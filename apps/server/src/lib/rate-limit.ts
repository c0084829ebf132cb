import { sql } from 'kysely';
import type { Db, DbKind } from '../db/index.ts';
import type { ScheduledJobSpec } from './jobs/index.ts';
import { tooMany } from './errors.ts';

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
}

/** The per-process store (SQLite: one process holds the site). */
export class MemoryRateLimiter implements RateLimiter {
  private readonly hits = new Map<string, { count: number; resetAt: number }>();

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
    if (entry.count > limit) throw limitReached(entry.resetAt, now);
  }

  async reset(key: string): Promise<void> {
    this.hits.delete(key);
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
  constructor(
    private readonly db: Db,
    private readonly enabled: boolean,
    private readonly windowMs: number,
  ) {}

  async hit(key: string, limit: number, now = Date.now()): Promise<void> {
    if (!this.enabled) return;
    const resetAt = now + this.windowMs;
    const row = await sql<{ count: number; reset_at: number }>`
      insert into rate_limits as r (key, count, reset_at) values (${key}, 1, ${resetAt})
      on conflict (key) do update set
        count = case when r.reset_at <= ${now} then 1 else r.count + 1 end,
        reset_at = case when r.reset_at <= ${now} then ${resetAt} else r.reset_at end
      returning count, reset_at`
      .execute(this.db)
      .then((r) => r.rows[0]!);
    if (Number(row.count) > limit) throw limitReached(Number(row.reset_at), now);
  }

  async reset(key: string): Promise<void> {
    await this.db.deleteFrom('rate_limits').where('key', '=', key).execute();
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

function limitReached(resetAt: number, now: number) {
  const minutes = Math.max(1, Math.ceil((resetAt - now) / 60_000));
  return tooMany(`Слишком много попыток. Попробуйте через ${minutes} ${pluralMinutes(minutes)}.`);
}

function pluralMinutes(n: number): string {
  const forms = { one: 'минуту', few: 'минуты', many: 'минут', other: 'минуты' } as const;
  return forms[new Intl.PluralRules('ru-RU').select(n) as keyof typeof forms] ?? 'минут';
}
