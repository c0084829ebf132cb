import * as OTPAuth from 'otpauth';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, sendQueuedMail, type TestApp } from '../../test/test-app.ts';
import { openSecret, SecretKeyMissing, sealSecret } from './two-factor.crypto.ts';

const KEY = 'test-two-factor-key-0123456789-abcdef';
const GRAVIT = 'gravit-test-secret-0123456789';
const PASSWORD = 'kubik-pass-42';

/** The code an authenticator app shows for this secret, `steps` 30-second steps from now. */
const codeOf = (secret: string, steps = 0) =>
  OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret), timestamp: Date.now() + steps * 30_000 });
/** Moves the clock to the next 30-second step, so that a new code exists (a used one is refused). */
const nextStep = () => vi.setSystemTime(Date.now() + 30_000);

describe('authenticator secrets at rest', () => {
  it('are sealed with TWO_FACTOR_KEY, bound to their user, and open only with that key', () => {
    const sealed = sealSecret('JBSWY3DPEHPK3PXP', 7, KEY);
    expect(sealed).toMatch(/^v1:/);
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(sealSecret('JBSWY3DPEHPK3PXP', 7, KEY)).not.toBe(sealed);
    expect(openSecret(sealed, 7, KEY)).toBe('JBSWY3DPEHPK3PXP');
    expect(() => openSecret(sealed, 8, KEY)).toThrow();
    expect(() => openSecret(sealed, 7, `${KEY}-other`)).toThrow();
    expect(() => openSecret(sealed, 7, undefined)).toThrow(SecretKeyMissing);
    // Without a key they are kept as they are, and still open once a key is set.
    const plain = sealSecret('JBSWY3DPEHPK3PXP', 7, undefined);
    expect(openSecret(plain, 7, undefined)).toBe('JBSWY3DPEHPK3PXP');
    expect(openSecret(plain, 7, KEY)).toBe('JBSWY3DPEHPK3PXP');
  });
});

