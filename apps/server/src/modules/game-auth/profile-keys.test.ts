import { createHash, createPublicKey, sign, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthlibLauncher, type Session } from '../../../../../testing/authlib-launcher.ts';
import {
  fetchPlayerKeys,
  fetchServicesKeys,
  payloadV1,
  payloadV2,
  refuseKey,
  ServicesFailure,
} from '../../../../../testing/minecraft-profile-keys.ts';
import { dbKinds, loginAs, seedUser } from '../../test/test-app.ts';
import { bare, jsonOf, listeningSite, OFFLINE_UUID, seedSigningKey } from '../../test/game-auth.ts';

type Site = Awaited<ReturnType<typeof listeningSite>>;

const HOUR = 3_600_000;
const PEM = (kind: string) =>
  new RegExp(`^-----BEGIN RSA ${kind} KEY-----\\n(?:[A-Za-z0-9+/]{76}\\n)*[A-Za-z0-9+/]{1,75}={0,2}\\n-----END RSA ${kind} KEY-----\\n$`);

describe.each(dbKinds)('profile keys (secure chat) on %s', (kind) => {
  let site: Site;
  let launcher: AuthlibLauncher;
  let certificates: string;
  let adminToken: string;
  const clientToken = () => createHash('md5').update(String(Math.random())).digest('hex');
  const login = (name: string, password = 'correct horse'): Promise<Session> => launcher.authenticate(name, password, clientToken());
  const rows = () => site.handle.db.selectFrom('profile_keys').selectAll().orderBy('user_id').execute();
  const post = (headers: Record<string, string>, body?: string) => fetch(certificates, { method: 'POST', headers, body });

  beforeAll(async () => {
    // Without the per-account login interval: these tests log in again and again.
    site = await listeningSite(kind, { rateLimits: { enabled: false } });
    await seedSigningKey(site);
    for (const name of ['Steve', 'Alex', 'Notch', 'jeb_', 'Dinnerbone']) await seedUser(site, name, { password: 'correct horse' });
    await seedUser(site, 'Owner', { admin: true });
    adminToken = await loginAs(site, 'Owner');
    launcher = new AuthlibLauncher();
    await launcher.discover(site.base);
    certificates = `${launcher.apiRoot}minecraftservices/player/certificates`;
  });
  afterAll(async () => {
    await site?.close();
  });

  it('the metadata turns the feature on with a JSON true, as authlib-injector requires', async () => {
    expect(launcher.metadata.meta['feature.enable_profile_key']).toBe(true);
  });

  it("answers the game's empty POST with Mojang's certificate: Minecraft's PEM labels, a 2048-bit pair, both signatures by the site's key", async () => {
    const s = await login('Steve');
    const before = Date.now();
    // Exactly what authlib's MinecraftClient sends: JSON content type, no body at all.
    const res = await post({
      authorization: `Bearer ${s.accessToken}`,
      'content-type': 'application/json; charset=utf-8',
      'content-length': '0',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await jsonOf<Record<string, unknown> & { keyPair: Record<string, string> }>(res);
    expect(Object.keys(body).sort()).toEqual(['expiresAt', 'keyPair', 'publicKeySignature', 'publicKeySignatureV2', 'refreshedAfter']);
    expect(Object.keys(body.keyPair).sort()).toEqual(['privateKey', 'publicKey']);
    expect(body.keyPair.publicKey).toMatch(PEM('PUBLIC'));
    expect(body.keyPair.privateKey).toMatch(PEM('PRIVATE'));
    // The times: whole milliseconds (the game signs Instant.toEpochMilli), +48 h, refresh 8 h before.
    expect(body.expiresAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const expires = Date.parse(body.expiresAt as string);
    expect(expires).toBeGreaterThanOrEqual(before + 48 * HOUR);
    expect(expires).toBeLessThanOrEqual(Date.now() + 48 * HOUR);
    expect(Date.parse(body.refreshedAfter as string)).toBe(expires - 8 * HOUR);

    // The game's own reading of it (Crypt's labels, MIME base64, X.509 / PKCS#8 inside).
    const keys = await fetchPlayerKeys(certificates, s.accessToken);
    expect(keys.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    const proof = sign('sha256', Buffer.from('чат'), keys.privateKey);
    expect(verify('sha256', Buffer.from('чат'), keys.publicKey, proof)).toBe(true);
    // Signed with the 4096-bit Yggdrasil key: 512-byte signatures, like Mojang's.
    expect(keys.signatureV2.length).toBe(512);
    const siteKey = launcher.publicKey;
    const uuid = bare(OFFLINE_UUID.Steve!);
    expect(verify('sha1', payloadV2(uuid, keys.expiresAt, keys.publicDer), siteKey, keys.signatureV2)).toBe(true);
    expect(verify('sha1', payloadV1(keys.expiresAt, keys.publicDer), siteKey, keys.signatureV1)).toBe(true);
    // A server trusting the site's published keys takes it for Steve, and for no one else.
    const services = await fetchServicesKeys(`${launcher.apiRoot}minecraftservices/publickeys`);
    expect(refuseKey(keys, uuid, services.certificates)).toBeNull();
    expect(refuseKey(keys, bare(OFFLINE_UUID.Alex!), services.certificates)).toBe('multiplayer.disconnect.invalid_public_key_signature');
    expect(refuseKey({ ...keys, expiresAt: new Date(keys.expiresAt.getTime() + 1) }, uuid, services.certificates)).toBe(
      'multiplayer.disconnect.invalid_public_key_signature',
    );
    expect(refuseKey(keys, uuid, services.certificates, keys.expiresAt.getTime() + 1)).toBe('multiplayer.disconnect.expired_public_key');
  });

  it('hands back the same pair until refreshedAfter, a new one after; one stored pair per player', async () => {
    const s = await login('Alex');
    const first = await fetchPlayerKeys(certificates, s.accessToken);
    const again = await fetchPlayerKeys(certificates, (await login('Alex')).accessToken);
    expect(again.publicDer.equals(first.publicDer)).toBe(true);
    expect(again.expiresAt).toEqual(first.expiresAt);
    const id = (await site.handle.db.selectFrom('users').select('id').where('username', '=', 'Alex').executeTakeFirstOrThrow()).id;
    expect((await rows()).filter((r) => r.user_id === id)).toHaveLength(1);

    await site.handle.db
      .updateTable('profile_keys')
      .set({ refreshed_after: Date.now() - 1 })
      .where('user_id', '=', id)
      .execute();
    const next = await fetchPlayerKeys(certificates, s.accessToken);
    expect(next.publicDer.equals(first.publicDer)).toBe(false);
    expect(next.expiresAt.getTime()).toBeGreaterThan(first.expiresAt.getTime());
    const stored = (await rows()).filter((r) => r.user_id === id);
    expect(stored).toHaveLength(1);
    expect(Buffer.from(stored[0]!.public_key, 'base64').equals(next.publicDer)).toBe(true);
    // Another player: another pair.
    const notch = await fetchPlayerKeys(certificates, (await login('Notch')).accessToken);
    expect(notch.publicDer.equals(next.publicDer)).toBe(false);
  });

  it('two calls at the same moment get one pair', async () => {
    const s = await login('Dinnerbone');
    const [a, b] = await Promise.all([fetchPlayerKeys(certificates, s.accessToken), fetchPlayerKeys(certificates, s.accessToken)]);
    expect(a.publicDer.equals(b.publicDer)).toBe(true);
  });

  it('ignores the body whatever it is: none, empty JSON, {}, text', async () => {
    const s = await login('Steve');
    const bearer = { authorization: `Bearer ${s.accessToken}` };
    for (const [headers, body] of [
      [bearer, undefined],
      [{ ...bearer, 'content-type': 'application/json' }, ''],
      [{ ...bearer, 'content-type': 'application/json' }, '{}'],
      [{ ...bearer, 'content-type': 'application/json' }, '{"broken'],
      [{ ...bearer, 'content-type': 'text/plain' }, 'hello'],
    ] as const) {
      const res = await post(headers, body);
      expect(res.status, `${JSON.stringify(headers)} ${body}`).toBe(200);
    }
  });

  it('refuses anything but a live game token with 401 in the protocol shape, and issues nothing', async () => {
    const count = (await rows()).length;
    const siteSession = await loginAs(site, 'jeb_', 'correct horse');
    const expired = await login('jeb_');
    await site.handle.db
      .updateTable('game_tokens')
      .set({ expires_at: Date.now() - 1 })
      .where('access_hash', '=', createHash('sha256').update(expired.accessToken).digest('hex'))
      .execute();
    for (const authorization of [
      undefined,
      '',
      'Bearer',
      `Basic ${expired.accessToken}`,
      'Bearer 0123456789abcdef0123456789abcdef',
      `Bearer ${siteSession}`,
      `Bearer ${expired.accessToken}`,
    ]) {
      const res = await post(authorization === undefined ? {} : { authorization });
      expect(res.status, String(authorization)).toBe(401);
      expect(await jsonOf(res)).toEqual({ error: 'Unauthorized', errorMessage: 'Invalid token.' });
    }
    const err = await fetchPlayerKeys(certificates, expired.accessToken).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServicesFailure);
    expect((await rows()).length).toBe(count);
  });

  it('is revoked with the game logins: signout, a ban, a password change; invalidating one launcher keeps it', async () => {
    const pairOf = async (name: string) => {
      const id = (await site.handle.db.selectFrom('users').select('id').where('username', '=', name).executeTakeFirstOrThrow()).id;
      return (await rows()).find((r) => r.user_id === id);
    };
    const s = await login('jeb_');
    const other = await login('jeb_');
    const first = await fetchPlayerKeys(certificates, s.accessToken);
    expect(await pairOf('jeb_')).toBeDefined();

    await launcher.call('POST', 'authserver/invalidate', { accessToken: other.accessToken });
    expect(Buffer.from((await pairOf('jeb_'))!.public_key, 'base64').equals(first.publicDer)).toBe(true);

    const out = await fetch(`${launcher.apiRoot}authserver/signout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'jeb_', password: 'correct horse' }),
    });
    expect(out.status).toBe(204);
    expect(await pairOf('jeb_')).toBeUndefined();
    expect(((await fetchPlayerKeys(certificates, s.accessToken).catch((e: unknown) => e)) as ServicesFailure).status).toBe(401);
    const fresh = await fetchPlayerKeys(certificates, (await login('jeb_')).accessToken);
    expect(fresh.publicDer.equals(first.publicDer)).toBe(false);

    // A password change ends every game login (revokeGameTokens), and the pair with them.
    const siteToken = await loginAs(site, 'jeb_', 'correct horse');
    const change = await fetch(`${site.base}/api/user/change-password`, {
      method: 'POST',
      headers: { authorization: `Bearer ${siteToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ old_password: 'correct horse', new_password: 'another horse 2' }),
    });
    expect(change.status).toBe(200);
    expect(await pairOf('jeb_')).toBeUndefined();

    // A ban too.
    await fetchPlayerKeys(certificates, (await login('Notch')).accessToken);
    expect(await pairOf('Notch')).toBeDefined();
    const notchId = (await site.handle.db.selectFrom('users').select('id').where('username', '=', 'Notch').executeTakeFirstOrThrow()).id;
    const ban = await fetch(`${site.base}/api/admin/users/${notchId}/ban`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'Тест', until: null }),
    });
    expect(ban.status, await ban.clone().text()).toBe(200);
    expect(await pairOf('Notch')).toBeUndefined();
  });

  it('sweeps pairs past their expiry when it issues one', async () => {
    const s = await login('Steve');
    await fetchPlayerKeys(certificates, s.accessToken);
    await site.handle.db
      .updateTable('profile_keys')
      .set({ refreshed_after: Date.now() - 2, expires_at: Date.now() - 1 })
      .execute();
    await fetchPlayerKeys(certificates, (await login('Alex')).accessToken);
    expect((await rows()).map((r) => r.expires_at > Date.now())).toEqual([true]);
  });

  it("publickeys lists the site's Yggdrasil key as base64 DER, for textures and for profile keys", async () => {
    const res = await fetch(`${launcher.apiRoot}minecraftservices/publickeys`);
    expect(res.status).toBe(200);
    const body = await jsonOf<Record<string, { publicKey: string }[]>>(res);
    const der = createPublicKey(launcher.metadata.signaturePublickey).export({ type: 'spki', format: 'der' }).toString('base64');
    expect(body).toEqual({ profilePropertyKeys: [{ publicKey: der }], playerCertificateKeys: [{ publicKey: der }] });
    // A signed profile verifies with the listed property key.
    const services = await fetchServicesKeys(`${launcher.apiRoot}minecraftservices/publickeys`);
    const profile = await launcher.call('GET', `sessionserver/session/minecraft/profile/${bare(OFFLINE_UUID.Steve!)}?unsigned=false`);
    const prop = (profile.json as { properties: { value: string; signature: string }[] }).properties[0]!;
    expect(verify('sha1', Buffer.from(prop.value), services.properties[0]!, Buffer.from(prop.signature, 'base64'))).toBe(true);
  });
});
