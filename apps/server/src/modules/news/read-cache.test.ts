import { describe, expect, it } from 'vitest';
import { ReadCache } from './read-cache.ts';

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('ReadCache', () => {
  it('loads once, serves from memory, and reloads after invalidate()', async () => {
    let loads = 0;
    const cache = new ReadCache(async () => ++loads);
    expect(await cache.get()).toBe(1);
    expect(await cache.get()).toBe(1);
    cache.invalidate();
    expect(await cache.get()).toBe(2);
    expect(loads).toBe(2);
  });

  it('shares one load between requests that miss together', async () => {
    let loads = 0;
    const gate = deferred<void>();
    const cache = new ReadCache(async () => {
      loads++;
      await gate.promise;
      return 'data';
    });
    const all = Promise.all([cache.get(), cache.get(), cache.get()]);
    gate.resolve();
    expect(await all).toEqual(['data', 'data', 'data']);
    expect(loads).toBe(1);
  });

  it('does not keep a load that was running when a write invalidated it', async () => {
    const values = ['old', 'new'];
    const gates = [deferred<void>(), deferred<void>()];
    let call = 0;
    const cache = new ReadCache(async () => {
      const i = call++;
      await gates[i]!.promise;
      return values[i]!;
    });
    const early = cache.get();
    cache.invalidate();
    gates[0]!.resolve();
    expect(await early).toBe('old');
    const later = cache.get();
    gates[1]!.resolve();
    expect(await later).toBe('new');
    expect(await cache.get()).toBe('new');
  });

  it('forgets a failed load, and reloads once maxAgeMs has passed', async () => {
    let now = 1000;
    let fail = true;
    let loads = 0;
    const cache = new ReadCache(
      async () => {
        loads++;
        if (fail) throw new Error('database down');
        return loads;
      },
      { maxAgeMs: 500, now: () => now },
    );
    await expect(cache.get()).rejects.toThrow('database down');
    fail = false;
    expect(await cache.get()).toBe(2);
    now += 499;
    expect(await cache.get()).toBe(2);
    now += 1;
    expect(await cache.get()).toBe(3);
  });
});