describe.each(dbKinds)('two-factor login on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { rateLimits: { enabled: false }, twoFactorKey: KEY, gravitSecret: GRAVIT });
  });
  afterAll(async () => {
    await t?.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const login = (body: Record<string, unknown>, cookies: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/api/user/login', payload: body, cookies });
  const post = (token: string, url: string, payload?: object) =>
    t.app.inject(asUser(token, { method: 'POST', url, ...(payload ? { payload } : {}) }));

  /** A player with two-factor login on: their session token, secret and recovery codes. */
  async function withTwoFactor(name: string, opts: { admin?: boolean } = {}) {
    const id = await seedUser(t, name, { password: PASSWORD, admin: opts.admin });
    const token = await loginAs(t, name, PASSWORD);
    const setup = await post(token, '/api/user/2fa/setup');
    expect(setup.statusCode).toBe(200);
    const { secret } = setup.json<{ secret: string }>();
    const enable = await post(token, '/api/user/2fa/enable', { code: codeOf(secret) });
    expect(enable.statusCode, enable.body).toBe(200);
    return { id, token, secret, codes: enable.json<{ recovery_codes: string[] }>().recovery_codes };
  }

  it('setup gives a secret, an otpauth address with the site name and a QR code; enable needs a code from it; the secret is never shown again', async () => {
    const id = await seedUser(t, 'Totp_Setup', { password: PASSWORD });
    const token = await loginAs(t, 'Totp_Setup', PASSWORD);
    expect((await t.app.inject(asUser(token, { method: 'GET', url: '/api/user/2fa' }))).json()).toEqual({
      enabled: false,
      enabled_at: null,
      recovery_codes_left: 0,
      required: false,
    });
    const setup = await post(token, '/api/user/2fa/setup');
    expect(setup.statusCode).toBe(200);
    const body = setup.json<{ secret: string; otpauth_url: string; qr_data_url: string }>();
    expect(body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(body.otpauth_url);
    expect(url.protocol).toBe('otpauth:');
    expect(url.host).toBe('totp');
    expect(decodeURIComponent(url.pathname)).toBe('/Kubik:Totp_Setup');
    expect(url.searchParams.get('secret')).toBe(body.secret);
    expect(url.searchParams.get('issuer')).toBe('Kubik');
    expect(url.searchParams.get('digits')).toBe('6');
    expect(url.searchParams.get('period')).toBe('30');
    expect(body.qr_data_url).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(body.qr_data_url.split(',')[1]!, 'base64').toString()).toContain('<svg');

    // Pending only: login still needs no code.
    expect((await login({ username: 'Totp_Setup', password: PASSWORD })).statusCode).toBe(200);

    const wrong = await post(token, '/api/user/2fa/enable', { code: codeOf(body.secret, 5) });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ code: 'bad_two_factor_code', field: 'code' });
    const enabled = await post(token, '/api/user/2fa/enable', { code: codeOf(body.secret) });
    expect(enabled.statusCode).toBe(200);
    const codes = enabled.json<{ recovery_codes: string[] }>().recovery_codes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);

    // Stored sealed (TWO_FACTOR_KEY), recovery codes as hashes only.
    const row = (await t.handle.db.selectFrom('two_factor').selectAll().where('user_id', '=', id).executeTakeFirstOrThrow())!;
    expect(row.secret).toMatch(/^v1:/);
    expect(row.secret).not.toContain(body.secret);
    expect(row.pending_secret).toBeNull();
    const hashes = await t.handle.db.selectFrom('two_factor_recovery').select('code_hash').where('user_id', '=', id).execute();
    expect(hashes).toHaveLength(10);
    for (const h of hashes) for (const c of codes) expect(h.code_hash).not.toContain(c.replace('-', ''));

    const status = await t.app.inject(asUser(token, { method: 'GET', url: '/api/user/2fa' }));
    expect(status.json()).toMatchObject({ enabled: true, recovery_codes_left: 10, required: false });
    expect(status.body).not.toContain(body.secret);
    // No second secret while it is on.
    expect((await post(token, '/api/user/2fa/setup')).statusCode).toBe(409);
    await sendQueuedMail(t);
    await t.smtp.waitFor('totp_setup@example.com', (l) => l.subject.startsWith('Двухфакторная защита включена'));
  });

  it('login: 401 two_factor_required without a code, refused with a wrong one, in with the right one, never twice with one code', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { secret } = await withTwoFactor('Totp_Login');
    const noCode = await login({ username: 'Totp_Login', password: PASSWORD });
    expect(noCode.statusCode).toBe(401);
    expect(noCode.json()).toMatchObject({ two_factor_required: true, code: 'two_factor_required' });
    expect(noCode.cookies.find((c) => c.name === 'kubik_session')).toBeUndefined();
    // A wrong password says nothing about the second factor.
    const badPassword = await login({ username: 'Totp_Login', password: 'wrong-password', code: codeOf(secret) });
    expect(badPassword.statusCode).toBe(401);
    expect(badPassword.json()).toEqual({ error: 'Неверное имя пользователя или пароль', code: 'bad_credentials' });

    nextStep();
    const wrong = await login({ username: 'Totp_Login', password: PASSWORD, code: '000000' === codeOf(secret) ? '111111' : '000000' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ two_factor_required: true, code: 'bad_two_factor_code', field: 'code' });
    const code = codeOf(secret);
    const ok = await login({ username: 'Totp_Login', password: PASSWORD, code: `${code.slice(0, 3)} ${code.slice(3)}` });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.cookies.find((c) => c.name === 'kubik_session')).toBeDefined();
    // The same code again (a replay, or a second login within the 30 seconds) is refused…
    const replay = await login({ username: 'Totp_Login', password: PASSWORD, code });
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toMatchObject({ code: 'bad_two_factor_code' });
    // …and so is the code of the step before, once a later one was used.
    nextStep();
    expect((await login({ username: 'Totp_Login', password: PASSWORD, code: codeOf(secret, -1) })).statusCode).toBe(401);
    // Clocks drift: the next step's code is accepted too.
    expect((await login({ username: 'Totp_Login', password: PASSWORD, code: codeOf(secret, 1) })).statusCode).toBe(200);
    // Two logins with one code at the same moment: only one gets in.
    nextStep();
    nextStep();
    const fresh = codeOf(secret);
    const both = await Promise.all([1, 2].map(() => login({ username: 'Totp_Login', password: PASSWORD, code: fresh })));
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 401]);
  });

  it('a recovery code works once, in any case and with or without its dash', async () => {
    const { codes, token } = await withTwoFactor('Totp_Recover');
    const first = await login({ username: 'Totp_Recover', password: PASSWORD, code: codes[0]!.toUpperCase() });
    expect(first.statusCode).toBe(200);
    const again = await login({ username: 'Totp_Recover', password: PASSWORD, code: codes[0]!.replace('-', '') });
    expect(again.statusCode).toBe(401);
    expect(again.json()).toMatchObject({ code: 'bad_two_factor_code' });
    expect((await login({ username: 'Totp_Recover', password: PASSWORD, code: codes[1]! })).statusCode).toBe(200);
    expect((await t.app.inject(asUser(token, { method: 'GET', url: '/api/user/2fa' }))).json()).toMatchObject({ recovery_codes_left: 8 });
    // Made-up codes of the right shape are refused.
    expect((await login({ username: 'Totp_Recover', password: PASSWORD, code: 'aaaaa-aaaaa' })).statusCode).toBe(401);
  });

  it('disable needs the password and a code; then the password alone logs in', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { token, secret, codes } = await withTwoFactor('Totp_Off');
    nextStep();
    const noCode = await post(token, '/api/user/2fa/disable', { password: PASSWORD });
    expect(noCode.statusCode).toBe(400);
    expect(noCode.json()).toMatchObject({ field: 'code' });
    const badPassword = await post(token, '/api/user/2fa/disable', { password: 'not-my-password', code: codeOf(secret) });
    expect(badPassword.statusCode).toBe(400);
    expect(badPassword.json()).toMatchObject({ code: 'wrong_password', field: 'password' });
    const badCode = await post(token, '/api/user/2fa/disable', { password: PASSWORD, code: '12345' });
    expect(badCode.statusCode).toBe(400);
    expect(badCode.json()).toMatchObject({ code: 'bad_two_factor_code', field: 'code' });
    expect((await t.app.inject(asUser(token, { method: 'GET', url: '/api/user/2fa' }))).json()).toMatchObject({ enabled: true });
    const off = await post(token, '/api/user/2fa/disable', { password: PASSWORD, code: codes[3]! });
    expect(off.statusCode, off.body).toBe(200);
    expect((await t.app.inject(asUser(token, { method: 'GET', url: '/api/user/2fa' }))).json()).toMatchObject({
      enabled: false,
      recovery_codes_left: 0,
    });
    expect((await login({ username: 'Totp_Off', password: PASSWORD })).statusCode).toBe(200);
    expect((await post(token, '/api/user/2fa/disable', { password: PASSWORD, code: codeOf(secret) })).json()).toMatchObject({
      code: 'two_factor_off',
    });
    await sendQueuedMail(t);
    await t.smtp.waitFor('totp_off@example.com', (l) => l.subject.startsWith('Двухфакторная защита отключена'));
  });

  it('launchers: Yggdrasil asks for the code like Ely.by and takes `password:code`; GravitLauncher gets auth.require2fa and sends totpCode', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { secret, codes } = await withTwoFactor('Totp_Game');
    const ygg = (password: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/yggdrasil/authserver/authenticate',
        payload: { username: 'Totp_Game', password, agent: { name: 'Minecraft', version: 1 } },
      });
    const plain = await ygg(PASSWORD);
    expect(plain.statusCode).toBe(401);
    expect(plain.json()).toEqual({ error: 'ForbiddenOperationException', errorMessage: 'Account protected with two factor auth.' });
    nextStep();
    const wrong = await ygg(`${PASSWORD}:000001`);
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().errorMessage).toMatch(/Invalid credentials/);
    expect((await ygg(`wrong-pass:${codeOf(secret)}`)).statusCode).toBe(403);
    const ok = await ygg(`${PASSWORD}:${codeOf(secret)}`);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().selectedProfile.name).toBe('Totp_Game');
    // The code was used: the same one again is refused.
    expect((await ygg(`${PASSWORD}:${codeOf(secret)}`)).statusCode).toBe(403);
    // A recovery code works in the password field too.
    expect((await ygg(`${PASSWORD}:${codes[0]}`)).statusCode).toBe(200);

    const gravit = (body: object, url = '/api/gravit/authorize') =>
      t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${GRAVIT}` }, payload: body });
    nextStep();
    const ask = await gravit({ login: 'Totp_Game', password: PASSWORD });
    expect(ask.statusCode).toBe(400);
    expect(ask.json()).toEqual({ error: 'auth.require2fa', code: 0 });
    const bad = await gravit({ login: 'Totp_Game', password: PASSWORD, totpCode: '999999' === codeOf(secret) ? '888888' : '999999' });
    expect(bad.json().error).toMatch(/Неверный код/);
    const good = await gravit({ login: 'Totp_Game', password: PASSWORD, totpCode: codeOf(secret) });
    expect(good.statusCode, good.body).toBe(200);
    expect(good.json().user.username).toBe('Totp_Game');

    // LaunchServer 5.2–5.4 (plain passwords only): the code after a colon, with a Russian hint when it is missing.
    nextStep();
    const legacy = (password: string) =>
      gravit({ login: 'Totp_Game', password: { type: 'plain', password }, context: null }, '/api/gravit/v5/auth/authorize');
    const hint = await legacy(PASSWORD);
    expect(hint.statusCode).toBe(400);
    expect(hint.json().error).toMatch(/пароль:123456/);
    expect((await legacy(`${PASSWORD}:${codeOf(secret)}`)).statusCode).toBe(200);
  });

  it('an account without two-factor login keeps a password with a colon as it is', async () => {
    await seedUser(t, 'Colon_Pass', { password: 'my:123456' });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/yggdrasil/authserver/authenticate',
      payload: { username: 'Colon_Pass', password: 'my:123456' },
    });
    expect(res.statusCode).toBe(200);
  });

  it('an administrator can reset a player\u2019s two-factor login (lost phone and codes); deleting an account removes it', async () => {
    const player = await withTwoFactor('Lost_Phone');
    await seedUser(t, 'Reset_Admin', { admin: true, password: PASSWORD });
    const admin = await loginAs(t, 'Reset_Admin', PASSWORD);
    const reset = (id: number, token = admin) => t.app.inject(asUser(token, { method: 'DELETE', url: `/api/admin/users/${id}/2fa` }));
    expect((await reset(player.id, player.token)).statusCode).toBe(403);
    const card = await t.app.inject(asUser(admin, { method: 'GET', url: `/api/admin/users/${player.id}` }));
    expect(card.json()).toMatchObject({ two_factor: true });
    const done = await reset(player.id);
    expect(done.statusCode, done.body).toBe(200);
    // The player's sessions end; the password alone logs in again.
    expect((await t.app.inject(asUser(player.token, { method: 'GET', url: '/api/user/me' }))).statusCode).toBe(401);
    expect((await login({ username: 'Lost_Phone', password: PASSWORD })).statusCode).toBe(200);
    expect((await t.app.inject(asUser(admin, { method: 'GET', url: `/api/admin/users/${player.id}` }))).json()).toMatchObject({
      two_factor: false,
    });
    expect((await reset(player.id)).json()).toMatchObject({ code: 'two_factor_off' });
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'user.2fa_reset')
      .where('entity_id', '=', String(player.id))
      .execute();
    expect(audit).toHaveLength(1);

    const gone = await withTwoFactor('Gone_2fa');
    expect((await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/user/${gone.id}` }))).statusCode).toBe(200);
    expect(await t.handle.db.selectFrom('two_factor').select('user_id').where('user_id', '=', gone.id).executeTakeFirst()).toBeUndefined();
    expect(await t.handle.db.selectFrom('two_factor_recovery').select('id').where('user_id', '=', gone.id).execute()).toHaveLength(0);
  });

  it('the owner may require two-factor login of administrators: admin routes answer 403 two_factor_setup_required until it is on', async () => {
    await seedUser(t, 'Plain_Admin', { admin: true, password: PASSWORD });
    const plain = await loginAs(t, 'Plain_Admin', PASSWORD);
    // An administrator without it cannot require it (they would lock themselves out).
    const refused = await t.app.inject(
      asUser(plain, { method: 'PUT', url: '/api/admin/security', payload: { require_admin_two_factor: true } }),
    );
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'two_factor_setup_required' });
    const secure = await withTwoFactor('Secure_Admin', { admin: true });
    const set = await t.app.inject(
      asUser(secure.token, { method: 'PUT', url: '/api/admin/security', payload: { require_admin_two_factor: true } }),
    );
    expect(set.statusCode, set.body).toBe(200);
    try {
      const blocked = await t.app.inject(asUser(plain, { method: 'GET', url: '/api/user/all' }));
      expect(blocked.statusCode).toBe(403);
      expect(blocked.json()).toMatchObject({ code: 'two_factor_setup_required' });
      expect(errorOf(blocked)).toMatch(/двухфакторная защита/);
      expect((await t.app.inject(asUser(plain, { method: 'GET', url: '/api/user/2fa' }))).json()).toMatchObject({
        enabled: false,
        required: true,
      });
      // The one with a second factor goes on working; players are not affected.
      expect((await t.app.inject(asUser(secure.token, { method: 'GET', url: '/api/user/all' }))).statusCode).toBe(200);
      // Turning it on opens the admin routes at once.
      const setup = await post(plain, '/api/user/2fa/setup');
      expect((await post(plain, '/api/user/2fa/enable', { code: codeOf(setup.json<{ secret: string }>().secret) })).statusCode).toBe(200);
      expect((await t.app.inject(asUser(plain, { method: 'GET', url: '/api/user/all' }))).statusCode).toBe(200);
    } finally {
      await t.app.inject(asUser(secure.token, { method: 'PUT', url: '/api/admin/security', payload: { require_admin_two_factor: false } }));
    }
  });
});

