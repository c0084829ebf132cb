import { describe, expect, it } from 'vitest';
import { networkOf } from '../lib/rate-limit.ts';
import { Admission, PasswordsBusy, stranger, type Caller } from './admission.ts';

/** Work that ends when the test says, so the order of turns can be seen exactly. */
function gate() {
  const open: { name: string; finish: () => void }[] = [];
  const order: string[] = [];
  const work = (name: string) => () =>
    new Promise<void>((resolve) =>
      open.push({
        name,
        finish: () => {
          order.push(name);
          resolve();
        },
      }),
    );
  const finishNext = async () => {
    open.shift()!.finish();
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  };
  return { open, order, work, finishNext };
}

describe('admission of password work by expected wait', () => {
  it('groups addresses by network: IPv4 /24, IPv6 /64', () => {
    expect(networkOf('10.1.2.3')).toBe('10.1.2.0/24');
    expect(networkOf('::ffff:10.1.2.3')).toBe('10.1.2.0/24');
    expect(networkOf('2001:db8:1:2:3:4:5:6')).toBe(networkOf('2001:db8:1:2:ffff::1'));
    expect(networkOf('2001:db8:1:2::1')).not.toBe(networkOf('2001:db8:1:3::1'));
  });

  it('admits a crowd while its wait is short, and refuses only past the bound', async () => {
    const g = gate();
    // 10 ms a check, one at a time, 200 ms at most: 20 may wait behind the one running (a clock
    // standing still: the running check has all of its 10 ms left).
    const admission = new Admission({ slots: 1, maxWaitMs: 200, maxWaiting: 1000, typicalMs: 10, now: () => 0 });
    let refused = 0;
    const all = Array.from({ length: 30 }, (_, i) =>
      admission.run(stranger(`10.0.${i}.1`), g.work(`n${i}`)).catch((err: unknown) => {
        expect(err).toBeInstanceOf(PasswordsBusy);
        refused++;
      }),
    );
    await new Promise((r) => setImmediate(r));
    const state = admission.state();
    expect(state.running).toBe(1);
    // 10 + 19 ahead × 10 = 200 ms: the 20th waits; the 21st would wait 210 ms: refused.
    expect(state.strangers).toBe(20);
    expect(refused).toBe(9);
    while (g.open.length) await g.finishNext();
    await Promise.all(all);
    expect(g.order).toHaveLength(21);
  });

  it('serves known callers first, then strangers by network in turn', async () => {
    const g = gate();
    const admission = new Admission({ slots: 1, maxWaitMs: 10_000, maxWaiting: 1000, typicalMs: 10 });
    const run = (caller: Caller, name: string) => admission.run(caller, g.work(name)).catch(() => undefined);
    const all = [run(stranger('10.0.0.1'), 'first')];
    // A flood from one /24, then two other networks, then the owner.
    for (let i = 0; i < 5; i++) all.push(run(stranger(`10.0.0.${10 + i}`), `flood${i}`));
    all.push(run(stranger('192.168.5.1'), 'other'));
    all.push(run(stranger('2001:db8::1'), 'v6'));
    all.push(run('known', 'owner'));
    await new Promise((r) => setImmediate(r));
    expect(admission.state()).toMatchObject({ running: 1, known: 1, strangers: 7, networks: 3 });
    while (g.open.length) await g.finishNext();
    await Promise.all(all);
    expect(g.order).toEqual(['first', 'owner', 'flood0', 'other', 'v6', 'flood1', 'flood2', 'flood3', 'flood4']);
  });

  it('keeps a flood from one network from pushing a newcomer past the bound', async () => {
    const g = gate();
    const admission = new Admission({ slots: 1, maxWaitMs: 200, maxWaiting: 1000, typicalMs: 10, now: () => 0 });
    const all: Promise<unknown>[] = [admission.run(stranger('10.9.9.1'), g.work('running')).catch(() => undefined)];
    let floodRefused = 0;
    for (let i = 0; i < 100; i++)
      all.push(
        admission.run(stranger(`10.9.9.${i % 250}`), g.work(`flood${i}`)).catch(() => {
          floodRefused++;
        }),
      );
    await new Promise((r) => setImmediate(r));
    expect(floodRefused).toBeGreaterThan(50);
    // A newcomer from elsewhere waits about one check per network ahead, not the flood's depth.
    expect(admission.expectedWaitMs(stranger('172.16.0.1'))).toBe(20);
    expect(admission.expectedWaitMs(stranger('10.9.9.200'))).toBe(210);
    const newcomer = admission.run(stranger('172.16.0.1'), g.work('newcomer'));
    await g.finishNext();
    await g.finishNext();
    await g.finishNext();
    expect(g.order).toEqual(['running', 'flood0', 'newcomer']);
    while (g.open.length) await g.finishNext();
    await Promise.all([...all, newcomer]);
  });

  it('bounds what waits in memory, known callers included', async () => {
    const g = gate();
    const admission = new Admission({ slots: 1, maxWaitMs: 1_000_000, maxWaiting: 3, typicalMs: 10 });
    const all = [admission.run('known', g.work('a'))];
    for (const n of ['b', 'c', 'd']) all.push(admission.run('known', g.work(n)));
    await expect(admission.run('known', g.work('e'))).rejects.toBeInstanceOf(PasswordsBusy);
    while (g.open.length) await g.finishNext();
    await Promise.all(all);
    expect(admission.state()).toMatchObject({ running: 0, known: 0, strangers: 0, networks: 0 });
  });

  it('refuses a stranger still waiting at the deadline, then, and forgets it', async () => {
    const g = gate();
    // The estimate (a clock standing still: 10 ms a check) lets in up to 1 s of waiting; the
    // deadline is 40 ms of real time, which the gate outlasts.
    const admission = new Admission({ slots: 1, maxWaitMs: 40, refuseAtOnceMs: 1000, maxWaiting: 100, typicalMs: 10, now: () => 0 });
    const outcome: string[] = [];
    const run = (name: string, address: string) =>
      admission.run(stranger(address), g.work(name)).then(
        () => void outcome.push(`${name}:done`),
        (err: unknown) => void outcome.push(`${name}:${err instanceof PasswordsBusy ? 'busy' : String(err)}`),
      );
    const first = run('first', '10.0.0.1');
    const late = [run('a', '10.0.1.1'), run('b', '10.0.2.1'), run('b2', '10.0.2.2')];
    await settle();
    // Let in on the estimate: none refused at once.
    expect(admission.state()).toMatchObject({ running: 1, strangers: 3, networks: 2 });
    await Promise.all(late);
    expect(outcome.sort()).toEqual(['a:busy', 'b2:busy', 'b:busy']);
    expect(admission.state()).toMatchObject({ running: 1, strangers: 0, networks: 0 });
    // The running check is not touched, and the slot is free after it, not held by a refused waiter.
    await g.finishNext();
    await first;
    expect(outcome).toContain('first:done');
    expect(admission.state()).toMatchObject({ running: 0, strangers: 0 });
    expect(g.order).toEqual(['first']);
  });

  it('lets in before the deadline a stranger whose checks ahead end in time, and never refuses it after', async () => {
    const g = gate();
    const admission = new Admission({ slots: 1, maxWaitMs: 60, refuseAtOnceMs: 1000, maxWaiting: 100, typicalMs: 10, now: () => 0 });
    const all = [admission.run(stranger('10.0.0.1'), g.work('first')), admission.run(stranger('10.0.1.1'), g.work('second'))];
    await settle();
    await g.finishNext();
    // 'second' runs now; it outlives the deadline it had while waiting and still ends well.
    await new Promise((r) => setTimeout(r, 90));
    await g.finishNext();
    await Promise.all(all);
    expect(g.order).toEqual(['first', 'second']);
  });

  it('makes a missing name wait the deadline and then refuses it, as a check past its deadline is', async () => {
    const g = gate();
    const admission = new Admission({ slots: 1, maxWaitMs: 50, refuseAtOnceMs: 10_000, maxWaiting: 100, typicalMs: 10, now: () => 0 });
    const all = Array.from({ length: 10 }, (_, i) => admission.run(stranger(`10.0.${i}.1`), g.work(`n${i}`)).catch(() => undefined));
    await settle();
    // Nine waiting, 100 ms of checks ahead: past the deadline, short of a refusal at once.
    const started = performance.now();
    await expect(admission.burn(stranger('10.9.9.9'))).rejects.toBeInstanceOf(PasswordsBusy);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    while (g.open.length) await g.finishNext();
    await Promise.all(all);
  });

  it('makes a missing name wait in line like a check, and hands the slot on when its turn comes', async () => {
    const g = gate();
    const admission = new Admission({ slots: 1, maxWaitMs: 10_000, maxWaiting: 100, typicalMs: 10, now: () => 0 });
    const first = admission.run(stranger('10.0.0.1'), g.work('first'));
    let burnt = false;
    const burn = admission.burn(stranger('10.0.1.1')).then(() => void (burnt = true));
    const behind = admission.run(stranger('10.0.2.1'), g.work('behind'));
    await settle();
    expect(admission.state()).toMatchObject({ running: 1, strangers: 2 });
    await g.finishNext();
    // The burn's turn came and went: the check behind it runs, no slot is held for the burn.
    expect(g.open.map((o) => o.name)).toEqual(['behind']);
    expect(admission.state()).toMatchObject({ running: 1, strangers: 0 });
    expect(burnt).toBe(false);
    await burn;
    await g.finishNext();
    await Promise.all([first, behind]);
    expect(admission.state()).toMatchObject({ running: 0, strangers: 0, networks: 0 });
  });

  it('burns about one check for a name nobody has, admitted like one', async () => {
    const admission = new Admission({ slots: 1, maxWaitMs: 200, maxWaiting: 10, typicalMs: 20 });
    const started = performance.now();
    await admission.burn(stranger('10.0.0.1'));
    expect(performance.now() - started).toBeGreaterThan(10);
  });
});

