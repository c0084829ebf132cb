import { passwordStrength } from '@kubik/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { linkIn } from '../../../../../testing/smtp-catcher.ts';
import { isCommonPassword, PASSWORD_TEXTS } from '../../lib/password-policy.ts';

describe('the password rules', () => {
  it('knows the common passwords of real leaks, ignoring case', () => {
    for (const p of ['password', '12345678', 'qwerty123', 'Password1', 'iloveyou', 'QWERTYUIOP']) expect(isCommonPassword(p), p).toBe(true);
    for (const p of ['kubik-pass-42', 'зелёный кубик в шахте', 'correct horse battery']) expect(isCommonPassword(p), p).toBe(false);
  });

  it('gives the forms a strength hint', () => {
    expect(passwordStrength('')).toBeNull();
    expect(passwordStrength('abc')!.score).toBe(0);
    expect(passwordStrength('Steve_01', ['Steve_01', 'steve@example.com'])).toMatchObject({
      score: 0,
      label: 'Совпадает с именем или почтой',
    });
    expect(passwordStrength('steve', ['x', 'steve@example.com'])!.score).toBe(0);
    expect(passwordStrength('12345678901')!.score).toBe(1);
    expect(passwordStrength('qwerty12')!.score).toBe(1);
    expect(passwordStrength('kubik-pass')!.score).toBe(2);
    expect(passwordStrength('Kubik-pass-42')).toEqual({ score: 3, label: 'Надёжный' });
    expect(passwordStrength('зелёный кубик в шахте')!.score).toBe(3);
  });
});

describe.each(dbKinds)('refused passwords on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { rateLimits: { enabled: false } });
  });
  afterAll(async () => {
    await t?.close();
  });

  const register = (payload: object) => t.app.inject({ method: 'POST', url: '/api/user/register', payload });

  it('registration refuses common passwords and the name or e-mail, beside the field, in Russian', async () => {
    const cases: [object, string][] = [
      [{ username: 'Weak_1', email: 'weak1@example.com', password: 'password123' }, PASSWORD_TEXTS.common],
      [{ username: 'Weak_1', email: 'weak1@example.com', password: 'QWERTY123' }, PASSWORD_TEXTS.common],
      [{ username: 'Weak_Name1', email: 'weak1@example.com', password: 'weak_name1' }, PASSWORD_TEXTS.sameAsName],
      [{ username: 'Weak_1', email: 'weak.mail.1@example.com', password: 'Weak.Mail.1@example.com' }, PASSWORD_TEXTS.sameAsEmail],
      [{ username: 'Weak_1', email: 'weak.mail.1@example.com', password: 'weak.mail.1' }, PASSWORD_TEXTS.sameAsEmail],
    ];
    for (const [body, text] of cases) {
      const res = await register(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toEqual({ error: text, code: 'weak_password', field: 'password' });
    }
    expect(await t.handle.db.selectFrom('users').select('id').where('username_lower', '=', 'weak_1').executeTakeFirst()).toBeUndefined();
    expect((await register({ username: 'Weak_1', email: 'weak1@example.com', password: 'кубик в шахте 42' })).statusCode).toBe(201);
  });

  it('change and reset refuse them too', async () => {
    await seedUser(t, 'Changer_2', { password: 'first-kubik-pass' });
    const token = await loginAs(t, 'Changer_2', 'first-kubik-pass');
    const change = await t.app.inject(
      asUser(token, {
        method: 'POST',
        url: '/api/user/change-password',
        payload: { old_password: 'first-kubik-pass', new_password: 'iloveyou' },
      }),
    );
    expect(change.statusCode).toBe(400);
    expect(change.json()).toMatchObject({ error: PASSWORD_TEXTS.common, code: 'weak_password', field: 'new_password' });

    await t.app.inject({ method: 'POST', url: '/api/user/forgot-password', payload: { email: 'changer_2@example.com' } });
    const letter = await t.smtp.waitFor('changer_2@example.com', (l) => l.subject.includes('Сброс пароля'));
    const link = new URL(linkIn(letter, '/reset-password?token=')).searchParams.get('token')!;
    const weak = await t.app.inject({ method: 'POST', url: `/api/user/reset-password/${link}`, payload: { new_password: 'changer_2' } });
    expect(weak.statusCode).toBe(400);
    expect(errorOf(weak)).toBe(PASSWORD_TEXTS.sameAsName);
    // The refused try did not use the link up.
    expect(
      (await t.app.inject({ method: 'POST', url: `/api/user/reset-password/${link}`, payload: { new_password: 'second kubik pass' } }))
        .statusCode,
    ).toBe(200);
  });
});