describe.each(dbKinds)('two-factor codes and the login throttle on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { rateLimits: { loginPerIp: 1000, loginPerAccount: 3 } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('wrong codes count like wrong passwords: after a few, tries from unknown devices wait', async () => {
    const id = await seedUser(t, 'Code_Guess', { password: PASSWORD });
    const token = await loginAs(t, 'Code_Guess', PASSWORD);
    const setup = await t.app.inject(asUser(token, { method: 'POST', url: '/api/user/2fa/setup' }));
    const secret = setup.json<{ secret: string }>().secret;
    expect(
      (await t.app.inject(asUser(token, { method: 'POST', url: '/api/user/2fa/enable', payload: { code: codeOf(secret) } }))).statusCode,
    ).toBe(200);
    const guess = (code: string, ip: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/user/login',
        payload: { username: 'Code_Guess', password: PASSWORD, code },
        remoteAddress: ip,
      });
    const right = codeOf(secret, 1);
    const wrongCodes = ['000000', '111111', '222222'].filter((c) => c !== right && c !== codeOf(secret) && c !== codeOf(secret, -1));
    for (const [i, c] of wrongCodes.slice(0, 2).entries()) expect((await guess(c, `10.5.0.${i}`)).statusCode).toBe(401);
    // Asking without a code does not clear the count either (the password alone is not a success).
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/user/login',
          payload: { username: 'Code_Guess', password: PASSWORD },
          remoteAddress: '10.5.0.9',
        })
      ).statusCode,
    ).toBe(401);
    const row = await t.handle.db.selectFrom('login_throttle').selectAll().where('user_id', '=', id).executeTakeFirstOrThrow();
    expect(row.failures).toBe(3);
    const delayed = await guess(right, '10.5.0.10');
    expect(delayed.statusCode).toBe(429);
  });
});
