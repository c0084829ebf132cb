import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDiscord } from '../../../../../testing/social/discord-server.ts';
import { signTelegramLogin } from '../../../../../testing/social/telegram-login.ts';
import { FakeVkId } from '../../../../../testing/social/vk-id-server.ts';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';

const BOT_TOKEN = '7000000001:AAHfakeTelegramBotTokenForTests_0123';
const OTHER_BOT = '7000000002:AAHanotherBotTokenThatIsNotOurs_99999';
const TWO_FACTOR_KEY = 'test-two-factor-key-0123456789-abcdef';
const SITE = 'http://kubik.test';

type Jar = Record<string, string>;
/** The cookies an answer sets (a cleared one is dropped). */
function cookiesOf(res: LightMyRequestResponse, jar: Jar = {}): Jar {
  for (const c of res.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
    if (c.value === '' || (c.expires && c.expires.getTime() < Date.now())) delete jar[c.name];
    else jar[c.name] = c.value;
  }
  return jar;
}
const pathOf = (url: string) => {
  const u = new URL(url, SITE);
  return u.pathname + u.search;
};

describe.each(dbKinds)('social login on %s', (kind) => {
  let t: TestApp;
  let vk: FakeVkId;
  let discord: FakeDiscord;
  let nextTg = 500_000_000;

  beforeAll(async () => {
    vk = await new FakeVkId('51234567', [`${SITE}/api/auth/vk/callback`]).start();
    discord = await new FakeDiscord('1234567890123456789', 'discord-client-secret-0123456789', [
      `${SITE}/api/auth/discord/callback`,
    ]).start();
    t = await createTestApp(kind, {
      rateLimits: { enabled: false },
      twoFactorKey: TWO_FACTOR_KEY,
      social: {
        vk: { clientId: vk.clientId, clientSecret: '', baseUrl: vk.url },
        telegram: { botToken: BOT_TOKEN, botName: 'kubik_test_bot', baseUrl: 'https://oauth.telegram.org' },
        discord: { clientId: discord.clientId, clientSecret: discord.clientSecret, baseUrl: discord.url },
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await vk?.stop();
    await discord?.stop();
  });

  const tgUser = (over: Record<string, unknown> = {}) => ({ id: nextTg++, first_name: 'Павел', username: 'pavel_tg', ...over });
  const telegram = (body: object, jar: Jar = {}) =>
    t.app.inject({ method: 'POST', url: '/api/auth/telegram', payload: body, cookies: jar });
  const linkCount = async (provider: string, pid: string) =>
    Number(
      (
        await t.handle.db
          .selectFrom('social_links')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('provider', '=', provider)
          .where('provider_user_id', '=', pid)
          .executeTakeFirstOrThrow()
      ).n,
    );

  /** A browser's redirect login (or, with a bearer token, a link) through a fake provider, up to the site's callback answer. */
  async function redirectFlow(provider: 'vk' | 'discord', opts: { token?: string; jar?: Jar; tamper?: (callback: URL) => void } = {}) {
    const jar = opts.jar ?? {};
    let authorize: string;
    if (opts.token) {
      const start = await t.app.inject(asUser(opts.token, { method: 'POST', url: `/api/user/social/${provider}` }));
      expect(start.statusCode, start.body).toBe(200);
      authorize = start.json<{ url: string }>().url;
      cookiesOf(start, jar);
    } else {
      const start = await t.app.inject({ method: 'GET', url: `/api/auth/${provider}/start`, cookies: jar });
      expect(start.statusCode, start.body).toBe(302);
      authorize = start.headers.location as string;
      cookiesOf(start, jar);
    }
    const callback = new URL(provider === 'vk' ? vk.consent(authorize) : discord.consent(authorize));
    opts.tamper?.(callback);
    const res = await t.app.inject({ method: 'GET', url: callback.pathname + callback.search, cookies: jar });
    cookiesOf(res, jar);
    return { res, jar, authorize: new URL(authorize), callback };
  }

  async function registerThrough(jar: Jar, username: string, email: string) {
    const reg = await t.app.inject({ method: 'POST', url: '/api/auth/social/register', payload: { username, email }, cookies: jar });
    expect(reg.statusCode, reg.body).toBe(200);
    return reg;
  }

  async function enableTwoFactor(token: string): Promise<string> {
    const setup = await t.app.inject(asUser(token, { method: 'POST', url: '/api/user/2fa/setup' }));
    const { secret } = setup.json<{ secret: string }>();
    const code = OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret) });
    const enable = await t.app.inject(asUser(token, { method: 'POST', url: '/api/user/2fa/enable', payload: { code } }));
    expect(enable.statusCode, enable.body).toBe(200);
    return secret;
  }

  it('lists only providers with keys, never the keys; the admin sets secrets write-only and sealed', async () => {
    const list = await t.app.inject({ method: 'GET', url: '/api/auth/social/providers' });
    expect(list.json()).toEqual({
      providers: ['vk', 'telegram', 'discord'],
      telegram: { bot_id: '7000000001', bot_name: 'kubik_test_bot', auth_url: 'https://oauth.telegram.org/auth' },
    });
    expect(list.body).not.toContain('AAHfake');
    expect(list.body).not.toContain(discord.clientSecret);

    await seedUser(t, 'Social_Owner', { admin: true });
    const owner = await loginAs(t, 'Social_Owner');
    const view = await t.app.inject(asUser(owner, { method: 'GET', url: '/api/admin/social-settings' }));
    expect(view.statusCode).toBe(200);
    expect(view.json().discord).toMatchObject({
      client_id: discord.clientId,
      client_secret: 'env',
      redirect_uri: `${SITE}/api/auth/discord/callback`,
    });
    expect(view.body).not.toContain(discord.clientSecret);

    // The owner turns Telegram off by forgetting the bot name, then back on.
    const put = await t.app.inject(asUser(owner, { method: 'PUT', url: '/api/admin/social-settings', payload: { telegram_bot_name: '' } }));
    expect(put.statusCode, put.body).toBe(200);
    // The name was an env default, so clearing it returns to the default: still on.
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/social/providers' })).json().providers).toContain('telegram');

    const secret = await t.app.inject(
      asUser(owner, { method: 'PUT', url: '/api/admin/social-settings', payload: { vk_client_secret: 'vk-secure-key-typed-in-admin' } }),
    );
    expect(secret.json().vk.client_secret).toBe('set');
    expect(secret.body).not.toContain('vk-secure-key-typed-in-admin');
    const stored = await t.handle.db.selectFrom('settings').select('value').where('key', '=', 'social').executeTakeFirstOrThrow();
    expect(stored.value).not.toContain('vk-secure-key-typed-in-admin');
    expect(stored.value).toContain('v1:');

    const bad = await t.app.inject(
      asUser(owner, { method: 'PUT', url: '/api/admin/social-settings', payload: { telegram_bot_token: 'not a token' } }),
    );
    expect(bad.statusCode).toBe(400);
    await seedUser(t, 'Social_NotAdmin');
    const player = await loginAs(t, 'Social_NotAdmin');
    expect((await t.app.inject(asUser(player, { method: 'GET', url: '/api/admin/social-settings' }))).statusCode).toBe(403);
  });

  it('Telegram: a wrong hash, a changed field, data older than a day or from the future are refused', async () => {
    const user = tgUser();
    const good = signTelegramLogin(BOT_TOKEN, user);
    const wrongBot = await telegram(signTelegramLogin(OTHER_BOT, user));
    expect(wrongBot.statusCode).toBe(401);
    expect(wrongBot.json().code).toBe('social_bad_signature');
    const changed = await telegram({ ...good, id: good.id + 1 });
    expect(changed.json().code).toBe('social_bad_signature');
    const added = await telegram({ ...good, last_name: 'Чужой' });
    expect(added.json().code).toBe('social_bad_signature');
    const now = Math.floor(Date.now() / 1000);
    const old = await telegram(signTelegramLogin(BOT_TOKEN, user, now - 86_400 - 60));
    expect(old.statusCode).toBe(401);
    expect(old.json().code).toBe('social_expired');
    expect((await telegram(signTelegramLogin(BOT_TOKEN, user, now - 86_000))).json().status).toBe('register');
    expect((await telegram(signTelegramLogin(BOT_TOKEN, user, now + 3600))).json().code).toBe('social_expired');
    for (const body of [{ ...good, hash: 'zz' }, { ...good, extra: 1 }, { ...good, id: 'x' }, {}, []]) {
      const res = await telegram(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toMatch(/[А-Яа-я]/);
    }
    expect(await linkCount('telegram', String(user.id))).toBe(0);
  });

  it('registration through Telegram asks a game name and an e-mail, confirms by letter, links and signs in; the next login is direct', async () => {
    const user = tgUser({ username: 'new_tg_player' });
    const jar: Jar = {};
    const first = await telegram(signTelegramLogin(BOT_TOKEN, user), jar);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().status).toBe('register');
    cookiesOf(first, jar);
    expect(jar.kubik_session).toBeUndefined();
    const pending = await t.app.inject({ method: 'GET', url: '/api/auth/social/pending', cookies: jar });
    expect(pending.json()).toEqual({
      kind: 'register',
      provider: 'telegram',
      display_name: '@new_tg_player',
      suggested_username: 'new_tg_player',
    });

    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/auth/social/register',
      payload: { username: 'a', email: 'x' },
      cookies: jar,
    });
    expect(bad.statusCode).toBe(400);
    const noTicket = await t.app.inject({
      method: 'POST',
      url: '/api/auth/social/register',
      payload: { username: 'Tg_Player', email: 'tg@example.com' },
    });
    expect(noTicket.json().code).toBe('social_pending_invalid');

    await registerThrough(jar, 'Tg_Player', 'tg-player@example.com');
    const letter = await t.smtp.waitFor('tg-player@example.com');
    expect(letter.subject).toContain('Подтверждение почты');
    const link = /http:\/\/kubik\.test\/api\/auth\/social\/confirm\/[A-Za-z0-9_-]+/.exec(letter.text)![0];
    const confirm = await t.app.inject({ method: 'GET', url: pathOf(link) });
    expect(confirm.statusCode).toBe(302);
    expect(confirm.headers.location).toBe('/profile');
    const session = cookiesOf(confirm).kubik_session!;
    const me = await t.app.inject({ method: 'GET', url: '/api/user/me', cookies: { kubik_session: session } });
    expect(me.json()).toMatchObject({ username: 'Tg_Player', email: 'tg-player@example.com' });
    const links = await t.app.inject({ method: 'GET', url: '/api/user/social', cookies: { kubik_session: session } });
    expect(links.json().has_password).toBe(false);
    expect(links.json().providers.find((p: { provider: string }) => p.provider === 'telegram').linked.display_name).toBe('@new_tg_player');
    // The link is used up.
    expect((await t.app.inject({ method: 'GET', url: pathOf(link) })).headers.location).toBe('/login?social_error=social_pending_invalid');

    const again = await telegram(signTelegramLogin(BOT_TOKEN, user));
    expect(again.json().status).toBe('signed_in');
    expect(cookiesOf(again).kubik_session).toBeTruthy();

    // The only way in cannot be unlinked.
    const unlink = await t.app.inject({ method: 'DELETE', url: '/api/user/social/telegram', cookies: { kubik_session: session } });
    expect(unlink.statusCode).toBe(409);
    expect(unlink.json().code).toBe('social_last_login');
  });

  it('registration answers alike whether the e-mail is registered; the letter tells its owner instead', async () => {
    await seedUser(t, 'Has_Email');
    const jarA: Jar = {};
    cookiesOf(await telegram(signTelegramLogin(BOT_TOKEN, tgUser())), jarA);
    const taken = await registerThrough(jarA, 'Fresh_Name_A', 'has_email@example.com');
    const jarB: Jar = {};
    cookiesOf(await telegram(signTelegramLogin(BOT_TOKEN, tgUser())), jarB);
    const free = await registerThrough(jarB, 'Fresh_Name_B', 'free-address@example.com');
    expect(taken.body).toBe(free.body);
    const letter = await t.smtp.waitFor('has_email@example.com', (l) => l.subject.includes('Вход через'));
    expect(letter.text).toContain('аккаунт с этим адресом уже есть');
    expect(letter.text).not.toContain('/api/auth/social/confirm/');
    expect(
      await t.handle.db.selectFrom('users').select('id').where('username_lower', '=', 'fresh_name_a').executeTakeFirst(),
    ).toBeUndefined();
    // A taken game name is said (names are public on player pages).
    const jarC: Jar = {};
    cookiesOf(await telegram(signTelegramLogin(BOT_TOKEN, tgUser())), jarC);
    const name = await t.app.inject({
      method: 'POST',
      url: '/api/auth/social/register',
      payload: { username: 'has_email', email: 'c@example.com' },
      cookies: jarC,
    });
    expect(name.statusCode).toBe(409);
    expect(name.json()).toMatchObject({ code: 'username_exists', field: 'username' });
  });

  it('VK ID: links with state and PKCE, then logs in from another browser; a replayed, foreign or cookieless state is refused', async () => {
    await seedUser(t, 'Vk_Player', { password: 'password123' });
    const token = await loginAs(t, 'Vk_Player');
    vk.signInAs({ user_id: 2000002, first_name: 'Вася', last_name: 'Пупкин' });
    const linked = await redirectFlow('vk', { token });
    expect(linked.res.statusCode).toBe(302);
    expect(linked.res.headers.location).toBe('/profile?tab=settings&social=linked');
    // PKCE: the challenge sent was S256 of the verifier the site then gave VK with the code.
    const ex = vk.exchanges.at(-1)!;
    expect(ex.status).toBe(200);
    expect(linked.authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(createHash('sha256').update(ex.fields.code_verifier!).digest('base64url')).toBe(
      linked.authorize.searchParams.get('code_challenge'),
    );
    expect(ex.fields.device_id).toBe(linked.callback.searchParams.get('device_id'));
    expect(ex.fields.state).toBe(linked.authorize.searchParams.get('state'));
    expect(await linkCount('vk', '2000002')).toBe(1);

    // Another browser logs in with the linked VK account.
    const login = await redirectFlow('vk');
    expect(login.res.statusCode).toBe(302);
    expect(login.res.headers.location).toBe('/profile');
    const me = await t.app.inject({ method: 'GET', url: '/api/user/me', cookies: { kubik_session: login.jar.kubik_session! } });
    expect(me.json().username).toBe('Vk_Player');

    // The same callback again: the state was used up (and VK's code too); nothing is asked of VK.
    const before = vk.exchanges.length;
    const replay = await t.app.inject({
      method: 'GET',
      url: login.callback.pathname + login.callback.search,
      cookies: { kubik_social_flow: 'x' },
    });
    expect(replay.headers.location).toBe('/login?social_error=social_state_invalid');
    // A state started by another browser (the cookie is not the one given with it), or no cookie.
    const start = await t.app.inject({ method: 'GET', url: '/api/auth/vk/start' });
    const callback = new URL(vk.consent(start.headers.location as string));
    const stranger = await t.app.inject({
      method: 'GET',
      url: callback.pathname + callback.search,
      cookies: { kubik_social_flow: 'attacker-browser' },
    });
    expect(stranger.headers.location).toBe('/login?social_error=social_state_invalid');
    const none = await t.app.inject({ method: 'GET', url: callback.pathname + callback.search });
    expect(none.headers.location).toBe('/login?social_error=social_state_invalid');
    expect(vk.exchanges.length).toBe(before);
    // A changed device_id: VK refuses the exchange.
    const tampered = await redirectFlow('vk', { tamper: (u) => u.searchParams.set('device_id', 'f'.repeat(32)) });
    expect(tampered.res.headers.location).toBe('/login?social_error=social_provider_error');
    expect(vk.exchanges.at(-1)!.status).toBe(400);
  });

  it('VK ID: a first login with an unlinked account asks for registration', async () => {
    vk.signInAs({ user_id: 3000003, first_name: 'Anna', last_name: 'K' });
    const flow = await redirectFlow('vk');
    expect(flow.res.headers.location).toBe('/login/social');
    expect(flow.jar.kubik_social_ticket).toBeTruthy();
    const pending = await t.app.inject({ method: 'GET', url: '/api/auth/social/pending', cookies: flow.jar });
    expect(pending.json()).toMatchObject({ kind: 'register', provider: 'vk', display_name: 'Anna K', suggested_username: 'Anna_K' });
  });

  it('Discord: links and logs in; a wrong client secret is refused by Discord and shown as such', async () => {
    await seedUser(t, 'Ds_Player', { password: 'password123' });
    const token = await loginAs(t, 'Ds_Player');
    discord.signInAs({ id: '80351110224678999', username: 'ds_player', global_name: 'DS Player' });
    const linked = await redirectFlow('discord', { token });
    expect(linked.res.headers.location).toBe('/profile?tab=settings&social=linked');
    const ex = discord.exchanges.at(-1)!;
    expect(ex.status).toBe(200);
    expect(createHash('sha256').update(ex.fields.code_verifier!).digest('base64url')).toBe(
      linked.authorize.searchParams.get('code_challenge'),
    );
    const login = await redirectFlow('discord');
    expect(login.res.headers.location).toBe('/profile');
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/user/me', cookies: { kubik_session: login.jar.kubik_session! } })).json().username,
    ).toBe('Ds_Player');

    // Linking the same Discord account to someone else is refused.
    await seedUser(t, 'Ds_Other', { password: 'password123' });
    const other = await redirectFlow('discord', { token: await loginAs(t, 'Ds_Other') });
    expect(other.res.headers.location).toBe('/profile?tab=settings&social_error=social_already_linked');

    await seedUser(t, 'Ds_Admin', { admin: true });
    const owner = await loginAs(t, 'Ds_Admin');
    await t.app.inject(
      asUser(owner, { method: 'PUT', url: '/api/admin/social-settings', payload: { discord_client_secret: 'wrong-secret' } }),
    );
    const refused = await redirectFlow('discord');
    expect(refused.res.headers.location).toBe('/login?social_error=social_provider_error');
    expect(discord.exchanges.at(-1)!.status).toBe(401);
    await t.app.inject(asUser(owner, { method: 'PUT', url: '/api/admin/social-settings', payload: { discord_client_secret: null } }));
    expect((await redirectFlow('discord')).res.headers.location).toBe('/profile');
  });

  it('two-factor login still applies: the provider alone opens no session', async () => {
    await seedUser(t, 'Tfa_Social', { password: 'password123' });
    const token = await loginAs(t, 'Tfa_Social');
    const user = tgUser();
    const link = await t.app.inject(
      asUser(token, { method: 'POST', url: '/api/user/social/telegram', payload: signTelegramLogin(BOT_TOKEN, user) }),
    );
    expect(link.statusCode, link.body).toBe(200);
    const secret = await enableTwoFactor(token);

    const jar: Jar = {};
    const first = await telegram(signTelegramLogin(BOT_TOKEN, user), jar);
    expect(first.json().status).toBe('two_factor');
    cookiesOf(first, jar);
    expect(jar.kubik_session).toBeUndefined();
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/social/pending', cookies: jar })).json().kind).toBe('two_factor');
    const wrong = await t.app.inject({ method: 'POST', url: '/api/auth/social/complete', payload: { code: '000000' }, cookies: jar });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().code).toBe('bad_two_factor_code');
    const code = OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret), timestamp: Date.now() + 30_000 });
    const ok = await t.app.inject({ method: 'POST', url: '/api/auth/social/complete', payload: { code }, cookies: jar });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(cookiesOf(ok).kubik_session).toBeTruthy();
    // The ticket is used up.
    const again = await t.app.inject({ method: 'POST', url: '/api/auth/social/complete', payload: { code }, cookies: jar });
    expect(again.json().code).toBe('social_pending_invalid');
  });

  it('link and unlink; a player with a password may unlink everything, one without keeps the last way in', async () => {
    await seedUser(t, 'Unlinker', { password: 'password123' });
    const token = await loginAs(t, 'Unlinker');
    const user = tgUser();
    const get = () => t.app.inject(asUser(token, { method: 'GET', url: '/api/user/social' }));
    expect((await get()).json().has_password).toBe(true);
    expect((await t.app.inject(asUser(token, { method: 'DELETE', url: '/api/user/social/telegram' }))).json().code).toBe(
      'social_not_linked',
    );
    expect(
      (await t.app.inject(asUser(token, { method: 'POST', url: '/api/user/social/telegram', payload: signTelegramLogin(BOT_TOKEN, user) })))
        .statusCode,
    ).toBe(200);
    // Another Telegram account while one is linked.
    const second = await t.app.inject(
      asUser(token, { method: 'POST', url: '/api/user/social/telegram', payload: signTelegramLogin(BOT_TOKEN, tgUser()) }),
    );
    expect(second.json().code).toBe('social_provider_taken');
    const del = await t.app.inject(asUser(token, { method: 'DELETE', url: '/api/user/social/telegram' }));
    expect(del.statusCode).toBe(200);
    expect((await get()).json().providers.every((p: { linked: unknown }) => p.linked === null)).toBe(true);
    expect((await t.app.inject(asUser(token, { method: 'DELETE', url: '/api/user/social/steam' }))).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: '/api/user/social' })).statusCode).toBe(401);
  });

  it('a provider account is linked once under concurrent repeats from two players', async () => {
    await seedUser(t, 'Racer_A', { password: 'password123' });
    await seedUser(t, 'Racer_B', { password: 'password123' });
    const a = await loginAs(t, 'Racer_A');
    const b = await loginAs(t, 'Racer_B');
    const data = signTelegramLogin(BOT_TOKEN, tgUser());
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t.app.inject(asUser(i % 2 ? a : b, { method: 'POST', url: '/api/user/social/telegram', payload: data })),
      ),
    );
    expect(results.every((r) => r.statusCode === 200 || (r.statusCode === 409 && r.json().code === 'social_already_linked'))).toBe(true);
    expect(await linkCount('telegram', String(data.id))).toBe(1);
    const owner = await t.handle.db
      .selectFrom('social_links')
      .select('user_id')
      .where('provider_user_id', '=', String(data.id))
      .executeTakeFirstOrThrow();
    const idOf = async (name: string) =>
      (await t.handle.db.selectFrom('users').select('id').where('username', '=', name).executeTakeFirstOrThrow()).id;
    const [aId, bId] = [await idOf('Racer_A'), await idOf('Racer_B')];
    // The winner's repeats are answered 200, the other player's 409.
    results.forEach((r, i) => expect(r.statusCode).toBe((i % 2 ? aId : bId) === owner.user_id ? 200 : 409));
  });

  it('registration through a provider asks the same separate consents once the owner publishes the documents, and stores them', async () => {
    await seedUser(t, 'Legal_Owner', { admin: true });
    const owner = await loginAs(t, 'Legal_Owner');
    for (const kind of ['privacy', 'offer'])
      expect(
        (await t.app.inject(asUser(owner, { method: 'PUT', url: `/api/admin/legal/${kind}`, payload: { title: kind, body: 'Текст' } })))
          .statusCode,
      ).toBe(200);
    const jar: Jar = {};
    cookiesOf(await telegram(signTelegramLogin(BOT_TOKEN, tgUser({ username: 'consent_tg' })), jar), jar);
    const reg = (payload: object) =>
      t.app.inject({ method: 'POST', url: '/api/auth/social/register', payload, cookies: jar, headers: { 'user-agent': 'TgBrowser/2' } });
    const refused = await reg({ username: 'Consent_Tg', email: 'consent-tg@example.com', consents: ['offer'] });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'consent_required', field: 'consents' });
    expect((await reg({ username: 'Consent_Tg', email: 'consent-tg@example.com', consents: ['privacy', 'offer'] })).statusCode).toBe(200);
    const letter = await t.smtp.waitFor('consent-tg@example.com');
    const link = /http:\/\/kubik\.test\/api\/auth\/social\/confirm\/[A-Za-z0-9_-]+/.exec(letter.text)![0];
    expect((await t.app.inject({ method: 'GET', url: pathOf(link) })).statusCode).toBe(302);
    const id = (await t.handle.db.selectFrom('users').select('id').where('username', '=', 'Consent_Tg').executeTakeFirstOrThrow()).id;
    const stored = await t.handle.db.selectFrom('legal_consents').selectAll().where('user_id', '=', id).orderBy('kind').execute();
    expect(stored.map((c) => [c.kind, Number(c.version), c.source, c.user_agent])).toEqual([
      ['offer', 1, 'social', 'TgBrowser/2'],
      ['privacy', 1, 'social', 'TgBrowser/2'],
    ]);
  });
});
