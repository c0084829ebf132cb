import { setMaxListeners } from 'node:events';

/** The few logger methods the runner uses; Fastify's (pino) logger fits. */
export interface JobLogger {
  error(obj: object, msg: string): void;
}

export interface Job {
  /** Unique; also the key of its stats (and of its metrics later). */
  name: string;
  /** Pause after a pass ends before the next starts; 0: only when kicked. */
  intervalMs: number;
  /**
   * One pass. `signal` aborts when the runner stops: finish the unit of work at hand, take no
   * new one, and return.
   */
  run(signal: AbortSignal): Promise<unknown>;
  /**
   * Takes back what an earlier life of this instance claimed and did not record (claim-owner.ts);
   * called before the first pass, and again before the next while it fails.
   */
  recover?(): Promise<unknown>;
  /** Frees what this process claimed and did not record; called by stop() after the passes ended. */
  release?(): Promise<void>;
}

export interface JobStats {
  runs: number;
  failures: number;
  /** Of the last finished pass, in ms; null before the first. */
  lastDurationMs: number | null;
  lastError: string | null;
  lastFinishedAt: number | null;
  running: boolean;
}

interface Slot {
  job: Job;
  recovered: boolean;
  stats: JobStats;
  running: Promise<void> | null;
  queued: boolean;
  timer: NodeJS.Timeout | null;
}

/**
 * Runs named background jobs in this process: each on its interval, and at once on kick(). A job
 * never runs twice at once here: a kick during a pass queues one more pass (at most one).
 * Work shared by several instances is claimed in the database (claim.ts, schedule.ts), not here.
 */
export class JobRunner {
  private readonly slots = new Map<string, Slot>();
  private readonly controller = new AbortController();
  private started = false;

  /**
   * `onPass` hears of every finished pass (the metrics: job durations, the monitor's sweeps).
   */
  constructor(
    private readonly log?: JobLogger,
    private readonly onPass?: (name: string, ms: number, ok: boolean) => void,
  ) {
    // Every pass and every check inside one may listen for the stop.
    setMaxListeners(0, this.controller.signal);
  }

  /** Aborts when stop() is called; for work started outside a pass (e.g. a check a request asked for). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  register(job: Job): void {
    if (this.slots.has(job.name)) throw new Error(`job ${job.name} is registered twice`);
    const slot: Slot = {
      job,
      recovered: !job.recover,
      stats: { runs: 0, failures: 0, lastDurationMs: null, lastError: null, lastFinishedAt: null, running: false },
      running: null,
      queued: false,
      timer: null,
    };
    this.slots.set(job.name, slot);
    if (this.started) this.kick(job.name);
  }

  /** Starts every job (one first pass each, then on its interval). Background work only runs after this. */
  start(): void {
    if (this.started || this.signal.aborted) return;
    this.started = true;
    for (const name of this.slots.keys()) this.kick(name);
  }

  /**
   * start() for a site that is about to answer: each job's first pass in an event-loop turn of its
   * own (setImmediate), so that the first requests (a readiness probe, a visitor) are answered
   * between them, not after all of them: some twenty passes of database work in one go were a
   * twentieth of a start on one core. A job a request kicked meanwhile has had its first pass.
   */
  startInTurns(): void {
    if (this.started || this.signal.aborted) return;
    this.started = true;
    const names = [...this.slots.keys()];
    const next = () => {
      if (!this.isRunning) return;
      const name = names.shift();
      if (name === undefined) return;
      const slot = this.slot(name);
      if (slot.stats.runs === 0 && !slot.running) this.kick(name);
      setImmediate(next);
    };
    setImmediate(next);
  }

  get isRunning(): boolean {
    return this.started && !this.signal.aborted;
  }

  /** Runs the job soon; does nothing before start() or after stop() (tests call passes directly). */
  kick(name: string): void {
    const slot = this.slot(name);
    if (!this.isRunning) return;
    if (slot.running) {
      slot.queued = true;
      return;
    }
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.running = this.pass(slot).finally(() => {
      slot.running = null;
      if (!this.isRunning) return;
      if (slot.queued) {
        slot.queued = false;
        this.kick(name);
      } else if (slot.job.intervalMs > 0) {
        slot.timer = setTimeout(() => this.kick(name), slot.job.intervalMs);
        slot.timer.unref();
      }
    });
  }

  /** Resolves when the job (or every job) has no pass running or queued. */
  async idle(name?: string): Promise<void> {
    const slots = name ? [this.slot(name)] : [...this.slots.values()];
    for (;;) {
      const busy = slots.map((s) => s.running).filter((p) => p !== null);
      if (busy.length === 0) return;
      await Promise.allSettled(busy);
    }
  }

  stats(): Record<string, Readonly<JobStats>> {
    return Object.fromEntries([...this.slots].map(([name, s]) => [name, { ...s.stats }]));
  }

  /**
   * Aborts the signal, waits up to deadlineMs for the passes in flight, then lets every job
   * release its claims. Resolves true when every pass ended in time.
   */
  async stop(deadlineMs: number): Promise<boolean> {
    this.controller.abort();
    for (const slot of this.slots.values()) {
      if (slot.timer) clearTimeout(slot.timer);
      slot.timer = null;
      slot.queued = false;
    }
    let timer: NodeJS.Timeout | undefined;
    const inTime = await Promise.race([
      this.idle().then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), deadlineMs))),
    ]);
    clearTimeout(timer);
    for (const slot of this.slots.values()) {
      await slot.job.release?.().catch((err: unknown) => this.log?.error({ err, job: slot.job.name }, 'job failed to release its claims'));
    }
    return inTime;
  }

  private slot(name: string): Slot {
    const slot = this.slots.get(name);
    if (!slot) throw new Error(`no job named ${name}`);
    return slot;
  }

  private async pass(slot: Slot): Promise<void> {
    const started = performance.now();
    slot.stats.running = true;
    let ok = false;
    try {
      if (!slot.recovered) {
        await slot.job.recover!();
        slot.recovered = true;
      }
      await slot.job.run(this.signal);
      slot.stats.lastError = null;
      ok = true;
    } catch (err) {
      slot.stats.failures += 1;
      slot.stats.lastError = err instanceof Error ? err.message : String(err);
      this.log?.error({ err, job: slot.job.name }, 'background job failed');
    } finally {
      slot.stats.runs += 1;
      slot.stats.running = false;
      slot.stats.lastDurationMs = Math.round(performance.now() - started);
      slot.stats.lastFinishedAt = Date.now();
      this.onPass?.(slot.job.name, performance.now() - started, ok);
    }
  }
}
