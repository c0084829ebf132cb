import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { ledgerReport } from '../../cli/ledger-report.ts';

const PASSWORD = 'kubik-pass-42';
const KEY = 'account-deletion-test-key-0123456789abcdef';
const codeOf = (secret: string) => OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret), timestamp: Date.now() });

describe.each(dbKinds)('self-service deletion on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { twoFactorKey: KEY });
  });
  afterAll(async () => {
    await t?.close();
  });

  const del = (token: string | null, body: unknown) =>
    t.app.inject(asUser(token, { method: 'POST', url: '/api/user/delete-account', payload: body as object }));

  it('needs the right password; deletes as the admin deletion does, keeps the money history, says goodbye by e-mail', async () => {
    const id = await seedUser(t, 'Leaver', { password: PASSWORD, balanceKopecks: 12_550 });
    const session = await loginAs(t, 'Leaver', PASSWORD);
    const other = await loginAs(t, 'Leaver', PASSWORD);
    // Money history: a purchase-like debit besides the top-up.
    await t.handle.db.transaction().execute(async (trx) => {
      const { postLedger } = await import('../ledger/ledger.service.ts');
      await postLedger(trx, { userId: id, amount: -2_000, reason: 'adjustment', authorId: null, note: 'test debit' });
    });
    await t.handle.db
      .insertInto('game_tokens')
      .values({
        access_hash: 'b'.repeat(64),
        refresh_hash: null,
        kind: 'yggdrasil',
        user_id: id,
        client_token: null,
        profile_name: 'Leaver',
        created_at: Date.now(),
        expires_at: Date.now() + 1e6,
        refresh_until: Date.now() + 1e6,
      })
      .execute();

    expect((await del(null, { password: PASSWORD })).statusCode).toBe(401);
    const wrong = await del(session, { password: 'not-the-password' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ code: 'wrong_password', field: 'password', error: 'Пароль указан неверно' });
    expect((await del(session, {})).statusCode).toBe(400);
    expect((await t.app.inject(asUser(session, { method: 'GET', url: '/api/user/me' }))).statusCode).toBe(200);

    const res = await del(session, { password: PASSWORD });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().message).toBe('Аккаунт удалён. Письмо об этом отправлено на вашу почту.');
    expect(String(res.headers['set-cookie'])).toMatch(/kubik_session=;/);

    const row = await t.handle.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ username: `Удалён #${id}`, email: `deleted#${id}`, password_hash: '!', is_admin: 0 });
    expect(row.deleted_at).not.toBeNull();
    // Every session and game login ended; the name and address are free again.
    expect((await t.app.inject(asUser(other, { method: 'GET', url: '/api/user/me' }))).statusCode).toBe(401);
    expect(await t.handle.db.selectFrom('game_tokens').select('user_id').where('user_id', '=', id).execute()).toEqual([]);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { username: 'Leaver', password: PASSWORD } })).statusCode,
    ).toBe(401);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/user/register',
          payload: { username: 'Leaver', email: 'leaver@example.com', password: PASSWORD },
        })
      ).statusCode,
    ).toBe(201);

    // The money history stays, and it still adds up.
    const ledger = await t.handle.db.selectFrom('ledger').select('amount').where('user_id', '=', id).execute();
    expect(ledger.map((r) => Number(r.amount))).toEqual([12_550, -2_000]);
    expect(Number(row.balance)).toBe(10_550);
    expect(await findLedgerMismatches(t.handle.db)).toEqual([]);
    expect((await ledgerReport(t.handle.db)).failed).toBe(false);

    const letter = await t.smtp.waitFor('leaver@example.com', (l) => l.subject.includes('Аккаунт удалён'));
    expect(letter.text).toContain('удалён по вашей просьбе');
    expect(letter.text).toContain('105,50');
    const audit = await t.handle.db.selectFrom('audit_log').select(['action', 'actor_id']).where('entity_id', '=', String(id)).execute();
    expect(audit).toEqual([{ action: 'user.delete.self', actor_id: id }]);
  });

  it('with two-factor login on, a code is needed too (a wrong or missing one refused without logging out)', async () => {
    const id = await seedUser(t, 'Careful', { password: PASSWORD });
    const session = await loginAs(t, 'Careful', PASSWORD);
    const setup = await t.app.inject(asUser(session, { method: 'POST', url: '/api/user/2fa/setup' }));
    expect(setup.statusCode, setup.body).toBe(200);
    const secret = setup.json<{ secret: string }>().secret;
    const enabled = await t.app.inject(asUser(session, { method: 'POST', url: '/api/user/2fa/enable', payload: { code: codeOf(secret) } }));
    expect(enabled.statusCode, enabled.body).toBe(200);
    const recovery = enabled.json<{ recovery_codes: string[] }>().recovery_codes;

    const missing = await del(session, { password: PASSWORD });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'two_factor_required', field: 'code' });
    const wrong = await del(session, { password: PASSWORD, code: '000000' === codeOf(secret) ? '111111' : '000000' });
    expect(wrong.json()).toMatchObject({ code: 'bad_two_factor_code', field: 'code' });
    expect((await t.app.inject(asUser(session, { method: 'GET', url: '/api/user/me' }))).statusCode).toBe(200);
    const ok = await del(session, { password: PASSWORD, code: recovery[0] });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(
      (await t.handle.db.selectFrom('users').select('deleted_at').where('id', '=', id).executeTakeFirstOrThrow()).deleted_at,
    ).not.toBeNull();
    // The secret goes with the account.
    expect(await t.handle.db.selectFrom('two_factor').select('user_id').where('user_id', '=', id).execute()).toEqual([]);
    expect(await t.handle.db.selectFrom('two_factor_recovery').select('user_id').where('user_id', '=', id).execute()).toEqual([]);
  });

  it('the only administrator cannot delete their account', async () => {
    await seedUser(t, 'OnlyAdmin', { admin: true, password: PASSWORD });
    const session = await loginAs(t, 'OnlyAdmin', PASSWORD);
    const res = await del(session, { password: PASSWORD });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('last_admin');
    expect((await t.app.inject(asUser(session, { method: 'GET', url: '/api/user/me' }))).statusCode).toBe(200);
  });
});
