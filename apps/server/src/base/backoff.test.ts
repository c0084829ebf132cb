import { describe, expect, it } from 'vitest';
import { backoffMs } from './backoff.ts';

describe('backoffMs', () => {
  it('starts at the base and doubles up to the cap', () => {
    expect([1, 2, 3, 4, 10].map((n) => backoffMs(n, { baseMs: 1000, capMs: 5000 }))).toEqual([1000, 2000, 4000, 5000, 5000]);
  });

  it('takes no failure, or a nonsense count, as the first', () => {
    for (const n of [0, -3, Number.NaN]) expect(backoffMs(n, { baseMs: 1000, capMs: 5000 })).toBe(1000);
  });

  it('grows by another factor when asked', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, { baseMs: 100, factor: 3, capMs: 10_000 }))).toEqual([100, 300, 900, 2700]);
    expect([1, 5].map((n) => backoffMs(n, { baseMs: 100, factor: 1, capMs: 10_000 }))).toEqual([100, 100]);
    expect(() => backoffMs(2, { baseMs: 100, factor: 0.5, capMs: 10_000 })).toThrow(RangeError);
  });

  it('stays at the cap after any number of failures, and never below the base', () => {
    expect(backoffMs(5000, { baseMs: 1000, capMs: 600_000 })).toBe(600_000);
    expect(backoffMs(Number.MAX_SAFE_INTEGER, { baseMs: 1, capMs: 10 })).toBe(10);
    expect(backoffMs(3, { baseMs: 0, capMs: 10 })).toBe(0);
    // A cap below the first wait (a poll interval longer than the cap): the first wait it is.
    expect(backoffMs(4, { baseMs: 900_000, capMs: 600_000 })).toBe(900_000);
  });

  it('takes up to the jitter fraction off at random', () => {
    const schedule = { baseMs: 1000, capMs: 60_000, jitter: 0.5 };
    expect(backoffMs(3, schedule, () => 0)).toBe(4000);
    expect(backoffMs(3, schedule, () => 0.999_999)).toBe(2000);
    expect(backoffMs(3, schedule, () => 0.25)).toBe(3500);
    for (let i = 0; i < 50; i++) {
      const d = backoffMs(3, schedule);
      expect(d).toBeGreaterThanOrEqual(2000);
      expect(d).toBeLessThanOrEqual(4000);
    }
  });
});
