import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import mc from 'minecraft-protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authWithKeys,
  catchGarbledFrames,
  createServerTrusting,
  protocolData,
  siteCertificates,
  watchChatChecks,
  type ProfileKeys,
} from '../../../../../testing/minecraft-protocol-keys.ts';
import { pointSessionChecksAt } from '../../../../../testing/minecraft-session-server.ts';
import { dbKinds, seedUser } from '../../test/test-app.ts';
import { jsonOf, listeningSite, OFFLINE_UUID, seedSigningKey } from '../../test/game-auth.ts';

type ServerClient = mc.ServerClient & { profileKeys?: unknown };
type Alter = (keys: ProfileKeys, accessToken: string) => Promise<ProfileKeys | null>;

/**
 * Secure chat with real software: minecraft-protocol's online-mode server with
 * enforceSecureProfile, its session check asking the site and its key checks using the key the
 * site publishes (GET …/minecraftservices/publickeys, playerCertificateKeys); minecraft-protocol's
 * client logging in through the site's authserver, fetching its certificate from the site with
 * prismarine-auth, joining and sending a signed chat message.
 */
describe.each(dbKinds)('secure chat through the site on %s', (kind) => {
  let site: Awaited<ReturnType<typeof listeningSite>>;
  let hook: { restore: () => void };
  let trustedPem = '';
  let certificatesUrl = '';

  beforeAll(async () => {
    site = await listeningSite(kind, { rateLimits: { enabled: false } });
    await seedSigningKey(site);
    await seedUser(site, 'Steve', { password: 'correct horse' });
    await seedUser(site, 'Notch', { password: 'correct horse' });
    const keys = await jsonOf<{ playerCertificateKeys: { publicKey: string }[] }>(
      await fetch(`${site.base}/api/yggdrasil/minecraftservices/publickeys`),
    );
    expect(keys.playerCertificateKeys).toHaveLength(1);
    trustedPem = createPublicKey({ key: Buffer.from(keys.playerCertificateKeys[0]!.publicKey, 'base64'), format: 'der', type: 'spki' })
      .export({ type: 'spki', format: 'pem' })
      .toString();
    certificatesUrl = `${site.base}/api/yggdrasil/minecraftservices/player/certificates`;
    hook = pointSessionChecksAt(`${site.base}/api/yggdrasil/sessionserver`);
  });
  afterAll(async () => {
    hook?.restore();
    await site?.close();
  });

  async function startServer(version: string) {
    const server = createServerTrusting(trustedPem)({
      'online-mode': true,
      host: '127.0.0.1',
      port: 0,
      version,
      enforceSecureProfile: true,
      hideErrors: true,
    });
    await once(server, 'listening');
    const port = (server as unknown as { socketServer: { address(): AddressInfo } }).socketServer.address().port;
    const ended: string[] = [];
    const loginPacket = protocolData(version).loginPacket;
    (server as unknown as NodeJS.EventEmitter).on('connection', (c: NodeJS.EventEmitter) =>
      c.on('end', (reason: unknown) => ended.push(typeof reason === 'string' ? reason : String(reason))),
    );
    server.on('playerJoin', (client) => client.write('login', { ...loginPacket, entityId: client.id }));
    return { server, port, ended };
  }

  function join(version: string, port: number, alter: Alter = async (k) => k) {
    const client = mc.createClient({
      host: '127.0.0.1',
      port,
      version,
      auth: authWithKeys(async (token) => alter(await siteCertificates(certificatesUrl, token), token)),
      authServer: `${site.base}/api/yggdrasil/authserver`,
      sessionServer: `${site.base}/api/yggdrasil/sessionserver`,
      profilesFolder: false,
      username: 'steve@example.com',
      password: 'correct horse',
      hideErrors: true,
    });
    // A client turned away mid-handshake may read the server's plain goodbye through its cipher: its errors are expected here.
    catchGarbledFrames(client);
    client.on('error', () => {});
    return client;
  }

  const settle = () => new Promise((r) => setTimeout(r, 300));
  /**
   * The client is gone: it ended, or its garbled read of the server's goodbye became an error
   * (catchGarbledFrames). events.once(client, 'end') would reject on that error instead.
   */
  const goneOf = (client: mc.Client) =>
    new Promise<void>((resolve) => {
      client.once('end', () => resolve());
      client.once('error', () => resolve());
    });

  /** Joins, sends a signed message, and tells whether the server took it (the player still there) or why it turned them away. */
  async function chat(
    version: string,
    alter?: Alter,
    beforeChat?: (client: mc.Client & { profileKeys: ProfileKeys }) => void,
  ): Promise<{ said?: string; ended: string[]; keyed: boolean; chatErrors: unknown[] }> {
    const { server, port, ended } = await startServer(version);
    const client = join(version, port, alter);
    try {
      const joined = once(server, 'login') as Promise<[ServerClient]>;
      const gone = goneOf(client);
      const first = await Promise.race([joined, gone.then(() => null)]);
      if (!first) {
        await settle();
        return { ended, keyed: false, chatErrors: [] };
      }
      const [player] = first;
      const { errors: chatErrors } = watchChatChecks(player);
      const heard = new Promise<string>((resolve) => player.on('chat_message', (p: { message: string }) => resolve(p.message)));
      if (protocolData(version).supportFeature('useChatSessions')) {
        await Promise.race([once(player, 'chat_session_update'), gone]);
        await settle();
        if (player.ended) return { ended, keyed: false, chatErrors };
      } else {
        await once(client, 'login');
      }
      beforeChat?.(client as mc.Client & { profileKeys: ProfileKeys });
      client.chat('Привет, Кубик!');
      const said = await Promise.race([heard, gone.then(() => undefined)]);
      await settle();
      const refused = player.ended || client.ended || chatErrors.length > 0;
      return { said: refused ? undefined : said, ended, keyed: !!player.profileKeys, chatErrors };
    } finally {
      client.end('done');
      server.close();
    }
  }

  for (const version of ['1.20.4', '1.19.2']) {
    describe(`Minecraft ${version}`, () => {
      it('the site-issued key is accepted and a signed chat message goes through', async () => {
        const r = await chat(version);
        expect(r.ended).toEqual([]);
        expect(r.chatErrors).toEqual([]);
        expect(r.keyed).toBe(true);
        expect(r.said).toBe('Привет, Кубик!');
      });

      it('a key whose public half was swapped is refused', async () => {
        const r = await chat(version, async (k) => {
          const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
          return { ...k, public: other.publicKey, private: other.privateKey };
        });
        expect(r.said).toBeUndefined();
        expect(r.ended).toEqual(['multiplayer.disconnect.invalid_public_key_signature']);
      });

      it('a key with its expiry moved is refused', async () => {
        const r = await chat(version, async (k) => ({ ...k, expiresOn: new Date(k.expiresOn.getTime() + 60_000) }));
        expect(r.ended).toEqual(['multiplayer.disconnect.invalid_public_key_signature']);
      });

      it("another player's key is refused: the signature binds it to its owner's UUID", async () => {
        const r = await chat(version, async (_k) => {
          const s = await fetch(`${site.base}/api/yggdrasil/authserver/authenticate`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ username: 'Notch', password: 'correct horse' }),
          });
          const { accessToken, selectedProfile } = await jsonOf<{ accessToken: string; selectedProfile: { id: string } }>(s);
          expect(selectedProfile.id).toBe(OFFLINE_UUID.Notch!.replaceAll('-', ''));
          return siteCertificates(certificatesUrl, accessToken);
        });
        expect(r.ended).toEqual(['multiplayer.disconnect.invalid_public_key_signature']);
      });

      it("authlib-injector's unsigned stand-in (signature AA==, used when the site offers no keys) is refused", async () => {
        const r = await chat(version, async (k) => ({
          ...k,
          signature: Buffer.from('AA==', 'base64'),
          signatureV2: Buffer.from('AA==', 'base64'),
        }));
        expect(r.ended).toEqual(['multiplayer.disconnect.invalid_public_key_signature']);
      });

      it('a message signed with another private key than the certified one is refused', async () => {
        const r = await chat(version, undefined, (client) => {
          client.profileKeys = { ...client.profileKeys, private: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey };
        });
        expect(r.keyed).toBe(true);
        expect(r.said).toBeUndefined();
        // 1.19.2 kicks; on 1.19.3+ the package's check raises an error instead (see testing/minecraft-protocol-keys.ts).
        if (version === '1.19.2') expect(r.ended).toEqual(['multiplayer.disconnect.unsigned_chat']);
        else expect(r.chatErrors.length).toBeGreaterThan(0);
      });
    });
  }

  it('Minecraft 1.19.2: without a key the server refuses the player (enforce-secure-profile)', async () => {
    const r = await chat('1.19.2', async () => null);
    expect(r.ended).toEqual(['multiplayer.disconnect.missing_public_key']);
  });

  it('Minecraft 1.19.2: a private key that does not match the certified one fails the proof at login', async () => {
    const r = await chat('1.19.2', async (k) => ({ ...k, private: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey }));
    expect(r.ended).toEqual(['multiplayer.disconnect.invalid_public_key_signature']);
  });

  it('Minecraft 1.19: the V1 signature is accepted at login, a tampered one refused', async () => {
    for (const [alter, expected] of [
      [undefined, null],
      [
        async (k: ProfileKeys) => ({ ...k, expiresOn: new Date(k.expiresOn.getTime() + 1) }),
        'multiplayer.disconnect.invalid_public_key_signature',
      ],
    ] as const) {
      const { server, port, ended } = await startServer('1.19');
      const client = join('1.19', port, alter);
      try {
        const outcome = await Promise.race([
          once(server, 'login').then(([p]) => (p as ServerClient).profileKeys),
          goneOf(client).then(() => null),
        ]);
        await settle();
        if (expected) expect(ended).toEqual([expected]);
        else {
          expect(outcome).toBeTruthy();
          expect(ended).toEqual([]);
        }
      } finally {
        client.end('done');
        server.close();
      }
    }
  });
});
