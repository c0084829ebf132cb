import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordWork } from '../../front-door/passwords.ts';
import { createTestApp, dbKinds, seedUser, type TestApp } from '../../test/test-app.ts';

/**
 * Strangers' failed logins counted per network (users/login-throttle.ts): one /24 rotating its
 * addresses, each address under its own limit, is refused before any hash once the network's
 * failures pass RATE_LIMIT_LOGIN_NETWORK, for web and launcher logins alike; the owner's known
 * browser from the same network and strangers elsewhere still log in.
 */
describe.each(dbKinds)("strangers' failed logins counted per network, on %s", (kind) => {
  let t: TestApp;
  let device: string;

  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false, loginFailureDelayMs: 0, rateLimits: { loginFailuresPerNetwork: 3 } });
    await seedUser(t, 'Owner', { password: 'owner-pass' });
    await seedUser(t, 'Other', { password: 'other-pass' });
    // The owner's browser, known from a login before the flood.
    const first = await login('Owner', 'owner-pass', '10.9.9.9');
    expect(first.statusCode, first.body).toBe(200);
    device = first.cookies.find((c) => c.name === 'kubik_device')!.value;
  });
  afterAll(async () => {
    await t?.close();
  });

  function login(username: string, password: string, address: string, cookies: Record<string, string> = {}) {
    return t.app.inject({ method: 'POST', url: '/api/user/login', payload: { username, password }, remoteAddress: address, cookies });
  }
  const launcher = (username: string, password: string, address: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/yggdrasil/authserver/authenticate',
      payload: { agent: { name: 'Minecraft', version: 1 }, username, password, clientToken: `ct-${address}` },
      remoteAddress: address,
    });

  it('refuses a network past its failures before any hash, and lets known browsers and other networks in', async () => {
    // Three failures from three addresses of one /24 (a wrong password, a launcher's, a name nobody
    // has) are the limit; a stranger's right password still gets in; the fourth failure passes it.
    expect((await login('Owner', 'guess-1', '10.7.7.1')).statusCode).toBe(401);
    expect((await launcher('Other', 'guess-2', '10.7.7.2')).statusCode).toBe(403);
    expect((await login('Nobody', 'guess-3', '10.7.7.3')).statusCode).toBe(401);
    expect((await login('Other', 'other-pass', '10.7.7.8')).statusCode).toBe(200);
    expect((await login('Nobody', 'guess-4', '10.7.7.9')).statusCode).toBe(401);

    // Then a fresh address of the same network, even with the right password: refused, no check made.
    const before = passwordWork.state();
    const refused = await login('Owner', 'owner-pass', '10.7.7.4');
    expect(refused.statusCode, refused.body).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'rate_limited', error: expect.stringMatching(/^Слишком много попыток/) });
    expect(passwordWork.state().running).toBe(before.running);
    const game = await launcher('Other', 'other-pass', '10.7.7.5');
    expect(game.statusCode).toBe(403);
    expect(game.json().errorMessage).toMatch(/^Слишком много попыток входа/);
    expect((await login('Nobody', 'guess-5', '10.7.7.6')).statusCode).toBe(429);

    // The owner's known browser in that network, and strangers of another network, log in.
    expect((await login('Owner', 'owner-pass', '10.7.7.7', { kubik_device: device })).statusCode).toBe(200);
    expect((await login('Other', 'other-pass', '10.8.8.1')).statusCode).toBe(200);
    expect((await launcher('Owner', 'owner-pass', '10.8.8.2')).statusCode).toBe(200);
  });

  it('counts only failures: right passwords from one network never add up', async () => {
    for (let i = 1; i <= 5; i++) expect((await login('Other', 'other-pass', `10.6.6.${i}`)).statusCode).toBe(200);
    expect((await login('Other', 'wrong', '10.6.6.9')).statusCode).toBe(401);
    expect((await login('Other', 'other-pass', '10.6.6.10')).statusCode).toBe(200);
  });
});
