import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthException,
  GravitLaunchServer,
  OAuthAccessTokenExpired,
  type MyHttpConfig,
} from '../../../../../testing/gravit-launchserver.ts';
import { pixelHash } from '../../lib/skin/skin-image.ts';
import { skinForm, testSkin, toPng } from '../../../../../testing/skin-images.ts';
import { dbKinds, loginAs, seedUser } from '../../test/test-app.ts';
import { jsonOf, listeningSite, OFFLINE_UUID } from '../../test/game-auth.ts';

const SECRET = 'gravit-test-secret-0123456789';

function myhttp(base: string, bearerToken = SECRET): MyHttpConfig {
  const user = `${base}/api/gravit/user?username=%username%&uuid=%uuid%`;
  return {
    userByUsername: user,
    userByUuid: user,
    userByToken: `${base}/api/gravit/user/by-token`,
    refreshAccessToken: `${base}/api/gravit/refresh`,
    authorize: `${base}/api/gravit/authorize`,
    joinServer: `${base}/api/gravit/join`,
    checkServer: `${base}/api/gravit/check`,
    bearerToken,
  };
}

const pause = () => new Promise((r) => setTimeout(r, 1100));

describe.each(dbKinds)('GravitLauncher HTTP auth (myhttp) on %s', (kind) => {
  let site: Awaited<ReturnType<typeof listeningSite>>;
  let ls: GravitLaunchServer;
  let skinHash: string;
  beforeAll(async () => {
    site = await listeningSite(kind, { gravitSecret: SECRET });
    await seedUser(site, 'Steve', { password: 'correct horse' });
    await seedUser(site, 'Notch', { password: 'correct horse' });
    const token = await loginAs(site, 'Steve', 'correct horse');
    const form = skinForm(await toPng(testSkin({ slim: true })));
    expect(
      (
        await fetch(`${site.base}/api/user/skin`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, ...form.headers },
          body: form.payload,
        })
      ).status,
    ).toBe(200);
    skinHash = pixelHash(testSkin({ slim: true }));
    ls = new GravitLaunchServer(myhttp(site.base));
  });
  afterAll(async () => {
    await site?.close();
  });

  it("a try within the account's interval is told to wait, not that its right password is wrong", async () => {
    await pause();
    await expect(ls.authorize('Notch', 'wrong')).rejects.toEqual(new AuthException('auth.wrongpassword'));
    await expect(ls.authorize('Notch', 'correct horse')).rejects.toEqual(
      new AuthException('Слишком много попыток входа. Повторите через 1 с.'),
    );
    await pause();
    expect((await ls.authorize('Notch', 'correct horse')).user?.username).toBe('Notch');
  });

  it('finds players by name and by dashed UUID through one address; 404 for nobody', async () => {
    const byName = await ls.getUserByUsername('Steve');
    expect(byName).toEqual({
      username: 'Steve',
      uuid: OFFLINE_UUID.Steve,
      permissions: [],
      roles: [],
      assets: { SKIN: { url: `${site.base}/textures/${skinHash}`, digest: skinHash, metadata: { model: 'slim' } } },
    });
    expect(await ls.getUserByUUID(OFFLINE_UUID.Notch!)).toMatchObject({ username: 'Notch', uuid: OFFLINE_UUID.Notch, assets: {} });
    expect(await ls.getUserByUsername('Nobody_here')).toBeNull();
    expect(await ls.getUserByUUID('00000000-0000-3000-8000-000000000000')).toBeNull();
    // A separate address per lookup works too.
    const own = new GravitLaunchServer({ ...myhttp(site.base), userByUsername: `${site.base}/api/gravit/user?uuid=%uuid%` });
    expect((await own.getUserByUUID(OFFLINE_UUID.Steve!))?.username).toBe('Steve');
  });

  it("authorize: wrong password, unknown login and unconfirmed account give the launcher's texts; the right one a session", async () => {
    await expect(ls.authorize('Steve', 'wrong')).rejects.toEqual(new AuthException('auth.wrongpassword'));
    await expect(ls.authorize('Nobody_here', 'x')).rejects.toEqual(new AuthException('auth.usernotfound'));
    const id = await seedUser(site, 'Unconfirmed', { password: 'correct horse' });
    await site.handle.db.updateTable('users').set({ email_verified_at: null }).where('id', '=', id).execute();
    await expect(ls.authorize('Unconfirmed', 'correct horse')).rejects.toThrow(/Почта не подтверждена/);

    await pause();
    const session = await ls.authorize('steve@example.com', 'correct horse');
    expect(session.accessToken).toMatch(/^[0-9a-f]{48}$/);
    expect(session.refreshToken).toMatch(/^[0-9a-f]{48}$/);
    expect(session.expire).toBeGreaterThan(6 * 86_400);
    expect(session.user?.uuid).toBe(OFFLINE_UUID.Steve);
    // The request as LaunchServer sends it, and tokens kept only as hashes.
    const sent = ls.sent.at(-1)!;
    expect(sent.headers).toMatchObject({ authorization: `Bearer ${SECRET}`, 'content-type': 'application/json; charset=UTF-8' });
    expect(JSON.parse(sent.body!)).toEqual({ login: 'steve@example.com', password: 'correct horse' });
    const rows = await site.handle.db.selectFrom('game_tokens').selectAll().where('kind', '=', 'gravit').execute();
    expect(rows.map((r) => r.access_hash)).toContain(createHash('sha256').update(session.accessToken).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(session.accessToken);
  });

  it('session by token, expiry (code 1001), refresh (old tokens dead, code 1002), join and check', async () => {
    await pause();
    const session = await ls.authorize('Steve', 'correct horse');
    expect(await ls.getUserSessionByOAuthAccessToken(session.accessToken)).toMatchObject({
      accessToken: session.accessToken,
      user: { username: 'Steve' },
    });
    expect(await ls.getUserSessionByOAuthAccessToken('0'.repeat(32))).toBeNull();

    await site.handle.db
      .updateTable('game_tokens')
      .set({ expires_at: Date.now() - 1 })
      .where('access_hash', '=', createHash('sha256').update(session.accessToken).digest('hex'))
      .execute();
    await expect(ls.getUserSessionByOAuthAccessToken(session.accessToken)).rejects.toBeInstanceOf(OAuthAccessTokenExpired);

    const next = await ls.refreshAccessToken(session.refreshToken!);
    expect(next?.accessToken).not.toBe(session.accessToken);
    expect(await ls.refreshAccessToken(session.refreshToken!)).toBeNull();
    expect(await ls.getUserSessionByOAuthAccessToken(session.accessToken)).toBeNull();

    // The game client joins with the access token; the game server asks for the player.
    await ls.joinServer('Steve', OFFLINE_UUID.Steve!, next!.accessToken, '-1f2e3d');
    const checked = await ls.checkServer('Steve', '-1f2e3d');
    expect(checked.assets.SKIN?.digest).toBe(skinHash);
    // Once only, and not for another name or server id.
    await expect(ls.checkServer('Steve', '-1f2e3d')).rejects.toBeInstanceOf(AuthException);
    await ls.joinServer('Steve', null, next!.accessToken, 'abc');
    await expect(ls.checkServer('Notch', 'abc')).rejects.toBeInstanceOf(AuthException);
    await expect(ls.checkServer('Steve', 'abd')).rejects.toBeInstanceOf(AuthException);
    expect(await ls.checkServer('Steve', 'abc')).toMatchObject({ username: 'Steve' });

    await expect(ls.joinServer('Notch', null, next!.accessToken, 'x')).rejects.toBeInstanceOf(AuthException);
    await expect(ls.joinServer('Steve', OFFLINE_UUID.Notch!, next!.accessToken, 'x')).rejects.toBeInstanceOf(AuthException);
    await expect(ls.joinServer('Steve', null, 'f'.repeat(32), 'x')).rejects.toBeInstanceOf(AuthException);
  });

  it('answers nobody without the secret: no bearer, a wrong one, a site session', async () => {
    const wrong = new GravitLaunchServer(myhttp(site.base, 'not-the-secret-at-all'));
    await expect(wrong.authorize('Steve', 'correct horse')).rejects.toEqual(
      new AuthException('Неверный ключ доступа (Authorization: Bearer GRAVIT_SECRET)'),
    );
    expect(await wrong.getUserByUsername('Steve')).toBeNull();
    const siteToken = await loginAs(site, 'Notch', 'correct horse');
    for (const headers of [{}, { authorization: `Bearer ${siteToken}` }] as Record<string, string>[]) {
      const res = await fetch(`${site.base}/api/gravit/authorize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ login: 'Notch', password: 'correct horse' }),
      });
      expect(res.status).toBe(401);
      expect(await jsonOf(res)).toEqual({ error: 'Неверный ключ доступа (Authorization: Bearer GRAVIT_SECRET)', code: 0 });
    }
    const unknown = await fetch(`${site.base}/api/gravit/nothing`, { headers: { authorization: `Bearer ${SECRET}` } });
    expect([unknown.status, await jsonOf(unknown)]).toEqual([404, { error: 'Не найдено', code: 0 }]);
    const bad = await fetch(`${site.base}/api/gravit/authorize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' },
      body: '{"login":',
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(await jsonOf(bad)).sort()).toEqual(['code', 'error']);
  });

  it('is switched off, saying so, when GRAVIT_SECRET is not set', async () => {
    const off = await listeningSite(kind);
    try {
      const res = await fetch(`${off.base}/api/gravit/authorize`, {
        method: 'POST',
        headers: { authorization: 'Bearer anything', 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(503);
      expect(await jsonOf(res)).toEqual({
        error: 'Вход через GravitLauncher выключен: задайте переменную окружения GRAVIT_SECRET',
        code: 0,
      });
    } finally {
      await off.close();
    }
  });
});
