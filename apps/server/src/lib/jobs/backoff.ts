/**
 * Wait before the next try after the nth failure in a row (n ≥ 1): baseMs, doubling each time,
 * never more than capMs. With `jitter` (0…1) up to that fraction is taken off at random, so
 * instances that failed together do not retry together.
 */
export function backoffMs(failures: number, options: { baseMs: number; capMs: number; jitter?: number }): number {
  const delay = Math.min(options.baseMs * 2 ** Math.max(0, failures - 1), options.capMs);
  return options.jitter ? Math.round(delay * (1 - Math.random() * options.jitter)) : delay;
}
