import { createHash, verify } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import mc from 'minecraft-protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthlibLauncher } from '../../../../../testing/authlib-launcher.ts';
import { pointSessionChecksAt } from '../../../../../testing/minecraft-session-server.ts';
import { skinForm, testSkin, toPng } from '../../../../../testing/skin-images.ts';
import { dbKinds, loginAs, seedUser } from '../../test/test-app.ts';
import { listeningSite, OFFLINE_UUID, seedSigningKey } from '../../test/game-auth.ts';

const VERSION = '1.20.4';

/**
 * The whole online-mode login with real client and server software: minecraft-protocol's client
 * logs in to the site (`auth: 'mojang'`, authServer and sessionServer pointed at it) and joins
 * minecraft-protocol's online-mode server, whose session check asks the site.
 */
describe.each(dbKinds)('online-mode login through the site on %s', (kind) => {
  let site: Awaited<ReturnType<typeof listeningSite>>;
  let server: mc.Server;
  let port = 0;
  let hook: { restore: () => void };
  const seen: string[] = [];
  const ended: string[] = [];
  const launcher = new AuthlibLauncher();

  beforeAll(async () => {
    site = await listeningSite(kind);
    await seedSigningKey(site);
    await seedUser(site, 'Steve', { password: 'correct horse' });
    await seedUser(site, 'Notch', { password: 'correct horse' });
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
    site.app.server.on('request', (req: { method: string; url: string; headers: Record<string, string> }) => {
      if (req.url.startsWith('/api/yggdrasil/'))
        seen.push(`${req.method} ${req.url.split('?')[0]}${req.url.includes('ip=') ? ' +ip' : ''}`);
    });
    await launcher.discover(site.base);

    hook = pointSessionChecksAt(`${site.base}/api/yggdrasil/sessionserver`);
    server = mc.createServer({
      'online-mode': true,
      host: '127.0.0.1',
      port: 0,
      version: VERSION,
      enforceSecureProfile: false,
      hideErrors: true,
    });
    await new Promise<void>((resolve) => server.on('listening', () => resolve()));
    port = (server as unknown as { socketServer: { address(): AddressInfo } }).socketServer.address().port;
    // 'connection' and a server-side client's 'end' are emitted at run time but missing from the package's types.
    (server as unknown as NodeJS.EventEmitter).on('connection', (c: NodeJS.EventEmitter) =>
      c.on('end', (reason: unknown) => ended.push(String(reason))),
    );
  });
  afterAll(async () => {
    server?.close();
    hook?.restore();
    await site?.close();
  });

  const client = (options: Partial<mc.ClientOptions>) =>
    mc.createClient({
      host: '127.0.0.1',
      port,
      version: VERSION,
      auth: 'mojang',
      authServer: `${site.base}/api/yggdrasil/authserver`,
      sessionServer: `${site.base}/api/yggdrasil/sessionserver`,
      profilesFolder: false,
      username: 'Steve',
      ...options,
    } as mc.ClientOptions);

  it('logs in with the site account and joins the online-mode server, which gets the signed profile from the site', async () => {
    seen.length = 0;
    const c = client({ username: 'steve@example.com', password: 'correct horse' });
    try {
      const joined = await new Promise<mc.ServerClient>((resolve, reject) => {
        server.once('login', resolve);
        c.once('error', reject);
      });
      expect(seen).toEqual([
        'POST /api/yggdrasil/authserver/authenticate',
        'POST /api/yggdrasil/sessionserver/session/minecraft/join',
        'GET /api/yggdrasil/sessionserver/session/minecraft/hasJoined',
      ]);
      expect(joined.uuid).toBe(OFFLINE_UUID.Steve);
      expect(joined.username).toBe('Steve');
      expect(c.username).toBe('Steve');
      const profile = (
        joined as unknown as { profile: { id: string; name: string; properties: { name: string; value: string; signature: string }[] } }
      ).profile;
      const textures = profile.properties.find((p) => p.name === 'textures')!;
      expect(verify('sha1', Buffer.from(textures.value, 'utf8'), launcher.publicKey, Buffer.from(textures.signature, 'base64'))).toBe(true);
      const payload = JSON.parse(Buffer.from(textures.value, 'base64').toString('utf8'));
      expect(payload.textures.SKIN.url).toMatch(new RegExp(`^${site.base}/textures/[0-9a-f]{64}$`));
    } finally {
      c.end('done');
    }
  });

  it("a wrong password: the client fails with the site's message and never connects", async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const c = client({ username: 'Notch', password: 'wrong' });
    const err = await new Promise<Error>((resolve) => c.once('error', resolve));
    expect(err.message).toBe('Invalid credentials. Invalid username or password.');
    c.end('done');
  });

  it('a revoked token: the site refuses the join, the client ends with encryptionLoginError', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const s = await launcher.authenticate('Notch', 'correct horse', createHash('md5').update('x').digest('hex'));
    await launcher.call('POST', 'authserver/invalidate', { accessToken: s.accessToken });
    const c = client({
      username: 'Notch',
      session: { accessToken: s.accessToken, clientToken: s.clientToken, selectedProfile: s.selectedProfile },
      skipValidation: true,
    } as Partial<mc.ClientOptions>);
    const err = await new Promise<Error>((resolve) => c.once('error', resolve));
    expect(err.message).toBe('Invalid token.');
    const reason = await new Promise<string>((resolve) => c.once('end', resolve));
    expect(reason).toBe('encryptionLoginError');
  });

  it('a failed session check: the server turns the player away with Failed to verify username!', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const s = await launcher.authenticate('Notch', 'correct horse', createHash('md5').update('y').digest('hex'));
    ended.length = 0;
    // The token is Notch's, but the client calls itself Steve: the join is Notch's, so the check for "Steve" finds nothing.
    const c = client({
      username: 'Steve',
      session: { accessToken: s.accessToken, clientToken: s.clientToken, selectedProfile: { ...s.selectedProfile, name: 'Steve' } },
      skipValidation: true,
    } as Partial<mc.ClientOptions>);
    await new Promise<void>((resolve) => c.once('end', () => resolve()));
    await new Promise((r) => setTimeout(r, 100));
    expect(ended).toContain('Failed to verify username!');
  });
});
