import { describe, expect, it } from 'vitest';
import { Admission, networkOf, PasswordsBusy, stranger, type Caller } from './admission.ts';

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
    // 10 ms a check, one at a time, 200 ms at most: 20 may wait behind the one running.
    const admission = new Admission({ slots: 1, maxWaitMs: 200, maxWaiting: 1000, typicalMs: 10 });
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
    // 10 × (0.5 + 19 ahead) = 195 ms: the 20th waits; the 21st would wait 205 ms: refused.
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
    const admission = new Admission({ slots: 1, maxWaitMs: 200, maxWaiting: 1000, typicalMs: 10 });
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
    expect(admission.expectedWaitMs(stranger('172.16.0.1'))).toBeLessThanOrEqual(25);
    expect(admission.expectedWaitMs(stranger('10.9.9.200'))).toBeGreaterThan(190);
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

  it('burns about one check for a name nobody has, admitted like one', async () => {
    const admission = new Admission({ slots: 1, maxWaitMs: 200, maxWaiting: 10, typicalMs: 20 });
    const started = performance.now();
    await admission.burn(stranger('10.0.0.1'));
    expect(performance.now() - started).toBeGreaterThan(10);
  });
});

describe('admission when the machine slows down', () => {
  it('counts a check that runs longer than the average: the wait it implies refuses sooner', async () => {
    const g = gate();
    const admission = new Admission({ slots: 1, maxWaitMs: 200, maxWaiting: 1000, typicalMs: 10 });
    const running = admission.run(stranger('10.0.0.1'), g.work('slow'));
    expect(admission.expectedWaitMs(stranger('10.1.0.1'))).toBeLessThan(20);
    await new Promise((r) => setTimeout(r, 120));
    // One check has run 120 ms where the average says 10: a newcomer behind two waiters would wait ~300 ms.
    const waiting = [admission.run(stranger('10.2.0.1'), g.work('a')), admission.run(stranger('10.3.0.1'), g.work('b'))];
    expect(admission.expectedWaitMs(stranger('10.4.0.1'))).toBeGreaterThan(200);
    await expect(admission.run(stranger('10.4.0.1'), g.work('c'))).rejects.toBeInstanceOf(PasswordsBusy);
    while (g.open.length) await g.finishNext();
    await Promise.all([running, ...waiting]);
  });
});
