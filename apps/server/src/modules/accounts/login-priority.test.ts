import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';

// argon2 replaced by checks that end when the test says (as in front-door/passwords.test.ts): the
// queue of password checks can then be filled and its order seen exactly. A hash is `h:<password>`.
const gate = vi.hoisted(() => ({ hold: false, pending: [] as (() => void)[] }));
vi.mock('@node-rs/argon2', () => ({
  hash: async (password: string) => `h:${password}`,
  verify: (hash: string, password: string) =>
    gate.hold
      ? new Promise<boolean>((resolve) => gate.pending.push(() => resolve(hash === `h:${password}`)))
      : Promise.resolve(hash === `h:${password}`),
}));

const { verifyPassword, passwordWork, stranger, REFUSE_AT_ONCE_MS } = await import('../../front-door/passwords.ts');
/** Checks from the test's own address (inject's 127.0.0.1) until a stranger from there would wait too long. */
function fillQueue(): Promise<boolean>[] {
  const here = stranger('127.0.0.1');
  const checks: Promise<boolean>[] = [];
  while (checks.length < 5000 && (passwordWork.state().running === 0 || passwordWork.expectedWaitMs(here) <= REFUSE_AT_ONCE_MS))
    // Past the bound the last ones may be refused: that is the point, not a failure.
    checks.push(verifyPassword('h:x', 'guess', here).catch(() => false));
  return checks;
}
const { tooManyTriesText } = await import('../game-auth/game-auth.service.ts');
const tick = () => new Promise((r) => setTimeout(r, 5));
const GRAVIT_SECRET = 'gravit-test-secret-0123456789';

describe.each(dbKinds)('who goes first in the queue of password checks, on %s', (kind) => {
  let t: TestApp;
  let victimSession: string;
  let otherSession: string;

  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false, gravitSecret: GRAVIT_SECRET });
    await seedUser(t, 'Victim', { password: 'victim-pass' });
    await seedUser(t, 'Mallory', { password: 'mallory-pass' });
    await seedUser(t, 'Steve', { password: 'steve-pass' });
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
    // Strangers' checks from this address fill every slot and a wait past the bound.
    const strangers = fillQueue();
    await tick();
    const waiting = passwordWork.state().strangers;

    // Signed in as someone else: refused at once like any stranger.
    const refused = await login(otherSession);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'passwords_busy' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(2);

    // Signed in to this very account: admitted ahead of every waiting stranger.
    const own = login(victimSession);
    for (let i = 0; i < 50 && passwordWork.state().known === 0; i++) await tick();
    expect(passwordWork.state()).toMatchObject({ known: 1, strangers: waiting });
    gate.pending.shift()!();
    await tick();
    // The freed slot went to the owner's check (the last one asked), not to a stranger.
    expect(passwordWork.state()).toMatchObject({ known: 0, strangers: waiting });
    gate.pending.pop()!();
    expect((await own).statusCode).toBe(200);

    gate.hold = false;
    while (gate.pending.length) {
      gate.pending.shift()!();
      await tick();
    }
    await Promise.all(strangers);
    expect(passwordWork.state()).toMatchObject({ running: 0, known: 0, strangers: 0 });
  });
  it('launchers are told to wait while the queue is full, never that the password is wrong', async () => {
    gate.hold = true;
    const strangers = fillQueue();
    await tick();
    // The wait grows while the held checks run on: the text names it in seconds or minutes.
    const wait = expect.stringMatching(/^Слишком много попыток входа\. Повторите через \d+ (с|мин)\.$/);
    const gravit = { authorization: `Bearer ${GRAVIT_SECRET}` };
    // GravitLauncher's myhttp core and its older json core: the launcher shows `error` as written.
    const myhttp = await t.app.inject({
      method: 'POST',
      url: '/api/gravit/authorize',
      headers: gravit,
      payload: { login: 'Victim', password: 'victim-pass' },
    });
    expect(myhttp.statusCode).toBe(400);
    expect(myhttp.json()).toEqual({ error: wait, code: 0 });
    const legacy = await t.app.inject({
      method: 'POST',
      url: '/api/gravit/v5/auth/authorize',
      headers: gravit,
      payload: { login: 'Mallory', password: { type: 'plain', password: 'mallory-pass' } },
    });
    expect(legacy.statusCode).toBe(400);
    expect(legacy.json()).toEqual({ error: wait, code: 0 });
    // authlib-injector: ForbiddenOperationException with the wait and Retry-After (another
    // account: each account allows one launcher try a second, and Victim's was just used).
    const ygg = await t.app.inject({
      method: 'POST',
      url: '/api/yggdrasil/authserver/authenticate',
      payload: { username: 'Steve', password: 'steve-pass', agent: { name: 'Minecraft', version: 1 } },
    });
    expect(ygg.statusCode).toBe(403);
    expect(ygg.json()).toMatchObject({ error: 'ForbiddenOperationException', errorMessage: wait });
    expect(Number(ygg.headers['retry-after'])).toBeGreaterThanOrEqual(2);
    expect(tooManyTriesText(61_000)).toBe('Слишком много попыток входа. Повторите через 2 мин.');

    gate.hold = false;
    while (gate.pending.length) {
      gate.pending.shift()!();
      await tick();
    }
    await Promise.all(strangers);
  });
});
