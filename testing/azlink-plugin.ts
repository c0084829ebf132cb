/**
 * A double of Azuriom's AzLink plugin (github.com/Azuriom/AzLink, the `common` module) as it talks
 * to a site, written from its source:
 *
 * - HttpClient: every call goes to `<siteUrl>/api<endpoint>` with the headers `Accept:
 *   application/json`, `Azuriom-Link-Token: <key>`, `Content-Type: application/json; charset=utf-8`
 *   and `User-Agent: AzLink java v<version>`; 5 s to connect, 5 s to read; redirects are not
 *   followed (a 3xx is an error: "Unexpected redirect status"), a status ≥ 400 is an error
 *   ("Unexpected HTTP error <n>"); no retries. The body is Gson's: fields that are null are left out.
 * - `/azlink setup <url> <key>`: a final slash of the URL is dropped, then `GET /api/azlink` must
 *   answer below 300 (only the status is read).
 * - FetcherTask: `POST /api/azlink` with ServerData (platform, version, players, maxPlayers, full,
 *   and system/worlds on a full fetch: minute % 15 == 0 and none in the last 60 s), skipped when
 *   the previous fetch started less than 5 s ago. The answer's `commands` must be there (the plugin
 *   reads `getCommands().isEmpty()` and fails on a missing key); `users` may be. Each command runs
 *   on the console with `{player}` replaced by the online player's name (matched case-insensitively,
 *   else the key as given) and `{uuid}` by their UUID (`?` when not online). Nothing is acknowledged.
 * - HttpHandler (instant commands, port 25588 by default): `POST /` with `Authorization: <sha256
 *   hex of the key>` makes it fetch at once (200 "Status: OK"), a wrong one is 403, `GET /` is 200,
 *   another path 404, another method 405.
 *
 * It never imports the site's code.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export const AZLINK_CONNECT_TIMEOUT_MS = 5000;
export const AZLINK_READ_TIMEOUT_MS = 5000;
export const AZLINK_FETCH_SKIP_MS = 5000;
export const AZLINK_DEFAULT_HTTP_PORT = 25588;

export interface AzLinkPlayer {
  name: string;
  uuid: string;
}

export interface AzLinkPluginOptions {
  /** Bukkit, Paper… as PlatformType names it (BUKKIT, BUNGEE, SPONGE, VELOCITY, NUKKIT, HYTALE). */
  platformType?: string;
  platformName?: string;
  platformVersion?: string;
  pluginVersion?: string;
  maxPlayers?: number;
  /** The clock (tests move it past the 5 s skip). */
  now?: () => number;
  connectTimeoutMs?: number;
  readTimeoutMs?: number;
}

export interface AzLinkResponse {
  commands: Record<string, string[]>;
  users?: { id: number; name: string; money: number }[];
}

