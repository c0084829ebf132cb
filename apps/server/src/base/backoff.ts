/**
 * How long to wait before trying again after failures in a row. The one backoff of the server:
 * jobs' retries, the delivery queue's waits, the mail outbox, the notification channel's
 * reconnects and the login delay all use it, each with its own schedule.
 */
export interface Backoff {
  /** The wait after the first failure. */
  baseMs: number;
  /** Each further failure in a row multiplies the wait by this (default 2). */
  factor?: number;
  /** The longest wait; never less than baseMs. */
  capMs: number;
  /**
   * 0…1: up to this fraction of the wait is taken off at random, so that instances which failed
   * together do not all try again at the same moment.
   */
  jitter?: number;
}

/** The wait after the nth failure in a row (n ≥ 1; less counts as 1): baseMs × factor^(n−1), at most capMs. */
export function backoffMs(failures: number, schedule: Backoff, random: () => number = Math.random): number {
  const base = Math.max(0, schedule.baseMs);
  const cap = Math.max(schedule.capMs, base);
  const factor = schedule.factor ?? 2;
  if (!(factor >= 1)) throw new RangeError(`backoff factor ${factor} < 1`);
  // Past ~1000 steps any factor > 1 has long reached the cap; the bound keeps 0 × Infinity out.
  const steps = failures > 1 ? Math.min(Math.floor(failures) - 1, 1024) : 0;
  const delay = base === 0 ? 0 : Math.min(base * factor ** steps, cap);
  return schedule.jitter ? Math.round(delay * (1 - random() * Math.min(1, schedule.jitter))) : delay;
}
