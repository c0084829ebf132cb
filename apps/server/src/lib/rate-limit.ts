import { tooMany } from './errors.ts';

/**
 * A fixed-window counter in memory. Login, registration and password recovery need two keys
 * per request (the IP and the account), which the stock plugin cannot express; and the counters
 * only need to be rough, so one process's memory is enough.
 */
export class RateLimiter {
  private readonly hits = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly enabled: boolean,
    private readonly windowMs: number,
  ) {}

  /** Counts a hit on key and throws 429 when more than limit hits fell in the window. */
  hit(key: string, limit: number, now = Date.now()): void {
    if (!this.enabled) return;
    let entry = this.hits.get(key);
    if (!entry || entry.resetAt <= now) {
      entry = { count: 0, resetAt: now + this.windowMs };
      this.hits.set(key, entry);
      if (this.hits.size > 100_000) this.sweep(now);
    }
    entry.count += 1;
    if (entry.count > limit) {
      const minutes = Math.max(1, Math.ceil((entry.resetAt - now) / 60_000));
      throw tooMany(`Слишком много попыток. Попробуйте через ${minutes} ${pluralMinutes(minutes)}.`);
    }
  }

  reset(key: string): void {
    this.hits.delete(key);
  }

  private sweep(now: number): void {
    for (const [k, v] of this.hits) if (v.resetAt <= now) this.hits.delete(k);
  }
}

function pluralMinutes(n: number): string {
  const forms = { one: 'минуту', few: 'минуты', many: 'минут', other: 'минуты' } as const;
  return forms[new Intl.PluralRules('ru-RU').select(n) as keyof typeof forms] ?? 'минут';
}
