import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthlibLauncher, YggdrasilFailure, type Session } from '../../../../../testing/authlib-launcher.ts';
import { decodePng, pixelHash } from '../../lib/skin/skin-image.ts';
import { fill, blank, multipart, skinForm, testSkin, toPng } from '../../../../../testing/skin-images.ts';
import { dbKinds, loginAs, seedUser } from '../../test/test-app.ts';
import { bare, jsonOf, listeningSite, OFFLINE_UUID, seedSigningKey } from '../../test/game-auth.ts';
import { EmailLinkKey } from '../users/email-tokens.ts';

type Site = Awaited<ReturnType<typeof listeningSite>>;

const clientToken = () => createHash('md5').update(String(Math.random())).digest('hex');

async function failure(p: Promise<unknown>): Promise<YggdrasilFailure> {
  try {
    await p;
  } catch (err) {
    if (err instanceof YggdrasilFailure) return err;
    throw err;
  }
  throw new Error('expected a Yggdrasil error');
}

describe.each(dbKinds)('Yggdrasil API on %s', (kind) => {
  let site: Site;
  let launcher: AuthlibLauncher;
  let adminToken: string;
  beforeAll(async () => {
    site = await listeningSite(kind);
    await seedSigningKey(site);
    for (const name of ['Notch', 'Steve', 'jeb_', 'Alex', 'Dinnerbone']) await seedUser(site, name, { password: 'correct horse' });
    await seedUser(site, 'Owner', { admin: true });
    adminToken = await loginAs(site, 'Owner');
    launcher = new AuthlibLauncher();
    await launcher.discover(site.base);
  });
  afterAll(async () => {
    await site?.close();
  });

  /** The per-account limit allows one password check per second: each login waits its turn. */
  const lastLogin = new Map<string, number>();
  async function login(name: string, password = 'correct horse', ct = clientToken()): ReturnType<AuthlibLauncher['authenticate']> {
    const wait = (lastLogin.get(name) ?? 0) + 1100 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    lastLogin.set(name, Date.now());
    return launcher.authenticate(name, password, ct);
  }
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${site.base}/api/yggdrasil/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('is found from the site address and describes itself as authlib-injector requires', async () => {
    expect(launcher.apiRoot).toBe(`${site.base}/api/yggdrasil/`);
    expect(launcher.metadata.meta).toEqual({
      serverName: 'Kubik',
      implementationName: 'kubik',
      implementationVersion: '1.0.0',
      links: { homepage: `${site.base}/`, register: `${site.base}/register` },
      'feature.non_email_login': true,
      'feature.enable_profile_key': true,
    });
    expect(launcher.metadata.skinDomains).toEqual(['127.0.0.1']);
    expect(launcher.publicKey.asymmetricKeyDetails?.modulusLength).toBe(4096);
    expect(launcher.metadata.signaturePublickey).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+-----END PUBLIC KEY-----\n$/);
  });

  it("takes the server name launchers show, and the help text, from the owner's settings", async () => {
    const asAdmin = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
    expect(await jsonOf(await fetch(`${site.base}/api/game-login`))).toEqual({
      server_name: 'Kubik',
      help_text: '',
      yggdrasil_url: `${site.base}/api/yggdrasil/`,
      site_url: site.base,
      gravit_enabled: false,
    });
    const saved = await fetch(`${site.base}/api/admin/game-login`, {
      method: 'PUT',
      headers: asAdmin,
      body: JSON.stringify({ server_name: 'Кубик: выживание', help_text: 'Играйте через HMCL.' }),
    });
    expect(saved.status).toBe(200);
    expect((await jsonOf(await fetch(`${site.base}/api/game-login`))).help_text).toBe('Играйте через HMCL.');
    expect((await jsonOf<{ meta: { serverName: string } }>(await fetch(`${site.base}/api/yggdrasil/`))).meta.serverName).toBe(
      'Кубик: выживание',
    );
    const bad = await fetch(`${site.base}/api/admin/game-login`, {
      method: 'PUT',
      headers: asAdmin,
      body: JSON.stringify({ server_name: '', help_text: '' }),
    });
    expect(bad.status).toBe(400);
    expect(await jsonOf(bad)).toMatchObject({ field: 'server_name' });
    const player = await loginAs(site, 'Alex', 'correct horse');
    expect(
      (
        await fetch(`${site.base}/api/admin/game-login`, {
          method: 'PUT',
          headers: { ...asAdmin, authorization: `Bearer ${player}` },
          body: '{}',
        })
      ).status,
    ).toBe(403);
    await fetch(`${site.base}/api/admin/game-login`, {
      method: 'PUT',
      headers: asAdmin,
      body: JSON.stringify({ server_name: 'Kubik', help_text: '' }),
    });
  });

  it('names the API on every answer of the site: pages, API, errors, files, cached public reads', async () => {
    const urls = [
      '/',
      '/profile',
      '/api/site',
      '/api/nothing',
      '/api/user/me',
      '/downloads/none.exe',
      '/api/tidings/news',
      '/api/tidings/news',
      '/api/user/%zz/skin',
      '/textures/' + '0'.repeat(64),
    ];
    for (const url of urls) {
      const res = await fetch(site.base + url);
      expect(res.headers.get('x-authlib-injector-api-location'), url).toBe('/api/yggdrasil/');
    }
    const post = await fetch(`${site.base}/api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    expect(post.headers.get('x-authlib-injector-api-location')).toBe('/api/yggdrasil/');
  });

  it('logs in by name or e-mail, binds the one profile, echoes any clientToken byte for byte', async () => {
    const byName = await login('Notch');
    expect(byName.selectedProfile).toEqual({ id: bare(OFFLINE_UUID.Notch!), name: 'Notch' });
    expect(byName.availableProfiles).toEqual([byName.selectedProfile]);
    expect(byName.accessToken).toMatch(/^[0-9a-f]{48}$/);

    const odd = '0d275e50-f5d1-4b7f-8d39-d66a3f904549X';
    const byMail = await login('STEVE@example.com', 'correct horse', odd);
    expect(byMail.clientToken).toBe(odd);
    expect(byMail.selectedProfile).toEqual({ id: bare(OFFLINE_UUID.Steve!), name: 'Steve' });
    expect(byMail.user).toEqual({ id: bare(OFFLINE_UUID.Steve!), properties: [{ name: 'preferredLanguage', value: 'ru' }] });

    // No clientToken: the server makes one (an unhyphenated UUID); no requestUser: no user.
    await new Promise((r) => setTimeout(r, 1100));
    const res = await post('authserver/authenticate', { username: 'jeb_', password: 'correct horse' });
    expect(res.status).toBe(200);
    const body = await jsonOf(res);
    expect(Object.keys(body).sort()).toEqual(['accessToken', 'availableProfiles', 'clientToken', 'selectedProfile']);
    expect(body.clientToken).toMatch(/^[0-9a-f]{32}$/);

    // Tokens are kept only as hashes.
    const rows = await site.handle.db.selectFrom('game_tokens').select(['access_hash', 'client_token']).execute();
    expect(rows.map((r) => r.access_hash)).toContain(createHash('sha256').update(byName.accessToken).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(byName.accessToken);
  });

  it('refuses wrong passwords, unknown names, unconfirmed accounts and a second try within a second', async () => {
    expect((await failure(login('Nobody_here'))).kind).toBe('credentials');
    // Last before the try within a second: a failed login is answered only after its floor (250 ms).
    const wrong = await failure(login('Alex', 'wrong password'));
    expect([wrong.status, wrong.error, wrong.errorMessage]).toEqual([
      403,
      'ForbiddenOperationException',
      'Invalid credentials. Invalid username or password.',
    ]);
    // Right password, but the account tried less than a second ago: refused, saying so (issue 29:
    // «Invalid credentials» here made owners doubt a right password).
    const throttled = await failure(launcher.authenticate('Alex', 'correct horse', clientToken()));
    expect([throttled.status, throttled.error]).toEqual([403, 'ForbiddenOperationException']);
    expect(throttled.errorMessage).toMatch(/^Слишком много попыток входа/);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await login('Alex')).selectedProfile.name).toBe('Alex');

    const id = await seedUser(site, 'Unconfirmed', { password: 'correct horse' });
    await site.handle.db.updateTable('users').set({ email_verified_at: null }).where('id', '=', id).execute();
    const unconfirmed = await failure(login('Unconfirmed'));
    expect(unconfirmed.status).toBe(403);
    expect(unconfirmed.error).toBe('ForbiddenOperationException');
    expect(unconfirmed.errorMessage).toContain('Почта не подтверждена');
  });

  it('validates, refreshes (old token dead at once, failed refresh keeps it) and ends tokens', async () => {
    const s = await login('Dinnerbone');
    await launcher.validate(s);
    await launcher.validate({ accessToken: s.accessToken });
    expect((await failure(launcher.validate({ accessToken: s.accessToken, clientToken: 'other' }))).kind).toBe('token');

    // A failed refresh leaves the old token as it was.
    expect((await failure(launcher.refresh({ ...s, clientToken: 'other' }))).kind).toBe('token');
    const assigned = await failure(launcher.refresh(s, { selectedProfile: s.selectedProfile }));
    expect([assigned.status, assigned.error, assigned.errorMessage]).toEqual([
      400,
      'IllegalArgumentException',
      'Access token already has a profile assigned.',
    ]);
    await launcher.validate(s);

    const next = await launcher.refresh(s);
    expect(next.clientToken).toBe(s.clientToken);
    await launcher.validate(next);
    expect((await failure(launcher.validate(s))).kind).toBe('token');
    expect((await failure(launcher.refresh(s))).kind).toBe('token');

    // invalidate: always 204; the real one ends the token.
    expect((await post('authserver/invalidate', { accessToken: 'f'.repeat(32) })).status).toBe(204);
    const inv = await post('authserver/invalidate', { accessToken: next.accessToken, clientToken: next.clientToken });
    expect([inv.status, await inv.text()]).toEqual([204, '']);
    expect((await failure(launcher.validate(next))).kind).toBe('token');
  });

  it('after expiry a token is only refreshable, and after the refresh window nothing', async () => {
    const s = await login('Notch');
    const hash = createHash('sha256').update(s.accessToken).digest('hex');
    await site.handle.db
      .updateTable('game_tokens')
      .set({ expires_at: Date.now() - 1 })
      .where('access_hash', '=', hash)
      .execute();
    expect((await failure(launcher.validate(s))).kind).toBe('token');
    expect((await failure(launcher.join(s, 'abc'))).kind).toBe('token');
    const next = await launcher.refresh(s);
    await launcher.validate(next);

    const nextHash = createHash('sha256').update(next.accessToken).digest('hex');
    await site.handle.db
      .updateTable('game_tokens')
      .set({ expires_at: Date.now() - 2, refresh_until: Date.now() - 1 })
      .where('access_hash', '=', nextHash)
      .execute();
    expect((await failure(launcher.refresh(next))).kind).toBe('token');
  });

  it('a renamed player keeps the UUID; the old token must be refreshed to carry the new name', async () => {
    const id = await seedUser(site, 'OldName', { password: 'correct horse' });
    const s = await login('OldName');
    // The offline-mode UUID of "OldName" (Java's UUID.nameUUIDFromBytes), computed independently.
    expect(s.selectedProfile.id).toBe('7f5a532e5b6836ab9e8057a57627d544');
    const rename = await fetch(`${site.base}/api/user/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'NewName' }),
    });
    expect(rename.status).toBe(200);
    // Issued under the old name: no longer valid, but refreshable, and the new token carries the new name.
    expect((await failure(launcher.validate(s))).kind).toBe('token');
    const next = await launcher.refresh(s);
    expect(next.selectedProfile).toEqual({ id: s.selectedProfile.id, name: 'NewName' });
    await launcher.validate(next);
    expect((await launcher.profile(s.selectedProfile.id))?.name).toBe('NewName');
  });

  it('signout: a wrong password is refused, the right one ends every launcher login', async () => {
    const a = await login('jeb_');
    const b = await launcher.authenticate('jeb@example.com'.replace('jeb@', 'jeb_@'), 'correct horse', clientToken()).catch(async () => {
      await new Promise((r) => setTimeout(r, 1100));
      return launcher.authenticate('jeb_@example.com', 'correct horse', clientToken());
    });
    await new Promise((r) => setTimeout(r, 1100));
    const wrong = await post('authserver/signout', { username: 'jeb_', password: 'nope' });
    expect(wrong.status).toBe(403);
    expect(await jsonOf(wrong)).toEqual({
      error: 'ForbiddenOperationException',
      errorMessage: 'Invalid credentials. Invalid username or password.',
    });
    await launcher.validate(a);
    await new Promise((r) => setTimeout(r, 1100));
    const ok = await post('authserver/signout', { username: 'jeb_@example.com', password: 'correct horse' });
    expect([ok.status, await ok.text()]).toEqual([204, '']);
    for (const s of [a, b]) expect((await failure(launcher.validate(s))).kind).toBe('token');
    lastLogin.set('jeb_', Date.now());
  });

  it('ends game tokens on a password change and a password reset', async () => {
    await seedUser(site, 'Changer', { password: 'correct horse' });
    const s = await login('Changer');
    const siteToken = await loginAs(site, 'Changer', 'correct horse');
    const change = await fetch(`${site.base}/api/user/change-password`, {
      method: 'POST',
      headers: { authorization: `Bearer ${siteToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ old_password: 'correct horse', new_password: 'another horse 2' }),
    });
    expect(change.status, await change.clone().text()).toBe(200);
    expect((await failure(launcher.validate(s))).kind).toBe('token');

    const s2 = await login('Changer', 'another horse 2');
    const forgot = await fetch(`${site.base}/api/user/forgot-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'changer@example.com' }),
    });
    expect(forgot.status).toBe(200);
    const row = await site.handle.db.selectFrom('email_tokens').select('id').where('kind', '=', 'reset').executeTakeFirstOrThrow();
    // The letter's token is only stored hashed: put a known one, signed as the site signs them, in its place.
    const known = (await EmailLinkKey.load(site.handle.db)).issue('reset');
    await site.handle.db
      .updateTable('email_tokens')
      .set({ token_hash: createHash('sha256').update(known).digest('hex') })
      .where('id', '=', row.id)
      .execute();
    const reset = await fetch(`${site.base}/api/user/reset-password/${known}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ new_password: 'third horse 3' }),
    });
    expect(reset.status, await reset.clone().text()).toBe(200);
    expect((await failure(launcher.validate(s2))).kind).toBe('token');
  });

  describe('joining a server', () => {
    let s: Session;
    let skinHash: string;
    let capeHash: string;
    beforeAll(async () => {
      const player = await loginAs(site, 'Steve', 'correct horse');
      const skinRes = await fetch(`${site.base}/api/user/skin`, {
        method: 'POST',
        headers: { authorization: `Bearer ${player}`, ...skinForm(Buffer.alloc(0)).headers },
        body: skinForm(await toPng(testSkin({ slim: true }))).payload,
      });
      expect(skinRes.status).toBe(200);
      const cape = fill(blank(64, 32), 0, 0, 22, 17, [200, 30, 30, 255]);
      const form = multipart([
        { name: 'title', data: 'Красный' },
        { name: 'cape', filename: 'c.png', type: 'image/png', data: await toPng(cape) },
      ]);
      const up = await fetch(`${site.base}/api/admin/capes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, ...form.headers },
        body: form.payload,
      });
      expect(up.status, await up.clone().text()).toBe(200);
      const capeId = (await jsonOf<{ id: number }>(up)).id;
      const grant = await fetch(`${site.base}/api/admin/capes/${capeId}/grants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'Steve' }),
      });
      expect(grant.status).toBe(200);
      const wear = await fetch(`${site.base}/api/user/cape`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${player}`, 'content-type': 'application/json' },
        body: JSON.stringify({ cape_id: capeId }),
      });
      expect(wear.status).toBe(200);
      skinHash = pixelHash(testSkin({ slim: true }));
      capeHash = pixelHash(cape);
      s = await login('Steve');
    });

    it('join then hasJoined: the complete profile, signed, with the slim skin and the cape', async () => {
      await launcher.join(s, '-7c9d5b0044c130109a5d7b5fb5c317c02b4e28c1');
      const profile = await launcher.hasJoined('Steve', '-7c9d5b0044c130109a5d7b5fb5c317c02b4e28c1');
      expect(profile).not.toBeNull();
      expect(profile!.id).toBe(bare(OFFLINE_UUID.Steve!));
      expect(profile!.properties.map((p) => p.name)).toEqual(['textures']);
      expect(profile!.textures!.textures).toEqual({
        SKIN: { url: `${site.base}/textures/${skinHash}`, metadata: { model: 'slim' } },
        CAPE: { url: `${site.base}/textures/${capeHash}` },
      });
      for (const [hash, url] of [
        [skinHash, profile!.textures!.textures.SKIN!.url],
        [capeHash, profile!.textures!.textures.CAPE!.url],
      ] as const) {
        const file = await fetch(url);
        expect(file.status).toBe(200);
        expect(file.headers.get('content-type')).toBe('image/png');
        expect(file.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        expect(pixelHash(await decodePng(Buffer.from(await file.arrayBuffer())))).toBe(hash);
      }
      // One check per join: a replay finds nothing.
      expect(await launcher.hasJoined('Steve', '-7c9d5b0044c130109a5d7b5fb5c317c02b4e28c1')).toBeNull();
    });

    it('hasJoined answers 204 for a wrong name, a wrong serverId, no join, another address; with the right address 200', async () => {
      await launcher.join(s, '4ed1f46bbe04bc756bcb17c0c7ce3e4632f06a48');
      expect(await launcher.hasJoined('steve', '4ed1f46bbe04bc756bcb17c0c7ce3e4632f06a48')).toBeNull();
      expect(await launcher.hasJoined('Notch', '4ed1f46bbe04bc756bcb17c0c7ce3e4632f06a48')).toBeNull();
      expect(await launcher.hasJoined('Steve', '88e16a1019277b15d58faf0541e11910eb756f6')).toBeNull();
      expect(await launcher.hasJoined('Steve', '4ed1f46bbe04bc756bcb17c0c7ce3e4632f06a48', '203.0.113.9')).toBeNull();
      expect((await launcher.hasJoined('Steve', '4ed1f46bbe04bc756bcb17c0c7ce3e4632f06a48', '127.0.0.1'))?.name).toBe('Steve');
      expect(await launcher.hasJoined('Nobody_here', 'x')).toBeNull();
    });

    it("join refuses another player's profile and a bad token with 403 Invalid token.", async () => {
      const other = await failure(launcher.join({ ...s, selectedProfile: { id: bare(OFFLINE_UUID.Notch!), name: 'Notch' } }, 'abc'));
      expect([other.status, other.error, other.errorMessage]).toEqual([403, 'ForbiddenOperationException', 'Invalid token.']);
      expect((await failure(launcher.join({ ...s, accessToken: '0'.repeat(32) }, 'abc'))).kind).toBe('token');
    });

    it('profile/{uuid}: unsigned unless ?unsigned=false, 204 for nobody', async () => {
      const plain = await launcher.profile(bare(OFFLINE_UUID.Steve!));
      expect(plain!.properties[0]).not.toHaveProperty('signature');
      expect((await launcher.profile(bare(OFFLINE_UUID.Steve!), 'true'))!.properties[0]).not.toHaveProperty('signature');
      const signedProfile = await launcher.profile(bare(OFFLINE_UUID.Steve!), 'false');
      expect(signedProfile!.properties[0]!.signature).toBeTruthy();
      expect(signedProfile!.textures!.textures.CAPE).toBeDefined();
      expect(await launcher.profile(bare(OFFLINE_UUID.Alex!), 'false')).toMatchObject({ name: 'Alex', textures: { textures: {} } });
      expect(await launcher.profile('0123456789abcdef0123456789abcdef')).toBeNull();
      const bad = await fetch(`${launcher.apiRoot}sessionserver/session/minecraft/profile/not-a-uuid`);
      expect(bad.status).toBe(400);
      expect((await jsonOf(bad)).error).toBe('IllegalArgumentException');
    });
  });

  it('api/profiles/minecraft: unknown names left out, duplicates and case collapsed, a limit', async () => {
    const ask = async (names: unknown) => {
      const res = await post('api/profiles/minecraft', names);
      return { status: res.status, body: await jsonOf<{ id: string; name: string }[] & { error?: string }>(res) };
    };
    expect(await ask([])).toEqual({ status: 200, body: [] });
    const found = await ask(['notch', 'Notch', 'NOTCH', 'Nobody_here', 'Alex']);
    expect(found.status).toBe(200);
    expect(found.body.sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name))).toEqual([
      { id: bare(OFFLINE_UUID.Alex!), name: 'Alex' },
      { id: bare(OFFLINE_UUID.Notch!), name: 'Notch' },
    ]);
    const many = await ask(Array.from({ length: 11 }, (_, i) => `Name${i}`));
    expect(many.status).toBe(403);
    expect(many.body.error).toBe('ForbiddenOperationException');
  });

  it("answers every failure in the protocol's shape: bad JSON, missing fields, big bodies, wrong type, unknown paths, foreign Origin", async () => {
    const shape = async (res: Response, status: number, error: string) => {
      expect(res.status).toBe(status);
      const body = await jsonOf(res);
      expect(Object.keys(body).sort()).toEqual(['error', 'errorMessage']);
      expect(body.error).toBe(error);
    };
    await shape(await post('authserver/authenticate', '{"username":'), 400, 'IllegalArgumentException');
    await shape(await post('authserver/authenticate', { username: 'Notch' }), 400, 'IllegalArgumentException');
    await shape(await post('authserver/validate', {}), 400, 'IllegalArgumentException');
    await shape(await post('authserver/authenticate', { username: 'x', password: 'y'.repeat(100_000) }), 413, 'Payload Too Large');
    await shape(
      await fetch(`${launcher.apiRoot}authserver/authenticate`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' }),
      400,
      'IllegalArgumentException',
    );
    await shape(
      await fetch(`${launcher.apiRoot}authserver/authenticate`, {
        method: 'POST',
        headers: { 'content-type': 'application/xml' },
        body: '<a/>',
      }),
      415,
      'Unsupported Media Type',
    );
    await shape(await fetch(`${launcher.apiRoot}authserver/nothing`), 404, 'Not Found');
    await shape(await fetch(`${launcher.apiRoot}sessionserver/session/minecraft/hasJoined`), 400, 'IllegalArgumentException');
    // A launcher built on a web engine sends its own Origin; the site's cross-site guard does not apply here.
    await new Promise((r) => setTimeout(r, 1100));
    const fromApp = await post('authserver/authenticate', { username: 'Alex', password: 'correct horse' }, { origin: 'app://launcher' });
    expect(fromApp.status).toBe(200);
    lastLogin.set('Alex', Date.now());
  });
});
