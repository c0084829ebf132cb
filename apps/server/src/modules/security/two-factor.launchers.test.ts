import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthException, GravitLaunchServer } from '../../../../../testing/gravit-launchserver.ts';
import { asUser, dbKinds, loginAs, seedUser } from '../../test/test-app.ts';
import { listeningSite } from '../../test/game-auth.ts';

const SECRET = 'gravit-test-secret-0123456789';
const PASSWORD = 'kubik-pass-42';
const codeOf = (secret: string, steps = 0) =>
  OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret), timestamp: Date.now() + steps * 30_000 });
/** The launchers' per-account limit: one password check a second. */
const pause = () => new Promise((r) => setTimeout(r, 1100));

/** Two-factor login through GravitLauncher's LaunchServer (the myhttp core as it really talks), over HTTP. */
describe.each(dbKinds)('two-factor login through LaunchServer on %s', (kind) => {
  let site: Awaited<ReturnType<typeof listeningSite>>;
  let ls: GravitLaunchServer;
  let secret: string;
  beforeAll(async () => {
    site = await listeningSite(kind, { gravitSecret: SECRET });
    await seedUser(site, 'Gravit_2fa', { password: PASSWORD });
    const token = await loginAs(site, 'Gravit_2fa', PASSWORD);
    secret = (await site.app.inject(asUser(token, { method: 'POST', url: '/api/user/2fa/setup' }))).json<{ secret: string }>().secret;
    expect(
      (await site.app.inject(asUser(token, { method: 'POST', url: '/api/user/2fa/enable', payload: { code: codeOf(secret) } }))).statusCode,
    ).toBe(200);
    const user = `${site.base}/api/gravit/user?username=%username%&uuid=%uuid%`;
    ls = new GravitLaunchServer({
      userByUsername: user,
      userByUuid: user,
      userByToken: `${site.base}/api/gravit/user/by-token`,
      refreshAccessToken: `${site.base}/api/gravit/refresh`,
      authorize: `${site.base}/api/gravit/authorize`,
      joinServer: `${site.base}/api/gravit/join`,
      checkServer: `${site.base}/api/gravit/check`,
      bearerToken: SECRET,
    });
  });
  afterAll(async () => {
    await site?.close();
  });

  it('asks for the code with auth.require2fa, refuses a wrong one, and logs in with totpCode', async () => {
    await pause();
    await expect(ls.authorize('Gravit_2fa', PASSWORD)).rejects.toEqual(new AuthException('auth.require2fa'));
    await pause();
    const wrong = codeOf(secret, 1) === '000000' ? '111111' : '000000';
    await expect(ls.authorize('Gravit_2fa', PASSWORD, wrong)).rejects.toThrow(/Неверный код/);
    await pause();
    // A wrong password with a right code is still a wrong password.
    await expect(ls.authorize('Gravit_2fa', 'not-the-password', codeOf(secret, 1))).rejects.toEqual(
      new AuthException('auth.wrongpassword'),
    );
    await pause();
    const session = await ls.authorize('Gravit_2fa', PASSWORD, codeOf(secret, 1));
    expect(session.user?.username).toBe('Gravit_2fa');
    expect(JSON.parse(ls.sent.at(-1)!.body!)).toMatchObject({ login: 'Gravit_2fa', totpCode: codeOf(secret, 1) });
  });
});
