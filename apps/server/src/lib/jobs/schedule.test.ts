import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from '../../test/test-app.ts';
import { JobRunner } from './runner.ts';
import { Scheduler, type ScheduledJobSpec } from './schedule.ts';

const HOUR = 3_600_000;

describe.each(dbKinds)('scheduled jobs on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
  });
  afterAll(async () => {
    await t?.close();
  });
  const row = (name: string) => t.handle.db.selectFrom('job_schedule').selectAll().where('name', '=', name).executeTakeFirstOrThrow();

  it('runs once per period across instances and restarts', async () => {
    let runs = 0;
    const spec: ScheduledJobSpec = {
      name: 'test.once',
      everyMs: HOUR,
      run: async () => {
        runs++;
        await new Promise((r) => setTimeout(r, 50));
      },
    };
    const now = Date.now();
    // Three instances ask at once: one runs it.
    const outcomes = await Promise.all(
      [new Scheduler(t.handle.db), new Scheduler(t.handle.db), new Scheduler(t.handle.db)].map((s) => s.runIfDue(spec, undefined, now)),
    );
    expect(outcomes.sort()).toEqual(['not_due', 'not_due', 'ran']);
    expect(runs).toBe(1);
    // A restarted instance (a new scheduler) finds it done for this period.
    expect(await new Scheduler(t.handle.db).runIfDue(spec, undefined, now + HOUR - 1)).toBe('not_due');
    expect(await new Scheduler(t.handle.db).runIfDue(spec, undefined, now + HOUR)).toBe('ran');
    expect(runs).toBe(2);
    expect(await row('test.once')).toMatchObject({
      runs: 2,
      failures: 0,
      last_error: null,
      lock_token: null,
      locked_until: null,
      next_run_at: now + 2 * HOUR,
    });
  });

  it('backs off after a failure and resets on success', async () => {
    let fail = true;
    const spec: ScheduledJobSpec = {
      name: 'test.flaky',
      everyMs: HOUR,
      run: async () => {
        if (fail) throw new Error('Сервер оплаты не ответил');
      },
    };
    const s = new Scheduler(t.handle.db);
    const before = Date.now();
    await expect(s.runIfDue(spec)).rejects.toThrow('Сервер оплаты не ответил');
    let r = await row('test.flaky');
    expect(r).toMatchObject({ failures: 1, runs: 1, last_error: 'Сервер оплаты не ответил', lock_token: null });
    expect(r.next_run_at).toBeGreaterThanOrEqual(before + 60_000);
    expect(r.next_run_at).toBeLessThan(before + 70_000);
    await expect(s.runIfDue(spec, undefined, r.next_run_at)).rejects.toThrow();
    r = await row('test.flaky');
    expect(r.failures).toBe(2);
    expect(r.next_run_at - r.last_finished_at!).toBe(120_000);
    fail = false;
    expect(await s.runIfDue(spec, undefined, r.next_run_at)).toBe('ran');
    expect(await row('test.flaky')).toMatchObject({ failures: 0, runs: 3, last_error: null });
  });

  /** Until the run started in the background holds its claim (however loaded the machine is). */
  async function claimed(name: string): Promise<void> {
    for (let i = 0; i < 500; i++) {
      if ((await row(name).catch(() => null))?.lock_token) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`${name} was never claimed`);
  }

  it('a claim left by a crashed instance is taken over after its lease; release frees ours at once', async () => {
    const spec: ScheduledJobSpec = { name: 'test.lease', everyMs: HOUR, leaseMs: 10_000, run: () => new Promise(() => {}) };
    const crashed = new Scheduler(t.handle.db);
    const now = Date.now();
    void crashed.runIfDue(spec, undefined, now);
    await claimed('test.lease');
    const quick: ScheduledJobSpec = { ...spec, run: async () => {} };
    expect(await new Scheduler(t.handle.db).runIfDue(quick, undefined, now + 1)).toBe('not_due');
    expect(await new Scheduler(t.handle.db).runIfDue(quick, undefined, now + 10_001)).toBe('ran');

    const stopping = new Scheduler(t.handle.db);
    const held: ScheduledJobSpec = { ...spec, name: 'test.release' };
    void stopping.runIfDue(held);
    await claimed('test.release');
    await stopping.release();
    expect(await row('test.release')).toMatchObject({ lock_token: null, locked_until: null });
    expect(await new Scheduler(t.handle.db).runIfDue({ ...held, run: async () => {} })).toBe('ran');
  });

  it('runs on the job runner', async () => {
    const runner = new JobRunner();
    const s = new Scheduler(t.handle.db);
    let runs = 0;
    runner.register(s.job({ name: 'test.runner', everyMs: HOUR, pollMs: 10, run: async () => void runs++ }));
    runner.start();
    // The runner polls every 10 ms; wait for a few polls however loaded the machine is.
    for (let i = 0; i < 500 && (runner.stats()['test.runner']?.runs ?? 0) <= 2; i++) await new Promise((r) => setTimeout(r, 10));
    await runner.stop(1000);
    expect(runs).toBe(1);
    expect(runner.stats()['test.runner']!.runs).toBeGreaterThan(2);
  });
});
