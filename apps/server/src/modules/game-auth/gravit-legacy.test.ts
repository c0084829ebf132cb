import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthException, GravitHttpCore, OAuthAccessTokenExpired, type HttpCoreConfig } from '../../../../../testing/gravit-launchserver.ts';
import { pixelHash } from '../../lib/skin/skin-image.ts';
import { skinForm, testSkin, toPng } from '../../../../../testing/skin-images.ts';
import { hashToken } from '../../lib/tokens.ts';
import { dbKinds, loginAs, seedUser } from '../../test/test-app.ts';
import { listeningSite, OFFLINE_UUID } from '../../test/game-auth.ts';

const SECRET = 'gravit-test-secret-0123456789';

describe.each(dbKinds)('GravitLauncher 5.2–5.4 http core on %s', (kind) => {
  let site: Awaited<ReturnType<typeof listeningSite>>;
  let core: GravitHttpCore;
  let config: HttpCoreConfig;
  beforeAll(async () => {
    site = await listeningSite(kind, { gravitSecret: SECRET });
    await seedUser(site, 'Steve', { password: 'correct horse' });
    const token = await loginAs(site, 'Steve', 'correct horse');
    const form = skinForm(await toPng(testSkin()));
    expect(
      (
        await fetch(`${site.base}/api/user/skin`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, ...form.headers },
          body: form.payload,
        })
      ).status,
    ).toBe(200);
    const v5 = `${site.base}/api/gravit/v5`;
    config = {
      getUserByUsernameUrl: `${v5}/user/name/%username%`,
      getUserByUUIDUrl: `${v5}/user/uuid/%uuid%`,
      getUserByTokenUrl: `${v5}/auth/current`,
      refreshTokenUrl: `${v5}/auth/refresh`,
      authorizeUrl: `${v5}/auth/authorize`,
      joinServerUrl: `${v5}/auth/joinServer`,
      checkServerUrl: `${v5}/auth/checkServer`,
      bearerToken: SECRET,
    };
    core = new GravitHttpCore(config);
  });
  afterAll(async () => {
    await site?.close();
  });

  it('walks the whole login as LaunchServer 5.4 does', async () => {
    const user = await core.getUserByUsername('Steve');
    expect(user).toMatchObject({ username: 'Steve', uuid: OFFLINE_UUID.Steve, permissions: { perms: [], roles: [] } });
    expect(user!.assets.SKIN!.digest.toString('hex')).toBe(pixelHash(testSkin()));
    expect((await core.getUserByUUID(OFFLINE_UUID.Steve!))?.username).toBe('Steve');
    expect(await core.getUserByUsername('Nobody_here')).toBeNull();

    await expect(core.authorize('Steve', 'wrong')).rejects.toEqual(new AuthException('auth.wrongpassword'));
    await new Promise((r) => setTimeout(r, 1100));
    const report = await core.authorize('Steve', 'correct horse');
    expect(report.minecraftAccessToken).toBe(report.oauthAccessToken);
    expect(report.oauthExpire).toBeGreaterThan(6 * 86_400_000);
    expect(report.session.user.username).toBe('Steve');

    expect((await core.getUserSessionByOAuthAccessToken(report.oauthAccessToken))?.user.uuid).toBe(OFFLINE_UUID.Steve);
    await site.handle.db
      .updateTable('game_tokens')
      .set({ expires_at: Date.now() - 1 })
      .where('access_hash', '=', hashToken(report.oauthAccessToken))
      .execute();
    await expect(core.getUserSessionByOAuthAccessToken(report.oauthAccessToken)).rejects.toBeInstanceOf(OAuthAccessTokenExpired);
    const next = await core.refreshAccessToken(report.oauthRefreshToken);
    expect(next?.oauthAccessToken).not.toBe(report.oauthAccessToken);
    expect(await core.refreshAccessToken(report.oauthRefreshToken)).toBeNull();

    expect(await core.joinServer('Steve', next!.oauthAccessToken, '5f3a')).toBe(true);
    expect((await core.checkServer('Steve', '5f3a')).username).toBe('Steve');
    await expect(core.checkServer('Steve', '5f3a')).rejects.toThrow();
    expect(await core.joinServer('Steve', 'f'.repeat(32), '5f3a')).toBe(false);
  });

  it('takes the secret for authorize, join and check only from the LaunchServer', async () => {
    const stranger = new GravitHttpCore({ ...config, bearerToken: 'someone-else-entirely' });
    await expect(stranger.authorize('Steve', 'correct horse')).rejects.toBeInstanceOf(AuthException);
    expect(await stranger.joinServer('Steve', 'x', 'y')).toBe(false);
    await expect(stranger.checkServer('Steve', 'y')).rejects.toThrow(/Неверный ключ доступа/);
  });
});