/** A clock the test moves by hand: every estimate below is exact, whatever the machine does meanwhile. */
function clock() {
  let t = 1000;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

const settle = async () => {
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
};

describe('the expected wait, on a controlled clock', () => {
  it('starts from the typical time, and counts a running check by its age', async () => {
    const c = clock();
    const g = gate();
    const admission = new Admission({ slots: 1, maxWaitMs: 10_000, maxWaiting: 100, typicalMs: 10, now: c.now });
    expect(admission.expectedWaitMs(stranger('10.0.0.1'))).toBe(0);
    const all = [admission.run(stranger('10.0.0.1'), g.work('a'))];
    c.advance(4);
    // 6 ms left of the running check, nobody ahead.
    expect(admission.expectedWaitMs(stranger('10.1.0.1'))).toBe(6);
    for (const n of ['b', 'c', 'd']) all.push(admission.run(stranger(`10.2.${n.charCodeAt(0)}.1`), g.work(n)));
    // Then three checks of 10 ms ahead.
    expect(admission.expectedWaitMs(stranger('10.1.0.1'))).toBe(36);
    while (g.open.length) await g.finishNext();
    await Promise.all(all);
  });

  it('learns how long a check holds its slot from the checks that finished', async () => {
    const c = clock();
    const g = gate();
    const admission = new Admission({ slots: 1, maxWaitMs: 10_000, maxWaiting: 100, typicalMs: 10, now: c.now });
    const all: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) all.push(admission.run(stranger(`10.0.${i}.1`), g.work(`n${i}`)));
    await settle();
    // Each check holds the slot 25 ms: the rate is 40 a second, and the estimate follows it.
    for (let i = 0; i < 16; i++) {
      c.advance(25);
      await g.finishNext();
    }
    expect(admission.checkMs()).toBe(25);
    c.advance(5);
    // 20 ms left of the running one, three waiting: 20 + 3 × 25.
    expect(admission.state()).toMatchObject({ running: 1, strangers: 3 });
    expect(admission.expectedWaitMs(stranger('10.9.0.1'))).toBe(95);
    while (g.open.length) await g.finishNext();
    await Promise.all(all);
  });

  it('raises the estimate by how long a check overruns, spread over the window, not by its age times the queue', async () => {
    const c = clock();
    const g = gate();
    const admission = new Admission({ slots: 1, maxWaitMs: 10_000, maxWaiting: 100, typicalMs: 10, now: c.now });
    const all: Promise<void>[] = [];
    for (let i = 0; i < 19; i++) all.push(admission.run(stranger(`10.0.${i}.1`), g.work(`n${i}`)));
    await settle();
    for (let i = 0; i < 16; i++) {
      c.advance(20);
      await g.finishNext();
    }
    // The running check has held its slot 170 ms where 20 is typical: 150 ms without a check
    // finishing, over the window's 15 checks (16 but the longest): 30 ms a check. Two wait: 0 left
    // of the running one + 2 × 30.
    c.advance(170);
    expect(admission.checkMs()).toBe(30);
    expect(admission.expectedWaitMs(stranger('10.9.0.1'))).toBe(60);
    while (g.open.length) await g.finishNext();
    await Promise.all(all);
  });

  it('forgets a slow stretch after a window of checks, and old checks after two seconds', async () => {
    const c = clock();
    const g = gate();
    const admission = new Admission({ slots: 1, maxWaitMs: 100_000, maxWaiting: 100, typicalMs: 10, now: c.now });
    const all: Promise<void>[] = [];
    for (let i = 0; i < 40; i++) all.push(admission.run(stranger(`10.0.${i}.1`), g.work(`n${i}`)));
    await settle();
    const finish = async (n: number, ms: number) => {
      for (let i = 0; i < n; i++) {
        c.advance(ms);
        await g.finishNext();
      }
    };
    await finish(16, 100);
    expect(admission.checkMs()).toBe(100);
    await finish(8, 20);
    // Eight of 100 and eight of 20, one of the 100 left out as the longest.
    expect(admission.checkMs()).toBeCloseTo((7 * 100 + 8 * 20) / 15);
    await finish(8, 20);
    expect(admission.checkMs()).toBe(20);
    // Three seconds later, a burst of slower checks: the old ones count no more once four new have finished.
    await finish(1, 3000);
    await finish(3, 40);
    expect(admission.checkMs()).toBe((3000 + 40 * 3) / 4);
    await finish(1, 40);
    expect(admission.checkMs()).toBe((3000 + 40 * 4) / 5);
    while (g.open.length) await g.finishNext();
    await Promise.all(all);
  });

  it('counts a single stall while it lasts, and leaves it out once it is over', async () => {
    const c = clock();
    const g = gate();
    const admission = new Admission({ slots: 1, maxWaitMs: 100_000, maxWaiting: 100, typicalMs: 10, now: c.now });
    const all: Promise<void>[] = [];
    for (let i = 0; i < 30; i++) all.push(admission.run(stranger(`10.0.${i}.1`), g.work(`n${i}`)));
    await settle();
    for (let i = 0; i < 15; i++) {
      c.advance(20);
      await g.finishNext();
    }
    // A check held up 400 ms: while it runs, the 380 ms past the typical 20 count ((14 × 20 + 380) / 14).
    c.advance(400);
    expect(admission.checkMs()).toBeCloseTo((14 * 20 + 380) / 14);
    await g.finishNext();
    // Over: the window's longest, left out.
    expect(admission.checkMs()).toBe(20);
    // Slow for good: every check of the window says so.
    for (let i = 0; i < 8; i++) {
      c.advance(60);
      await g.finishNext();
    }
    expect(admission.checkMs()).toBeCloseTo((7 * 20 + 8 * 60) / 15);
    while (g.open.length) await g.finishNext();
    await Promise.all(all);
  });

  it('admits a burst whose last admitted waits just what its estimate said, none longer than the bound', async () => {
    const c = clock();
    const admission = new Admission({ slots: 1, maxWaitMs: 200, maxWaiting: 1000, typicalMs: 10, now: c.now });
    // A machine where each check holds the slot 10 ms: the work ends when the clock says.
    const pending: { at: number; finish: () => void }[] = [];
    const work = () => new Promise<void>((resolve) => pending.push({ at: c.now() + 10, finish: resolve }));
    const waits: { estimate: number; actual: number }[] = [];
    let refused = 0;
    const all: Promise<void>[] = [];
    // 60 arrivals 2 ms apart (500 a second) for a slot that does 100 a second.
    for (let i = 0; i < 60; i++) {
      const caller = stranger(`10.0.${i}.1`);
      const estimate = admission.expectedWaitMs(caller);
      const asked = c.now();
      all.push(
        admission
          .run(caller, () => {
            waits.push({ estimate, actual: c.now() - asked });
            return work();
          })
          .catch(() => void refused++),
      );
      await settle();
      for (let step = 0; step < 2; step++) {
        c.advance(1);
        while (pending[0] && pending[0].at <= c.now()) {
          pending.shift()!.finish();
          await settle();
        }
      }
    }
    while (pending.length) {
      c.advance(pending[0]!.at - c.now());
      pending.shift()!.finish();
      await settle();
    }
    await Promise.all(all);
    // In 120 ms the slot does 12 checks; 200 ms more of waiting holds 20: 32 or so are admitted.
    expect(waits.length).toBeGreaterThanOrEqual(30);
    expect(refused).toBe(60 - waits.length);
    for (const { estimate, actual } of waits) expect(actual).toBe(estimate);
    expect(Math.max(...waits.map((w) => w.actual))).toBeLessThanOrEqual(200);
    expect(Math.max(...waits.map((w) => w.actual))).toBeGreaterThan(190);
  });

  it('spreads the waiters over several slots in rotation', async () => {
    const c = clock();
    const g = gate();
    const admission = new Admission({ slots: 2, maxWaitMs: 10_000, maxWaiting: 100, typicalMs: 10, now: c.now });
    const all = [admission.run(stranger('10.0.0.1'), g.work('a'))];
    c.advance(7);
    all.push(admission.run(stranger('10.0.1.1'), g.work('b')));
    c.advance(1);
    // The slots free in 2 ms (a, 8 ms old) and 9 ms (b, 1 ms old).
    expect(admission.expectedWaitMs(stranger('10.1.0.1'))).toBe(2);
    all.push(admission.run(stranger('10.0.2.1'), g.work('c')));
    expect(admission.expectedWaitMs(stranger('10.1.0.1'))).toBe(9);
    all.push(admission.run(stranger('10.0.3.1'), g.work('d')));
    expect(admission.expectedWaitMs(stranger('10.1.0.1'))).toBe(12);
    while (g.open.length) await g.finishNext();
    await Promise.all(all);
  });

  it('takes its number of slots at start, before any check', async () => {
    const c = clock();
    const g = gate();
    const admission = new Admission({ slots: 2, maxWaitMs: 10_000, maxWaiting: 100, typicalMs: 10, now: c.now });
    admission.setSlots(1);
    const all = [admission.run(stranger('10.0.0.1'), g.work('a'))];
    // One slot: the second check waits for the first.
    expect(admission.expectedWaitMs(stranger('10.1.0.1'))).toBe(10);
    all.push(admission.run(stranger('10.0.1.1'), g.work('b')));
    expect(admission.state()).toMatchObject({ running: 1, strangers: 1 });
    expect(() => admission.setSlots(2)).toThrow();
    while (g.open.length) await g.finishNext();
    await Promise.all(all);
    expect(() => new Admission({ slots: 2, maxWaitMs: 1, maxWaiting: 1, typicalMs: 1 }).setSlots(0)).toThrow();
  });

  it('refuses sooner when a check stalls: no check finishing is news', async () => {
    const c = clock();
    const g = gate();
    const admission = new Admission({ slots: 1, maxWaitMs: 200, maxWaiting: 1000, typicalMs: 10, now: c.now });
    const running = admission.run(stranger('10.0.0.1'), g.work('slow'));
    expect(admission.expectedWaitMs(stranger('10.1.0.1'))).toBe(10);
    c.advance(120);
    // One check has run 120 ms where 10 are typical (the one prior, no check finished yet): 120 ms
    // a check now; a newcomer behind two waiters would wait 240 ms.
    const waiting = [admission.run(stranger('10.2.0.1'), g.work('a')), admission.run(stranger('10.3.0.1'), g.work('b'))];
    expect(admission.expectedWaitMs(stranger('10.4.0.1'))).toBe(240);
    await expect(admission.run(stranger('10.4.0.1'), g.work('c'))).rejects.toBeInstanceOf(PasswordsBusy);
    while (g.open.length) await g.finishNext();
    await Promise.all([running, ...waiting]);
  });
});
