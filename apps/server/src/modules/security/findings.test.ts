import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { asUser, createTestApp, dbKinds, errorOf, seedUser, type TestApp } from '../../test/test-app.ts';
import { linkIn } from '../../../../../testing/smtp-catcher.ts';
import { EmailLinkKey } from '../users/email-tokens.ts';
import { MAX_DELAY_MS } from '../users/login-throttle.ts';
import type * as Passwords from '../../front-door/passwords.ts';

// Counts argon2 hashing, to prove a reset with a bad link never reaches it.
const hashing = vi.hoisted(() => ({ calls: 0 }));
vi.mock('../../front-door/passwords.ts', async (importOriginal) => {
  const real = await importOriginal<typeof Passwords>();
  return {
    ...real,
    hashPassword: (password: string) => {
      hashing.calls++;
      return real.hashPassword(password);
    },
  };
});

/** The three holes found from outside (issue 15), kept shut. */
describe.each(dbKinds)('security findings on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { rateLimits: { loginPerIp: 1000, loginPerAccount: 3, resetPerIp: 4 } });
  });
  afterAll(async () => {
    await t?.close();
  });

  const login = (username: string, password: string, opts: { device?: string; ip?: string; bearer?: boolean } = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/user/login',
      payload: { username, password, ...(opts.bearer ? { bearer: true } : {}) },
      cookies: opts.device ? { kubik_device: opts.device } : {},
      remoteAddress: opts.ip ?? '10.0.0.1',
    });
  const throttleOf = async (userId: number) =>
    t.handle.db.selectFrom('login_throttle').selectAll().where('user_id', '=', userId).executeTakeFirst();

  it('reset-password: a bad link is refused before any hashing, and tries are limited per IP', async () => {
    const id = await seedUser(t, 'Resetter', { password: 'old-password-1' });
    const before = hashing.calls;
    const reset = (token: string, ip: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/user/reset-password/${token}`,
        payload: { new_password: 'brand-new-pass' },
        remoteAddress: ip,
      });
    // Links this site signed but does not know (used up, expired, of an erased account): each is
    // looked up, and they are counted per address. (Made-up links are refused by their signature,
    // accounts.test.ts.)
    const links = await EmailLinkKey.load(t.handle.db);
    for (let i = 0; i < 4; i++) {
      const res = await reset(links.issue('reset'), '10.9.9.9');
      expect(res.statusCode).toBe(400);
      expect(errorOf(res)).toBe('Ссылка для сброса пароля недействительна или устарела');
    }
    expect(hashing.calls).toBe(before);
    const limited = await reset(links.issue('reset'), '10.9.9.9');
    expect(limited.statusCode).toBe(429);
    expect(errorOf(limited)).toMatch(/Слишком много попыток/);

    // A real link from another address still works, and hashes once.
    await t.app.inject({ method: 'POST', url: '/api/user/forgot-password', payload: { email: 'resetter@example.com' } });
    const letter = await t.smtp.waitFor('resetter@example.com', (l) => l.subject.includes('Сброс пароля'));
    const token = new URL(linkIn(letter, '/reset-password?token=')).searchParams.get('token')!;
    expect((await reset(token, '10.9.9.10')).statusCode).toBe(200);
    expect(hashing.calls).toBe(before + 1);
    expect((await login('Resetter', 'brand-new-pass')).statusCode).toBe(200);
    expect(id).toBeGreaterThan(0);
  });

  it('login throttling counts per account whatever was typed, delays instead of locking, and lets the known device in', async () => {
    const id = await seedUser(t, 'Victim', { password: 'right-password' });
    // The owner logs in once: the browser gets the device cookie.
    const first = await login('Victim', 'right-password');
    expect(first.statusCode).toBe(200);
    const device = first.cookies.find((c) => c.name === 'kubik_device')!;
    expect(device.httpOnly).toBe(true);
    expect(device.value.length).toBeGreaterThan(30);

    // An attacker from many addresses, by name and by e-mail: one counter for the account.
    expect((await login('Victim', 'guess-1', { ip: '10.1.0.1' })).statusCode).toBe(401);
    expect((await login('victim@example.com', 'guess-2', { ip: '10.1.0.2' })).statusCode).toBe(401);
    expect((await login('VICTIM', 'guess-3', { ip: '10.1.0.3' })).statusCode).toBe(401);
    expect((await throttleOf(id))?.failures).toBe(3);
    const delayed = await login('VICTIM@example.com', 'guess-4', { ip: '10.1.0.4' });
    expect(delayed.statusCode).toBe(429);
    expect(errorOf(delayed)).toMatch(/^Слишком много неудачных попыток входа\. Попробуйте через \d+ секунд/);
    // The right password from an unknown device waits too (it is not checked during the delay)…
    expect((await login('Victim', 'right-password', { ip: '10.1.0.5' })).statusCode).toBe(429);
    // …but the owner's browser gets in at once, with the right password only.
    expect((await login('Victim', 'wrong-again', { device: device.value })).statusCode).toBe(401);
    const owner = await login('Victim', 'right-password', { device: device.value });
    expect(owner.statusCode).toBe(200);
    // A success clears the count.
    expect(await throttleOf(id)).toBeUndefined();

    // The delay grows with each failure and stops at the maximum: never a hard lock. Each delay is
    // known within the request's own duration (hashing waits its turn on a loaded machine), so it
    // is kept as [low, high]: the delay counted from the answer and from the call.
    const delays: { low: number; high: number }[] = [];
    for (let i = 0; i < 14; i++) {
      await t.handle.db.updateTable('login_throttle').set({ next_allowed_at: 0 }).where('user_id', '=', id).execute();
      const before = Date.now();
      expect((await login('Victim', `guess-${i}-x`, { ip: `10.2.0.${i}` })).statusCode).toBe(401);
      const after = Date.now();
      const next = Number((await throttleOf(id))!.next_allowed_at);
      delays.push({ low: Math.max(0, next - after), high: Math.max(0, next - before) });
    }
    expect(delays[0]!.low).toBeLessThan(300);
    expect(delays[1]!.low).toBeLessThan(300);
    for (let i = 3; i < delays.length; i++) expect(delays[i]!.high).toBeGreaterThanOrEqual(delays[i - 1]!.low);
    expect(delays[3]!.high).toBeGreaterThan(delays[2]!.low + 500);
    expect(delays.at(-1)!.low).toBeLessThanOrEqual(MAX_DELAY_MS);
    expect(delays.at(-1)!.high).toBeGreaterThan(MAX_DELAY_MS - 5000);
    // When the delay has passed, the right password from anywhere works.
    await t.handle.db
      .updateTable('login_throttle')
      .set({ next_allowed_at: Date.now() - 1 })
      .where('user_id', '=', id)
      .execute();
    expect((await login('Victim', 'right-password', { ip: '10.3.0.1' })).statusCode).toBe(200);
  });

  it('parallel guesses cannot slip past the count', async () => {
    const id = await seedUser(t, 'Crowded', { password: 'right-password' });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => login('Crowded', `guess-${i}-y`, { ip: `10.4.0.${i}` })));
    const checked = results.filter((r) => r.statusCode === 401).length;
    expect(checked).toBeLessThanOrEqual(4);
    expect(results.every((r) => r.statusCode === 401 || r.statusCode === 429)).toBe(true);
    expect((await throttleOf(id))!.failures).toBe(checked);
  });

  it('GET /api/user/me never returns the session token; login gives it only to a client that asks', async () => {
    await seedUser(t, 'Bearer_1', { password: 'right-password' });
    const browser = await login('Bearer_1', 'right-password');
    expect(browser.json()).toEqual({ message: 'Вы вошли' });
    const cookie = browser.cookies.find((c) => c.name === 'kubik_session')!.value;
    const viaCookie = await t.app.inject({ method: 'GET', url: '/api/user/me', cookies: { kubik_session: cookie } });
    expect(viaCookie.statusCode).toBe(200);
    expect(viaCookie.json()).not.toHaveProperty('token');
    expect(viaCookie.body).not.toContain(cookie);

    const bot = await login('Bearer_1', 'right-password', { bearer: true });
    expect(bot.statusCode).toBe(200);
    const token = bot.json().token as string;
    expect(token.length).toBeGreaterThan(30);
    expect(bot.cookies.find((c) => c.name === 'kubik_session')).toBeUndefined();
    const viaBearer = await t.app.inject(asUser(token, { method: 'GET', url: '/api/user/me' }));
    expect(viaBearer.statusCode).toBe(200);
    expect(viaBearer.body).not.toContain(token);
  });
});