/** Java's UUID.nameUUIDFromBytes("OfflinePlayer:" + name): what an offline-mode server gives a player. */
export function offlinePlayerUuid(name: string): string {
  const b = createHash('md5').update(`OfflinePlayer:${name}`, 'utf8').digest();
  b[6] = (b[6]! & 0x0f) | 0x30;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Hash.SHA_256.hash(key): lowercase hex, as the instant-commands listener compares it. */
export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export class AzLinkError extends Error {}

export class AzLinkPlugin {
  siteUrl: string | null = null;
  siteKey: string | null = null;
  /** Online players, in join order. */
  readonly players: AzLinkPlayer[] = [];
  /** Every console command run, in order. */
  readonly console: string[] = [];
  /** The plugin's log lines ("Dispatching command for player …", errors). */
  readonly log: string[] = [];
  /** Readings a full fetch sends. */
  system = { ram: 512.5, cpu: 12.5 };
  worlds = { tps: 19.97, chunks: 420, entities: 1337 };
  private lastRequest = -Infinity;
  private lastFullDataSent = -Infinity;
  private listener: http.Server | null = null;
  private readonly now: () => number;

  constructor(private readonly options: AzLinkPluginOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  join(name: string, uuid = offlinePlayerUuid(name)): void {
    this.players.push({ name, uuid });
  }

  leave(name: string): void {
    const at = this.players.findIndex((p) => p.name.toLowerCase() === name.toLowerCase());
    if (at >= 0) this.players.splice(at, 1);
  }

  /** `/azlink setup <url> <key>`: stores them and checks the link with `GET /api/azlink`. */
  async setup(url: string, key: string): Promise<void> {
    this.siteUrl = url.endsWith('/') ? url.slice(0, -1) : url;
    this.siteKey = key;
    await this.verifyStatus();
  }

  /** `/azlink status`. */
  async verifyStatus(): Promise<void> {
    await this.request('GET', '/azlink', null);
  }

  /**
   * FetcherTask.fetch(): undefined when skipped (not set up, or within 5 s of the previous one).
   * `full`: force a full fetch (the plugin sends one at minutes divisible by 15).
   */
  async fetch(full?: boolean): Promise<AzLinkResponse | undefined> {
    const now = this.now();
    if (!this.siteUrl || !this.siteKey || this.lastRequest > now - AZLINK_FETCH_SKIP_MS) return undefined;
    this.lastRequest = now;
    const sendFull = full ?? (new Date(now).getMinutes() % 15 === 0 && this.lastFullDataSent < now - 60_000);
    const data = {
      platform: {
        type: this.options.platformType ?? 'BUKKIT',
        name: this.options.platformName ?? 'Paper',
        version: this.options.platformVersion ?? 'git-Paper-196 (MC: 1.20.1)',
      },
      version: this.options.pluginVersion ?? '1.3.7',
      players: this.players.map((p) => ({ name: p.name, uuid: p.uuid })),
      maxPlayers: this.options.maxPlayers ?? 100,
      // Gson leaves null fields out.
      ...(sendFull && { system: this.system, worlds: this.worlds }),
      full: sendFull,
    };
    const response = (await this.request('POST', '/azlink', data, true)) as AzLinkResponse;
    if (response.commands === undefined || response.commands === null)
      throw new AzLinkError('Cannot invoke "java.util.Map.isEmpty()" because the return value of "getCommands()" is null');
    if (Object.keys(response.commands).length > 0) {
      this.dispatch(response.commands);
      if (sendFull) this.lastFullDataSent = this.now();
    }
    return response;
  }

  /** FetcherTask.dispatchCommands. */
  private dispatch(commands: Record<string, string[]>): void {
    const online = new Map<string, AzLinkPlayer>();
    for (const p of this.players) if (!online.has(p.name.toLowerCase())) online.set(p.name.toLowerCase(), p);
    for (const [key, list] of Object.entries(commands)) {
      const player = online.get(key.toLowerCase());
      const name = player ? player.name : key;
      for (const template of list) {
        const command = template.replaceAll('{player}', name).replaceAll('{uuid}', player ? player.uuid : '?');
        this.log.push(`Dispatching command for player ${name}: ${command}`);
        this.console.push(command);
      }
    }
  }

  /** HttpClient.rawRequest. */
  private request(method: 'GET' | 'POST', endpoint: string, body: unknown, read = false): Promise<unknown> {
    if (!this.siteUrl || !this.siteKey) return Promise.reject(new AzLinkError('Not set up'));
    const url = new URL(`${this.siteUrl}/api${endpoint}`);
    const payload = body === null ? null : Buffer.from(JSON.stringify(body), 'utf8');
    const transport = url.protocol === 'https:' ? https : http;
    const connectMs = this.options.connectTimeoutMs ?? AZLINK_CONNECT_TIMEOUT_MS;
    const readMs = this.options.readTimeoutMs ?? AZLINK_READ_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const req = transport.request(url, {
        method,
        headers: {
          Accept: 'application/json',
          'Azuriom-Link-Token': this.siteKey!,
          'Content-Type': 'application/json; charset=utf-8',
          'User-Agent': `AzLink java v${this.options.pluginVersion ?? '1.3.7'}`,
          ...(payload && method !== 'GET' && { 'Content-Length': String(payload.length) }),
        },
      });
      let timer: NodeJS.Timeout = setTimeout(() => req.destroy(new AzLinkError('connect timed out')), connectMs);
      const reading = () => {
        clearTimeout(timer);
        timer = setTimeout(() => req.destroy(new AzLinkError('Read timed out')), readMs);
      };
      // A kept-alive socket is connected already: the read timeout starts at once.
      req.on('socket', (socket) => (socket.connecting ? socket.once('connect', reading) : reading()));
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          // Each read restarts Java's read timeout.
          clearTimeout(timer);
          timer = setTimeout(() => req.destroy(new AzLinkError('Read timed out')), readMs);
        });
        res.on('error', reject);
        res.on('end', () => {
          clearTimeout(timer);
          const status = res.statusCode ?? 0;
          if (status >= 400) {
            const info = status === 401 || status === 403 ? '. Try to do again the link command given on the admin panel.' : '';
            return reject(new AzLinkError(`Unexpected HTTP error ${status}${info}`));
          }
          if (status >= 300) return reject(new AzLinkError(`Unexpected redirect status - ${status}: ${res.headers.location}`));
          if (!read) return resolve(undefined);
          try {
            const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            if (parsed === null || typeof parsed !== 'object') throw new AzLinkError('Empty JSON response from API.');
            resolve(parsed);
          } catch (err) {
            reject(err instanceof AzLinkError ? err : new AzLinkError(`Malformed JSON: ${(err as Error).message}`));
          }
        });
      });
      if (payload && method !== 'GET') req.write(payload);
      req.end();
    });
  }

  /** The instant-commands listener (NettyHttpServer + HttpHandler); returns its port. */
  async listen(port = AZLINK_DEFAULT_HTTP_PORT, host = '127.0.0.1'): Promise<number> {
    const server = http.createServer((req, res) => {
      const answer = (status: number, text: string) => res.writeHead(status, { connection: 'close' }).end(text);
      req.resume();
      if (req.url !== '/') return answer(404, 'Error: Not Found');
      if (req.method === 'GET') return answer(200, 'Status: OK');
      if (req.method !== 'POST') return answer(405, 'Error: Method Not Allowed');
      if (!this.siteKey) return answer(503, 'Error: Invalid configuration');
      if (req.headers.authorization !== sha256Hex(this.siteKey)) return answer(403, 'Error: Invalid authorization');
      this.pings += 1;
      this.fetch().catch((err: unknown) => this.log.push(`Unable to send data to the website: ${(err as Error).message}`));
      answer(200, 'Status: OK');
    });
    await new Promise<void>((resolve) => server.listen(port, host, resolve));
    this.listener = server;
    return (server.address() as AddressInfo).port;
  }

  /** Accepted instant pings. */
  pings = 0;

  async close(): Promise<void> {
    const server = this.listener;
    this.listener = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
