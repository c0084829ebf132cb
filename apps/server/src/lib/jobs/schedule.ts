import { sql } from 'kysely';
import type { Db } from '../../db/index.ts';
import { backoffMs } from '../../base/backoff.ts';
import { ClaimOwner } from './claim-owner.ts';
import type { Job } from './runner.ts';

export interface ScheduledJobSpec {
  /** Primary key in job_schedule; keep it stable across releases. */
  name: string;
  /** One run per period across all instances. */
  everyMs: number;
  /** How long a claimed run may take before another instance may take it over (default: the period, at most 1 h). */
  leaseMs?: number;
  /** How often each instance asks whether the job is due (default 60 s, or the period if shorter). */
  pollMs?: number;
  run(signal: AbortSignal): Promise<unknown>;
}

export type ScheduledOutcome = 'ran' | 'failed' | 'not_due';

/**
 * Periodic singletons (privilege expiry, payment reconciliation, backups, cleanups): a row per
 * job in job_schedule says when it is due next. Whichever instance claims the due row (a
 * conditional update with a lease) runs it; the rest see it taken. The next run is a period
 * after this one started; a failure retries sooner, backing off (1 min, 2 min … up to the period).
 * Restarts keep the schedule: it lives in the database.
 */
export class Scheduler {
  /** Names whose claim this process holds right now, with the token. */
  private readonly held = new Map<string, string>();

  constructor(
    private readonly db: Db,
    /** Whose claims these are (claim-owner.ts); by default a process of its own. */
    private readonly owner = new ClaimOwner(`process-${process.pid}-${Math.random()}`),
  ) {}

  /** Gives back the job's row if an earlier life of this instance claimed it and did not finish. */
  async takeBack(name: string): Promise<void> {
    await this.db
      .updateTable('job_schedule')
      .set({ lock_token: null, locked_until: null })
      .where('name', '=', name)
      .where((eb) => this.owner.earlier(eb))
      .execute();
  }

  /** Runs the job if it is due and no other instance holds it. */
  async runIfDue(spec: ScheduledJobSpec, signal: AbortSignal = new AbortController().signal, now = Date.now()): Promise<ScheduledOutcome> {
    const token = this.owner.token();
    const lease = spec.leaseMs ?? Math.min(spec.everyMs, 3_600_000);
    await this.db
      .insertInto('job_schedule')
      .values({ name: spec.name, next_run_at: now, runs: 0, failures: 0 })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const claimed = await this.db
      .updateTable('job_schedule')
      .set({ lock_token: token, locked_until: now + lease, last_started_at: now })
      .where('name', '=', spec.name)
      .where('next_run_at', '<=', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) return 'not_due';
    this.held.set(spec.name, token);
    const mine = () => this.db.updateTable('job_schedule').where('name', '=', spec.name).where('lock_token', '=', token);
    try {
      await spec.run(signal);
      await mine()
        .set({
          lock_token: null,
          locked_until: null,
          next_run_at: now + spec.everyMs,
          last_finished_at: Date.now(),
          last_error: null,
          failures: 0,
          runs: sql<number>`runs + 1`,
        })
        .execute();
      return 'ran';
    } catch (err) {
      const row = await this.db.selectFrom('job_schedule').select('failures').where('name', '=', spec.name).executeTakeFirst();
      const failures = Number(row?.failures ?? 0) + 1;
      const finished = Date.now();
      await mine()
        .set({
          lock_token: null,
          locked_until: null,
          next_run_at: finished + backoffMs(failures, { baseMs: Math.min(60_000, spec.everyMs), capMs: spec.everyMs }),
          last_finished_at: finished,
          last_error: (err instanceof Error ? err.message : String(err)).slice(0, 1000),
          failures,
          runs: sql<number>`runs + 1`,
        })
        .execute();
      throw err;
    } finally {
      this.held.delete(spec.name);
    }
  }

  /** A runner job that asks every pollMs whether the scheduled job is due and runs it if so. */
  job(spec: ScheduledJobSpec): Job {
    return {
      name: spec.name,
      intervalMs: spec.pollMs ?? Math.min(60_000, spec.everyMs),
      run: (signal) => this.runIfDue(spec, signal),
      recover: () => this.takeBack(spec.name),
      release: () => this.release(),
    };
  }

  /** Gives back the runs this process claimed and did not finish: due again at once for any instance. */
  async release(): Promise<void> {
    const tokens = [...this.held.values()];
    this.held.clear();
    if (tokens.length > 0)
      await this.db.updateTable('job_schedule').set({ lock_token: null, locked_until: null }).where('lock_token', 'in', tokens).execute();
  }
}
