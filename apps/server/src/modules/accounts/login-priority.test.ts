import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';

// argon2 replaced by checks that end when the test says (as in lib/passwords.test.ts): the queue
// of password checks can then be filled and its order seen exactly. A hash is `h:<password>`.
const gate = vi.hoisted(() => ({ hold: false, pending: [] as (() => void)[] }));
vi.mock('@node-rs/argon2', () => ({
  hash: async (password: string) => `h:${password}`,
  verify: (hash: string, password: string) =>
    gate.hold
      ? new Promise<boolean>((resolve) => gate.pending.push(() => resolve(hash === `h:${password}`)))
      : Promise.resolve(hash === `h:${password}`),
}));

const { verifyPassword, passwordQueue, MAX_AT_ONCE, STRANGERS_WAITING } = await import('../../lib/passwords.ts');
const tick = () => new Promise((r) => setTimeout(r, 5));

describe.each(dbKinds)('who goes first in the queue of password checks, on %s (issue 29)', (kind) => {
  let t: TestApp;
  let victimSession: string;
  let otherSession: string;

  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
    await seedUser(t, 'Victim', { password: 'victim-pass' });
    await seedUser(t, 'Mallory', { password: 'mallory-pass' });
    victimSession = await loginAs(t, 'Victim', 'victim-pass');
    otherSession = await loginAs(t, 'Mallory', 'mallory-pass');
  });
  afterAll(async () => {
    gate.hold = false;
    while (gate.pending.length) gate.pending.shift()!();
    await t?.close();
  });

  const login = (session: string) =>
    t.app.inject(asUser(session, { method: 'POST', url: '/api/user/login', payload: { username: 'Victim', password: 'victim-pass' } }));

  it('a session of another account makes no one known: its login to the account waits with the strangers', async () => {
    gate.hold = true;
    // Strangers' checks fill every slot and the strangers' queue.
    const strangers = Array.from({ length: MAX_AT_ONCE + STRANGERS_WAITING }, () => verifyPassword('h:x', 'guess', 'stranger'));
    await tick();
    expect(passwordQueue()).toMatchObject({ running: MAX_AT_ONCE, strangers: STRANGERS_WAITING });

    // Signed in as someone else: refused at once like any stranger.
    const refused = await login(otherSession);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'passwords_busy' });
    expect(refused.headers['retry-after']).toBe('2');

    // Signed in to this very account: admitted ahead of every waiting stranger.
    const own = login(victimSession);
    for (let i = 0; i < 50 && passwordQueue().known === 0; i++) await tick();
    expect(passwordQueue()).toMatchObject({ known: 1, strangers: STRANGERS_WAITING });
    gate.pending.shift()!();
    await tick();
    // The freed slot went to the owner's check (the last one asked), not to a stranger.
    expect(passwordQueue()).toMatchObject({ known: 0, strangers: STRANGERS_WAITING });
    gate.pending.pop()!();
    expect((await own).statusCode).toBe(200);

    gate.hold = false;
    while (gate.pending.length) {
      gate.pending.shift()!();
      await tick();
    }
    await Promise.all(strangers);
    expect(passwordQueue()).toMatchObject({ running: 0, known: 0, strangers: 0 });
  });
});
