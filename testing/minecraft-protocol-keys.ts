import type { KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Transform } from 'node:stream';
import type { ClientOptions, Client, createServer } from 'minecraft-protocol';

/**
 * Points minecraft-protocol's secure-chat checks at the site, where the package has no option:
 *
 * - Its online-mode server verifies players' key signatures (src/server/login.js and chat.js,
 *   SHA1withRSA over the V1/V2 payloads) with Mojang's public key, hard-coded in
 *   src/server/constants.js and read when those files load. A vanilla server started with
 *   `-Dminecraft.api.env=custom -Dminecraft.api.services.host=<site>/api/yggdrasil/minecraftservices`
 *   verifies with the key the site publishes at `publickeys` instead; `createServerTrusting` loads a
 *   second copy of the server's login and chat code with that key in place of Mojang's. Nothing
 *   in node_modules is changed and the package's own copy is left as it was.
 * - Its client fetches a certificate only for Microsoft accounts, through prismarine-auth
 *   (MinecraftJavaTokenManager.fetchCertificates, address hard-coded in its Constants);
 *   `siteCertificates` runs that very code with the address pointed at the site, and
 *   `authWithKeys` logs in with the package's own Yggdrasil login (src/client/mojangAuth.js) and
 *   hands the fetched keys to the client before it connects, as a launcher's game does at start.
 *
 * Two bugs of the package's server (1.54.0, still in 1.67.0) in the 1.19.3+ message check
 * (src/server/chat.js validateSession), which `watchChatChecks` works around for a test:
 * - it reads the chat session's id as `packet.sessionUuid`, but the packet's field is
 *   `sessionUUID` (minecraft-data), so every signed message fails with a TypeError before its
 *   signature is looked at — the alias is added before the package's own listener runs;
 * - a bad signature throws `VerificationError(...)` without `new`, a TypeError again, which goes
 *   to the connection's 'error' event instead of the intended kick
 *   (multiplayer.disconnect.chat_validation_failed) — `watchChatChecks` records those errors.
 * The key checks (login_start on 1.19–1.19.2, chat_session_update on 1.19.3+) and 1.19.1–1.19.2's
 * message check work as written.
 */

const fromProtocol = createRequire(createRequire(import.meta.url).resolve('minecraft-protocol'));

/** minecraft-data as minecraft-protocol loads it: the version's features and the login packet its examples send. */
export function protocolData(version: string): { loginPacket: Record<string, unknown>; supportFeature(name: string): boolean } {
  return (fromProtocol('minecraft-data') as (v: string) => ReturnType<typeof protocolData>)(version);
}

export function createServerTrusting(servicesKeyPem: string): typeof createServer {
  const files = ['./server/constants', './server/chat', './server/login', './createServer'].map((f) => fromProtocol.resolve(f));
  const cache = fromProtocol.cache;
  const saved = files.map((f) => cache[f]);
  for (const f of files) delete cache[f];
  try {
    const constants = fromProtocol(files[0]!) as { mojangPublicKeyPem: string };
    constants.mojangPublicKeyPem = servicesKeyPem;
    return fromProtocol(files[3]!) as typeof createServer;
  } finally {
    files.forEach((f, i) => {
      if (saved[i]) cache[f] = saved[i];
      else delete cache[f];
    });
  }
}

/** prismarine-auth's profile keys object, as minecraft-protocol's client uses it (client.profileKeys). */
export interface ProfileKeys {
  public: KeyObject;
  private: KeyObject;
  signature: Buffer;
  signatureV2: Buffer;
  expiresOn: Date;
  refreshAfter: Date;
}

export async function siteCertificates(certificatesUrl: string, accessToken: string): Promise<ProfileKeys> {
  const fromAuth = createRequire(fromProtocol.resolve('prismarine-auth'));
  const { Endpoints } = fromAuth('./src/common/Constants') as { Endpoints: Record<string, string> };
  const Manager = fromAuth('./src/TokenManagers/MinecraftJavaTokenManager') as new (cache: unknown) => {
    fetchCertificates(token: string): Promise<{ profileKeys: ProfileKeys }>;
  };
  const original = Endpoints.MinecraftServicesCertificate!;
  Endpoints.MinecraftServicesCertificate = certificatesUrl;
  try {
    return (await new Manager(null).fetchCertificates(accessToken)).profileKeys;
  } finally {
    Endpoints.MinecraftServicesCertificate = original;
  }
}

type ConnectingOptions = ClientOptions & { connect: (client: Client) => void };

/**
 * An `auth` for createClient: the package's Yggdrasil login against `authServer`, then the
 * certificate from the site (what `keys` returns for the access token; a test may alter it),
 * given to the client before it connects.
 */
export function authWithKeys(keys: (accessToken: string) => Promise<ProfileKeys | null>) {
  const mojangAuth = fromProtocol('./client/mojangAuth') as (client: Client, options: ClientOptions) => Promise<void>;
  return (client: Client, options: ClientOptions): void => {
    const opts = options as ConnectingOptions;
    const connect = opts.connect;
    opts.connect = (c: Client) => {
      const session = (c as Client & { session: { accessToken: string } }).session;
      keys(session.accessToken).then(
        (k) => {
          if (k) (c as Client & { profileKeys: ProfileKeys }).profileKeys = k;
          connect(c);
        },
        (err: unknown) => c.emit('error', err as Error),
      );
    };
    void mojangAuth(client, opts);
  };
}

/**
 * For a player on the server (its 'login' event): gives chat_session_update the field name the
 * package's message check reads, and collects the errors its message check raises.
 */
export function watchChatChecks(player: NodeJS.EventEmitter): { errors: unknown[] } {
  const errors: unknown[] = [];
  player.prependListener('chat_session_update', (packet: { sessionUUID?: string; sessionUuid?: string }) => {
    packet.sessionUuid ??= packet.sessionUUID;
  });
  player.on('error', (err: unknown) => errors.push(err));
  return { errors };
}

/**
 * The package's client reads a server's plain goodbye (a kick sent before the server turned
 * encryption on) through its own cipher, already on, and its frame splitter then throws from the
 * socket's data handler: an uncaught exception rather than the client's 'error' event. For a
 * client a test expects to be turned away mid-handshake, that throw becomes the error event.
 */
export function catchGarbledFrames(client: Client): void {
  const splitter = (client as unknown as { splitter: Transform }).splitter;
  const transform = splitter._transform.bind(splitter);
  splitter._transform = (chunk, encoding, done) => {
    try {
      transform(chunk, encoding, done);
    } catch (err) {
      done(err as Error);
    }
  };
}
