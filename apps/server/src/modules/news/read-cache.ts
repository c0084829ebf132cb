/**
 * A whole public list kept in memory: read on the first request after a change, then served
 * without touching the database until the next write calls invalidate().
 *
 * invalidate() must run after the write has committed. A load that was already running when
 * it was called may still answer the requests waiting on it, but its result is not kept, so
 * the next request reads the committed state.
 *
 * Within one process every write goes through invalidate(). Other instances only learn of a
 * change when maxAgeMs runs out; that bound is what makes several instances acceptable until
 * invalidations are shared between them.
 */
export interface ReadCacheOptions {
  /** Longest time a loaded value is served; Infinity keeps it until invalidate(). */
  maxAgeMs?: number;
  now?: () => number;
}

export class ReadCache<T> {
  private value: { data: T; loadedAt: number } | null = null;
  private pending: Promise<T> | null = null;
  private generation = 0;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(
    private readonly load: () => Promise<T>,
    options: ReadCacheOptions = {},
  ) {
    this.maxAgeMs = options.maxAgeMs ?? Infinity;
    this.now = options.now ?? Date.now;
  }

  get(): Promise<T> {
    if (this.value && this.now() - this.value.loadedAt < this.maxAgeMs) return Promise.resolve(this.value.data);
    // Requests that miss at the same moment share one database read.
    if (this.pending) return this.pending;
    const generation = this.generation;
    const loadedAt = this.now();
    const pending = this.load().then(
      (data) => {
        if (generation === this.generation) this.value = { data, loadedAt };
        return data;
      },
    );
    this.pending = pending;
    const clear = () => {
      if (this.pending === pending) this.pending = null;
    };
    pending.then(clear, clear);
    return pending;
  }

  invalidate(): void {
    this.generation++;
    this.value = null;
    this.pending = null;
  }
}
