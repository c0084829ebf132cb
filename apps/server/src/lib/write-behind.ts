/**
 * Work gathered in memory and written a little later, in one go: lines of the access log, counts
 * of answers from memory, tallies of refused notifications. `take` hands over what is gathered
 * (undefined: nothing) and empties it at once, so new work gathers beside a write under way;
 * `write` stores it. Writes keep the order they were taken in: one that returns a promise holds
 * back the next until it settles; a synchronous one is done when flush() returns.
 */
export class WriteBehind<T> {
  private timer: NodeJS.Timeout | null = null;
  private writes: Promise<void> = Promise.resolve();
  private inFlight = 0;

  constructor(
    private readonly take: () => T | undefined,
    private readonly write: (batch: T) => void | Promise<void>,
    private readonly delayMs: number,
  ) {}

  /** Something was gathered: it is written within delayMs, or with the next flush. */
  soon(): void {
    // Unref'd: what waits when the process ends is written by the last flush, on close.
    this.timer ??= setTimeout(() => void this.flush(), this.delayMs).unref();
  }

  /** Takes what is gathered now; resolves when it and every earlier write are stored. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.take();
    if (batch === undefined) return this.writes;
    if (this.inFlight === 0) {
      const done = this.write(batch);
      if (done) this.track(done);
    } else this.track(this.writes.then(() => this.write(batch)));
    return this.writes;
  }

  private track(done: Promise<void>): void {
    this.inFlight++;
    // A write that fails is the writer's to handle (keep the batch for the next one, say).
    this.writes = done.catch(() => undefined).finally(() => void this.inFlight--);
  }
}
