import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../lib/tokens.ts';
import { countTouches } from '../../test/database.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { linkIn } from '../../../../../testing/smtp-catcher.ts';
import { EmailLinkKey } from '../users/email-tokens.ts';

describe.each(dbKinds)('accounts on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  const register = (body: unknown) => t.app.inject({ method: 'POST', url: '/api/user/register', payload: body as object });
  const login = (username: string, password: string) =>
    t.app.inject({ method: 'POST', url: '/api/user/login', payload: { username, password } });
  const userCount = async () =>
    Number(
      (
        await t.handle.db
          .selectFrom('users')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("keeps the player's way: the page they registered from rides in the letter's link, to the login and no further", async () => {
    const res = await register({ username: 'Shopper', email: 'shopper@example.com', password: 'correct horse', return_to: '/shop' });
    expect(res.statusCode, res.body).toBe(201);
    const letter = await t.smtp.waitFor('shopper@example.com');
    const link = new URL(linkIn(letter, '/api/user/confirm/'));
    expect(link.searchParams.get('next')).toBe('/shop');
    const confirm = await t.app.inject({ method: 'GET', url: link.pathname + link.search });
    expect(confirm.headers.location).toBe('/login?verified=true&next=%2Fshop');
    // Only a page of this site: another site's address, given or slipped into the link, is refused or dropped.
    for (const away of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'shop', '/a b'])
      expect(
        (await register({ username: 'Away_1', email: 'away@example.com', password: 'correct horse', return_to: away })).statusCode,
        away,
      ).toBe(400);
    await register({ username: 'Twice', email: 'twice@example.com', password: 'correct horse' });
    const plain = new URL(linkIn(await t.smtp.waitFor('twice@example.com'), '/api/user/confirm/'));
    expect(plain.search).toBe('');
    const forged = await t.app.inject({ method: 'GET', url: `${plain.pathname}?next=${encodeURIComponent('//evil.example')}` });
    expect(forged.headers.location).toBe('/login?verified=true');
  });

  it('registers, mails a confirmation link, confirms once and logs in', async () => {
    const res = await register({ username: 'Steve_01', email: 'Steve@Example.com', password: 'correct horse' });
    expect(res.statusCode).toBe(201);
    expect(res.json().message).toBe('Письмо с подтверждением отправлено на вашу почту. Проверьте почту!');

    const unconfirmed = await login('steve_01', 'correct horse');
    expect(unconfirmed.statusCode).toBe(403);
    expect(errorOf(unconfirmed)).toBe('Почта не подтверждена');

    const letter = await t.smtp.waitFor('steve@example.com');
    expect(letter.subject).toContain('Подтверждение почты');
    expect(letter.html).toContain('Подтвердить почту');
    const link = linkIn(letter, '/api/user/confirm/');
    expect(link.startsWith('http://kubik.test/api/user/confirm/')).toBe(true);
    const path = new URL(link).pathname;

    const confirm = await t.app.inject({ method: 'GET', url: path });
    expect(confirm.statusCode).toBe(302);
    expect(confirm.headers.location).toBe('/login?verified=true');
    const again = await t.app.inject({ method: 'GET', url: path });
    expect(again.headers.location).toBe('/login?verified=invalid');

    const ok = await login('STEVE_01', 'correct horse');
    expect(ok.statusCode).toBe(200);
    // The browser gets the session only as an httpOnly cookie, never in the body.
    expect(ok.json()).toEqual({ message: 'Вы вошли' });
    const session = ok.cookies.find((c) => c.name === 'kubik_session')!;
    const token = session.value;
    expect(token.length).toBeGreaterThan(30);
    expect(session.httpOnly).toBe(true);
    expect(session.sameSite).toBe('Lax');

    // The cookie and the bearer token both identify the session.
    const viaCookie = await t.app.inject({ method: 'GET', url: '/api/user/me', cookies: { kubik_session: token } });
    expect(viaCookie.statusCode).toBe(200);
    expect(viaCookie.json()).toEqual({
      id: expect.any(Number),
      username: 'Steve_01',
      email: 'Steve@Example.com',
      is_admin: false,
      balance: 0,
      // A player holds no staff permissions and no role (issue 26).
      permissions: [],
      role: null,
    });
    const viaBearer = await t.app.inject(asUser(token, { method: 'GET', url: '/api/user/me' }));
    expect(viaBearer.json().username).toBe('Steve_01');
    expect(JSON.stringify(viaBearer.json())).not.toMatch(/argon2|password/);

    // Nothing secret is stored in the clear.
    const stored = await t.handle.db.selectFrom('sessions').select('token_hash').execute();
    expect(stored.some((s) => s.token_hash === token)).toBe(false);
    expect(stored.some((s) => s.token_hash === hashToken(token))).toBe(true);
    const user = await t.handle.db
      .selectFrom('users')
      .select('password_hash')
      .where('username_lower', '=', 'steve_01')
      .executeTakeFirstOrThrow();
    expect(user.password_hash.startsWith('$argon2id$')).toBe(true);

    const out = await t.app.inject(asUser(token, { method: 'POST', url: '/api/user/logout' }));
    expect(out.statusCode).toBe(200);
    const after = await t.app.inject(asUser(token, { method: 'GET', url: '/api/user/me' }));
    expect(after.statusCode).toBe(401);
    expect(errorOf(after)).toBe('Invalid token');
  });

  it('answers 401 to /me without a session', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/user/me' });
    expect(res.statusCode).toBe(401);
    expect(errorOf(res)).toBe('Войдите в аккаунт');
  });

  it('refuses taken names and addresses ignoring case, with the texts the client maps', async () => {
    await seedUser(t, 'Alex');
    const byEmail = await register({ username: 'Someone', email: 'ALEX@example.com', password: 'kubik-pass-42' });
    expect(byEmail.statusCode).toBe(409);
    expect(errorOf(byEmail)).toBe('Email already exists');
    const byName = await register({ username: 'aLeX', email: 'other@example.com', password: 'kubik-pass-42' });
    expect(byName.statusCode).toBe(409);
    expect(errorOf(byName)).toBe('Username already exists');
  });

  it('checks the registration rules on the server', async () => {
    const before = await userCount();
    const cases: [unknown, RegExp][] = [
      [{ username: 'ab', email: 'a@b.ru', password: 'kubik-pass-42' }, /Имя пользователя/],
      [{ username: 'Вася', email: 'a@b.ru', password: 'kubik-pass-42' }, /Имя пользователя/],
      [{ username: 'a'.repeat(17), email: 'a@b.ru', password: 'kubik-pass-42' }, /Имя пользователя/],
      [{ username: 'Valid_1', email: 'not-an-email', password: 'kubik-pass-42' }, /почты/],
      [{ username: 'Valid_1', email: 'a@b.ru', password: 'short' }, /не короче 8/],
      [{ username: 'Valid_1', email: 'a@b.ru' }, /пароль/i],
      [{ username: 'Valid_1', email: 'a@b.ru', password: 'kubik-pass-42', extra: 1 }, /./],
      [{ username: 123, email: 'a@b.ru', password: 'kubik-pass-42' }, /./],
      [[], /./],
      ['just a string', /./],
    ];
    for (const [body, text] of cases) {
      const res = await register(body);
      expect(res.statusCode, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, JSON.stringify(body)).toBeLessThan(500);
      expect(errorOf(res)).toMatch(text);
      expect(errorOf(res)).toMatch(/[а-яё]/i);
    }
    expect(await userCount()).toBe(before);
  });

  it('ignores is_admin and balance from anyone but an administrator', async () => {
    const res = await register({
      username: 'Sneaky',
      email: 'sneaky@example.com',
      password: 'kubik-pass-42',
      is_admin: true,
      balance: 1000,
    });
    expect(res.statusCode).toBe(201);
    const row = await t.handle.db.selectFrom('users').selectAll().where('username_lower', '=', 'sneaky').executeTakeFirstOrThrow();
    expect(row.is_admin).toBe(0);
    expect(Number(row.balance)).toBe(0);
  });

  it('lets an administrator create a confirmed user with a role and a balance in the ledger', async () => {
    const adminId = await seedUser(t, 'Boss', { admin: true });
    const token = await loginAs(t, 'Boss');
    const res = await t.app.inject(
      asUser(token, {
        method: 'POST',
        url: '/api/user/register',
        payload: { username: 'Helper', email: 'helper@example.com', password: 'kubik-pass-42', is_admin: true, balance: 12.5 },
      }),
    );
    expect(res.statusCode).toBe(201);
    const helper = await loginAs(t, 'Helper', 'kubik-pass-42');
    const me = await t.app.inject(asUser(helper, { method: 'GET', url: '/api/user/me' }));
    expect(me.json()).toMatchObject({ is_admin: true, balance: 12.5 });
    const ledger = await t.handle.db.selectFrom('ledger').selectAll().where('user_id', '=', me.json().id).execute();
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ amount: 1250, reason: 'adjustment', author_id: adminId });
  });

  it('gives one answer for a wrong name and a wrong password', async () => {
    await seedUser(t, 'Notch', { password: 'minecraft1' });
    const wrongPass = await login('Notch', 'minecraft2');
    const wrongName = await login('Nobody', 'minecraft1');
    expect(wrongPass.statusCode).toBe(401);
    expect(wrongName.statusCode).toBe(401);
    expect(errorOf(wrongPass)).toBe('Неверное имя пользователя или пароль');
    expect(errorOf(wrongName)).toBe('Неверное имя пользователя или пароль');
  });

  it('makes a hash of the earlier 19 MiB parameters anew at a successful web or launcher login', async () => {
    const { hash } = await import('@node-rs/argon2');
    const earlier = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
    const hashOf = async (name: string) =>
      (await t.handle.db.selectFrom('users').select('password_hash').where('username', '=', name).executeTakeFirstOrThrow()).password_hash;
    for (const name of ['OldWeb', 'OldLauncher']) {
      await seedUser(t, name, { password: 'old-params-1' });
      await t.handle.db
        .updateTable('users')
        .set({ password_hash: await hash('old-params-1', earlier) })
        .where('username', '=', name)
        .execute();
      expect(await hashOf(name)).toContain('$m=19456,t=2,p=1$');
    }
    // A wrong password changes nothing.
    expect((await login('OldWeb', 'old-params-2')).statusCode).toBe(401);
    expect(await hashOf('OldWeb')).toContain('$m=19456,t=2,p=1$');

    expect((await login('OldWeb', 'old-params-1')).statusCode).toBe(200);
    expect(await hashOf('OldWeb')).toMatch(/^\$argon2id\$v=19\$m=12288,t=3,p=1\$/);
    const launcher = await t.app.inject({
      method: 'POST',
      url: '/api/yggdrasil/authserver/authenticate',
      payload: { username: 'OldLauncher', password: 'old-params-1', clientToken: 'c-old' },
    });
    expect(launcher.statusCode).toBe(200);
    expect(await hashOf('OldLauncher')).toContain('$m=12288,t=3,p=1$');
    // The new hash still opens the account, and is not made again.
    const current = await hashOf('OldWeb');
    expect((await login('OldWeb', 'old-params-1')).statusCode).toBe(200);
    expect(await hashOf('OldWeb')).toBe(current);
  });

  it('resets a password by a single-use link and ends every session', async () => {
    await seedUser(t, 'Forgetful', { password: 'old-password' });
    const session = await loginAs(t, 'Forgetful', 'old-password');

    const unknown = await t.app.inject({ method: 'POST', url: '/api/user/forgot-password', payload: { email: 'nobody@example.com' } });
    const known = await t.app.inject({ method: 'POST', url: '/api/user/forgot-password', payload: { email: 'FORGETFUL@example.com' } });
    expect(unknown.statusCode).toBe(200);
    expect(known.statusCode).toBe(200);
    expect(known.json()).toEqual(unknown.json());

    const letter = await t.smtp.waitFor('forgetful@example.com', (l) => l.subject.includes('Сброс пароля'));
    const link = new URL(linkIn(letter, '/reset-password?token='));
    const token = link.searchParams.get('token')!;

    const short = await t.app.inject({ method: 'POST', url: `/api/user/reset-password/${token}`, payload: { new_password: 'short' } });
    expect(short.statusCode).toBe(400);

    // The page checks the link as it opens, without using it (twice: nothing is spent), and learns nothing about the account.
    for (let i = 0; i < 2; i++) {
      const check = await t.app.inject({ method: 'GET', url: `/api/user/reset-password/${token}` });
      expect(check.statusCode, check.body).toBe(200);
      expect(check.json()).toEqual({ message: 'Ссылка действует: придумайте новый пароль' });
      expect(check.body).not.toMatch(/forgetful|Forgetful/);
    }
    const res = await t.app.inject({ method: 'POST', url: `/api/user/reset-password/${token}`, payload: { new_password: 'new-password' } });
    expect(res.statusCode).toBe(200);
    // Used: the page says so at once.
    const used = await t.app.inject({ method: 'GET', url: `/api/user/reset-password/${token}` });
    expect(used.statusCode).toBe(400);
    expect(used.json()).toEqual({ error: 'Ссылка для сброса пароля недействительна или устарела', code: 'reset_link_invalid' });
    const reuse = await t.app.inject({
      method: 'POST',
      url: `/api/user/reset-password/${token}`,
      payload: { new_password: 'third-password' },
    });
    expect(reuse.statusCode).toBe(400);
    expect(errorOf(reuse)).toBe('Ссылка для сброса пароля недействительна или устарела');

    expect((await t.app.inject(asUser(session, { method: 'GET', url: '/api/user/me' }))).statusCode).toBe(401);
    expect((await login('Forgetful', 'old-password')).statusCode).toBe(401);
    expect((await login('Forgetful', 'new-password')).statusCode).toBe(200);
  });

  it('refuses a made-up, altered or cross-kind link by its signature, before reading the body or the database', async () => {
    await seedUser(t, 'Signed');
    await t.app.inject({ method: 'POST', url: '/api/user/forgot-password', payload: { email: 'signed@example.com' } });
    const letter = await t.smtp.waitFor('signed@example.com', (l) => l.subject.includes('Сброс пароля'));
    const token = new URL(linkIn(letter, '/reset-password?token=')).searchParams.get('token')!;
    expect(token).toMatch(/^[\w-]{32}\.[\w-]{22}$/);
    const key = await EmailLinkKey.load(t.handle.db);
    const last = token.at(-1) === 'A' ? 'B' : 'A';
    const forged = [
      token.slice(0, -1) + last, // one character of the signature changed (also its last, half-used one)
      (token.at(0) === 'A' ? 'B' : 'A') + token.slice(1), // one of the random part
      'x'.repeat(43), // the unsigned form of earlier links
      `not-a-token-${Math.random()}`,
    ];
    // Every way into the database, counted when the accounts feature or the users core takes it
    // (the mail and jobs workers go on in the background meanwhile).
    const touches = countTouches(t.handle.db, /modules\/(accounts|users)\//);
    try {
      for (const [bad, otherKind] of forged.map((f) => [f, f]).concat([[key.issue('verify'), key.issue('reset')]])) {
        // A body that would fail validation too: the signature is checked first and alone.
        for (const payload of [{ new_password: 'brand-new-pass' }, { new_password: 'x' }, { nope: true }]) {
          const res = await t.app.inject({ method: 'POST', url: `/api/user/reset-password/${bad}`, payload });
          expect(res.statusCode, bad).toBe(400);
          expect(res.json()).toEqual({ error: 'Ссылка для сброса пароля недействительна или устарела', code: 'reset_link_invalid' });
        }
        // Checking it on arrival costs the same: the signature, before any lookup.
        const check = await t.app.inject({ method: 'GET', url: `/api/user/reset-password/${bad}` });
        expect(check.statusCode, bad).toBe(400);
        expect(check.json()).toEqual({ error: 'Ссылка для сброса пароля недействительна или устарела', code: 'reset_link_invalid' });
        // The same link on the other route; a link signed for the other kind of letter fails each.
        const confirm = await t.app.inject({ method: 'GET', url: `/api/user/confirm/${otherKind}` });
        expect(confirm.statusCode).toBe(302);
        expect(confirm.headers.location).toBe('/login?verified=invalid');
      }
      expect(touches.count).toBe(0);
      // A genuine signature the database does not know (the control: this one is looked up).
      const unknown = await t.app.inject({
        method: 'POST',
        url: `/api/user/reset-password/${key.issue('reset')}`,
        payload: { new_password: 'brand-new-pass' },
      });
      expect(unknown.statusCode).toBe(400);
      expect(touches.count).toBeGreaterThan(0);
    } finally {
      touches.restore();
    }
    // Twenty forged links from one address neither count against it nor spoil the real one.
    for (let i = 0; i < 20; i++)
      await t.app.inject({ method: 'POST', url: `/api/user/reset-password/${forged[0]}`, payload: { new_password: 'x' } });
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/user/reset-password/${token}`,
      payload: { new_password: 'signed-new-pass' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await login('Signed', 'signed-new-pass')).statusCode).toBe(200);
  });

  it('expires reset links after an hour and confirmation links after a day', async () => {
    const id = await seedUser(t, 'Late');
    await t.app.inject({ method: 'POST', url: '/api/user/forgot-password', payload: { email: 'late@example.com' } });
    const letter = await t.smtp.waitFor('late@example.com');
    const token = new URL(linkIn(letter, 'token=')).searchParams.get('token')!;
    await t.handle.db
      .updateTable('email_tokens')
      .set({ expires_at: Date.now() - 1 })
      .where('user_id', '=', id)
      .execute();
    const res = await t.app.inject({ method: 'POST', url: `/api/user/reset-password/${token}`, payload: { new_password: 'new-password' } });
    expect(res.statusCode).toBe(400);

    const row = await t.handle.db
      .selectFrom('email_tokens')
      .select(['created_at', 'expires_at'])
      .where('user_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.expires_at - row.created_at).toBeLessThanOrEqual(3_600_000);
  });

  it('changes the password with the old one and ends the other sessions', async () => {
    await seedUser(t, 'Changer', { password: 'first-pass' });
    const a = await loginAs(t, 'Changer', 'first-pass');
    const b = await loginAs(t, 'Changer', 'first-pass');
    const wrong = await t.app.inject(
      asUser(a, { method: 'POST', url: '/api/user/change-password', payload: { old_password: 'nope-nope', new_password: 'second-pass' } }),
    );
    expect(wrong.statusCode).toBe(400);
    expect(errorOf(wrong)).toBe('Текущий пароль указан неверно');
    const ok = await t.app.inject(
      asUser(a, { method: 'POST', url: '/api/user/change-password', payload: { old_password: 'first-pass', new_password: 'second-pass' } }),
    );
    expect(ok.statusCode).toBe(200);
    expect((await t.app.inject(asUser(a, { method: 'GET', url: '/api/user/me' }))).statusCode).toBe(200);
    expect((await t.app.inject(asUser(b, { method: 'GET', url: '/api/user/me' }))).statusCode).toBe(401);
  });

  it('answers bad input of any shape with a Russian 4xx and never a 500', async () => {
    const routes = [
      '/api/user/register',
      '/api/user/login',
      '/api/user/forgot-password',
      '/api/user/reset-password/abcdefghijklmnop',
      '/api/user/resend-confirmation',
    ];
    const bodies: { payload: string; type: string }[] = [
      { payload: '{"username":', type: 'application/json' },
      { payload: '', type: 'application/json' },
      { payload: 'null', type: 'application/json' },
      { payload: '42', type: 'application/json' },
      { payload: JSON.stringify({ username: 'x'.repeat(1_000_000) }), type: 'application/json' },
      { payload: JSON.stringify({ email: { $gt: '' }, username: ['a'], password: NaN }), type: 'application/json' },
      { payload: 'username=a&password=b', type: 'application/x-www-form-urlencoded' },
      { payload: '\u0000\uffff\ud800', type: 'application/json' },
    ];
    const before = await userCount();
    for (const url of routes) {
      for (const b of bodies) {
        const res = await t.app.inject({ method: 'POST', url, payload: b.payload, headers: { 'content-type': b.type } });
        expect(res.statusCode, `${url} ${b.payload.slice(0, 40)}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, `${url} ${b.payload.slice(0, 40)}`).toBeLessThan(500);
        expect(errorOf(res)).toMatch(/[а-яё]/i);
      }
    }
    expect(await userCount()).toBe(before);
  });

  it('refuses cookie-authenticated writes from another site', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/user/logout', headers: { origin: 'https://evil.example' } });
    expect(res.statusCode).toBe(403);
    const same = await t.app.inject({ method: 'POST', url: '/api/user/logout', headers: { origin: 'http://kubik.test' } });
    expect(same.statusCode).toBe(200);
  });

  it('serves the OpenAPI description with every accounts route', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(res.json().paths);
    for (const p of [
      '/api/user/register',
      '/api/user/login',
      '/api/user/logout',
      '/api/user/me',
      '/api/user/forgot-password',
      '/api/user/reset-password/{token}',
    ]) {
      expect(paths).toContain(p);
    }
  });
});

describe('rate limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { rateLimits: { loginPerIp: 100, loginPerAccount: 3, forgotPerIp: 2 } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('limits login attempts per account and forgot-password per IP with a Russian 429', async () => {
    await seedUser(t, 'Target');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/user/login',
        payload: { username: 'Target', password: `guess-${i}-xx` },
      });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) expect(errorOf(res)).toMatch(/Слишком много неудачных попыток входа/);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);

    const f = [];
    for (let i = 0; i < 3; i++)
      f.push(
        (await t.app.inject({ method: 'POST', url: '/api/user/forgot-password', payload: { email: `x${i}@example.com` } })).statusCode,
      );
    expect(f).toEqual([200, 200, 429]);
  });

  it('can be switched off', async () => {
    const off = await createTestApp('sqlite', { rateLimits: { enabled: false, loginPerAccount: 1 } });
    try {
      for (let i = 0; i < 4; i++) {
        const res = await off.app.inject({
          method: 'POST',
          url: '/api/user/login',
          payload: { username: 'Nobody', password: 'whatever1' },
        });
        expect(res.statusCode).toBe(401);
      }
    } finally {
      await off.close();
    }
  });
});
