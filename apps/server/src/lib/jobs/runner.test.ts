import { describe, expect, it } from 'vitest';
import { JobRunner } from './runner.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe('JobRunner', () => {
  it('runs nothing before start, then each job at once and again on its interval', async () => {
    const runner = new JobRunner();
    let runs = 0;
    runner.register({ name: 'tick', intervalMs: 30, run: async () => void runs++ });
    runner.kick('tick');
    await sleep(50);
    expect(runs).toBe(0);
    runner.start();
    await sleep(110);
    await runner.stop(1000);
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(runs).toBeLessThanOrEqual(5);
    const settled = runs;
    await sleep(60);
    expect(runs).toBe(settled);
    expect(runner.stats().tick).toMatchObject({ runs: settled, failures: 0, lastError: null, running: false });
  });

  it('coalesces kicks: one pass in flight and at most one queued', async () => {
    const runner = new JobRunner();
    const first = gate();
    let passes = 0;
    runner.register({
      name: 'slow',
      intervalMs: 0,
      run: async () => {
        passes++;
        if (passes === 1) await first.opened;
      },
    });
    runner.start();
    for (let i = 0; i < 5; i++) runner.kick('slow');
    expect(runner.stats().slow!.running).toBe(true);
    first.open();
    await runner.idle('slow');
    expect(passes).toBe(2);
    await runner.stop(100);
  });

  it('counts failures with the last error and keeps running the job', async () => {
    const errors: string[] = [];
    const runner = new JobRunner({ error: (_obj, msg) => errors.push(msg) });
    let n = 0;
    runner.register({
      name: 'flaky',
      intervalMs: 0,
      run: async () => {
        n++;
        if (n < 3) throw new Error(`boom ${n}`);
      },
    });
    runner.start();
    await runner.idle();
    expect(runner.stats().flaky).toMatchObject({ runs: 1, failures: 1, lastError: 'boom 1' });
    runner.kick('flaky');
    await runner.idle();
    runner.kick('flaky');
    await runner.idle();
    const stats = runner.stats().flaky!;
    expect(stats).toMatchObject({ runs: 3, failures: 2, lastError: null });
    expect(stats.lastDurationMs).toBeGreaterThanOrEqual(0);
    expect(errors).toEqual(['background job failed', 'background job failed']);
    await runner.stop(100);
  });

  it('stop aborts the signal, waits for the pass in flight, then releases claims', async () => {
    const runner = new JobRunner();
    const order: string[] = [];
    runner.register({
      name: 'worker',
      intervalMs: 10,
      run: async (signal) => {
        order.push('start');
        while (!signal.aborted) await sleep(5);
        await sleep(30); // finishing the unit of work at hand
        order.push('end');
      },
      release: async () => void order.push('release'),
    });
    runner.start();
    await sleep(20);
    expect(await runner.stop(1000)).toBe(true);
    expect(order).toEqual(['start', 'end', 'release']);
    expect(runner.signal.aborted).toBe(true);
    runner.kick('worker');
    await sleep(30);
    expect(order).toHaveLength(3);
  });

  it('gives up waiting at the deadline and still releases', async () => {
    const runner = new JobRunner();
    let released = false;
    runner.register({ name: 'stuck', intervalMs: 0, run: () => new Promise(() => {}), release: async () => void (released = true) });
    runner.start();
    const started = performance.now();
    expect(await runner.stop(100)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
    expect(released).toBe(true);
  });

  it('refuses two jobs of one name and kicks of unknown jobs', () => {
    const runner = new JobRunner();
    runner.register({ name: 'a', intervalMs: 0, run: async () => {} });
    expect(() => runner.register({ name: 'a', intervalMs: 0, run: async () => {} })).toThrow(/twice/);
    expect(() => runner.kick('nope')).toThrow(/no job/);
  });

  it('starts in turns: one first pass per event-loop turn, none for a job a request already ran', async () => {
    const runner = new JobRunner();
    const order: string[] = [];
    for (const name of ['a', 'b', 'c']) runner.register({ name, intervalMs: 0, run: async () => void order.push(name) });
    const turn = () => new Promise((r) => setImmediate(r));
    runner.startInTurns();
    expect(order).toEqual([]);
    // A request kicks c before its turn: c's first pass is that one.
    runner.kick('c');
    await turn();
    expect(order).toEqual(['c', 'a']);
    await turn();
    expect(order).toEqual(['c', 'a', 'b']);
    await turn();
    await turn();
    expect(order).toEqual(['c', 'a', 'b']);
    await runner.stop(100);
  });

  it('stops starting in turns once stopped', async () => {
    const runner = new JobRunner();
    const order: string[] = [];
    for (const name of ['a', 'b']) runner.register({ name, intervalMs: 0, run: async () => void order.push(name) });
    runner.startInTurns();
    const stopped = runner.stop(100);
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    await stopped;
    expect(order).toEqual([]);
  });
});
