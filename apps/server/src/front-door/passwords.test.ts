import { describe, expect, it, vi } from 'vitest';

// argon2 replaced by checks that end when the test says: the order of turns is then exact.
const gate = vi.hoisted(() => ({ pending: [] as { password: string; finish: () => void }[] }));
vi.mock('@node-rs/argon2', () => ({
  hash: async () => 'hash',
  verify: (_hash: string, password: string) =>
    new Promise<boolean>((resolve) => gate.pending.push({ password, finish: () => resolve(password === 'right') })),
}));

const { verifyPassword, burnPasswordCheck, PasswordsBusy, passwordWork, stranger, REFUSE_AT_ONCE_MS, SLOTS } =
  await import('./passwords.ts');
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('password checks in turn', () => {
  it('refuses a stranger whose wait would be too long, and still admits the owner first', async () => {
    const order: string[] = [];
    const check = (name: string, caller: Parameters<typeof verifyPassword>[2]) =>
      verifyPassword('h', name, caller).then(
        (ok) => void order.push(`${name}:${ok}`),
        (err: unknown) => void order.push(`${name}:${err instanceof PasswordsBusy ? 'busy' : String(err)}`),
      );
    // Strangers from one network until its estimated wait passes the bound of a refusal at once.
    const waiting: Promise<void>[] = [];
    for (let i = 0; i < SLOTS; i++) waiting.push(check(`run${i}`, stranger('10.0.0.1')));
    while (passwordWork.expectedWaitMs(stranger('10.0.0.1')) <= REFUSE_AT_ONCE_MS) waiting.push(check('s', stranger('10.0.0.1')));
    await check('extra', stranger('10.0.0.2'));
    expect(order).toEqual(['extra:busy']);
    await expect(burnPasswordCheck(stranger('10.0.0.3'))).rejects.toBeInstanceOf(PasswordsBusy);
    // Another network is not refused: its wait is one round, not the flood's depth.
    const newcomer = check('newcomer', stranger('192.0.2.1'));
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
    await Promise.all([...waiting, newcomer]);
    expect(order).toContain('newcomer:false');
    expect(passwordWork.state()).toMatchObject({ running: 0, known: 0, strangers: 0 });
  });

  it('answers for a missing name after about one check, without hashing', async () => {
    const before = gate.pending.length;
    // The typical check's time is learnt from the checks above; the burn waits 0.85–1.15 of it.
    const typical = passwordWork.state().typicalMs;
    expect(typical).toBeGreaterThan(0);
    const started = performance.now();
    await burnPasswordCheck(stranger('10.0.0.1'));
    expect(gate.pending.length).toBe(before);
    expect(performance.now() - started).toBeGreaterThanOrEqual(typical * 0.85 - 1);
  });
});
