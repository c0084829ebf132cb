import { describe, expect, it, vi } from 'vitest';

// argon2 replaced by checks that end when the test says: the queue's order is then exact.
const gate = vi.hoisted(() => ({ pending: [] as { password: string; finish: () => void }[] }));
vi.mock('@node-rs/argon2', () => ({
  hash: async () => 'hash',
  verify: (_hash: string, password: string) =>
    new Promise<boolean>((resolve) => gate.pending.push({ password, finish: () => resolve(password === 'right') })),
}));

const { verifyPassword, burnPasswordCheck, PasswordsBusy, MAX_AT_ONCE, STRANGERS_WAITING, passwordQueue } = await import('./passwords.ts');
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('the admission queue of password checks (issue 29)', () => {
  it('lets known callers go first and refuses strangers at once when their queue is full', async () => {
    const order: string[] = [];
    const check = (name: string, caller: 'known' | 'stranger') =>
      verifyPassword('h', name, caller).then(
        (ok) => void order.push(`${name}:${ok}`),
        (err: unknown) => void order.push(`${name}:${err instanceof PasswordsBusy ? 'busy' : String(err)}`),
      );
    const running = Array.from({ length: MAX_AT_ONCE }, (_, i) => check(`run${i}`, 'stranger'));
    const strangers = Array.from({ length: STRANGERS_WAITING }, (_, i) => check(`s${i}`, 'stranger'));
    await tick();
    expect(passwordQueue()).toMatchObject({ running: MAX_AT_ONCE, strangers: STRANGERS_WAITING });

    // One stranger more: refused without waiting; a burnt check for a missing name too.
    await check('extra', 'stranger');
    expect(order).toEqual(['extra:busy']);
    await expect(burnPasswordCheck('stranger')).rejects.toBeInstanceOf(PasswordsBusy);
    // The owner is not refused, and goes before every waiting stranger.
    const owner = check('right', 'known');
    await tick();
    gate.pending.shift()!.finish();
    await tick();
    expect(gate.pending.at(-1)?.password).toBe('right');
    gate.pending.at(-1)!.finish();
    await owner;
    expect(order).toContain('right:true');
    while (gate.pending.length) {
      gate.pending.shift()!.finish();
      await tick();
    }
    await Promise.all([...running, ...strangers]);
    expect(passwordQueue()).toMatchObject({ running: 0, known: 0, strangers: 0 });
  });

  it('answers for a missing name after about one check, without hashing', async () => {
    const before = gate.pending.length;
    const started = performance.now();
    await burnPasswordCheck('stranger');
    expect(gate.pending.length).toBe(before);
    expect(performance.now() - started).toBeGreaterThan(10);
  });
});
