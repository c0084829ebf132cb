import { promises as dnsPromises, type SrvRecord } from 'node:dns';
import net from 'node:net';
import { domainToASCII } from 'node:url';
import { motdToPlain } from './motd.ts';
import { decodeVarInt, encodeString, encodeVarInt, packet, ProtocolError } from './varint.ts';

export const DEFAULT_PORT = 25565;
/** The whole status JSON is at most 32767 characters; anything much longer is not a Minecraft server. */
const MAX_PACKET = 256 * 1024;
const MAX_FAVICON = 64 * 1024;
/** -1: "whatever you speak"; servers answer the status request for any version. */
const STATUS_PROTOCOL = -1;
const LEGACY_PROTOCOL = 74;

export interface ServerStatus {
  online: number;
  max: number;
  /** false when the reply had no players field (some proxies hide it). */
  playersKnown: boolean;
  /**
   * Names from `players.sample` (vanilla sends up to 12 random players online; none with
   * `hide-online-players`). Entries that are not game names are dropped: players who turned off
   * «Allow Server Listings» come as "Anonymous Player" with the all-zero UUID, and plugins put
   * coloured text lines there.
   */
  sample: string[];
  version: string | null;
  protocol: number | null;
  /** Plain text: chat components flattened, § codes removed. */
  motd: string;
  /** `data:image/png;base64,…` or null. */
  favicon: string | null;
  latencyMs: number;
  /** Answered the 1.6 legacy ping (the modern handshake was refused). */
  legacy: boolean;
  /** Where the server was reached (after the SRV lookup). */
  address: { host: string; port: number };
}

export type StatusErrorCode = 'timeout' | 'aborted' | 'refused' | 'dns' | 'closed' | 'protocol' | 'network';

const ERROR_TEXT: Record<StatusErrorCode, string> = {
  timeout: 'Сервер не ответил вовремя',
  aborted: 'Проверка прервана',
  refused: 'Соединение отклонено: порт закрыт',
  dns: 'Адрес не найден',
  closed: 'Сервер закрыл соединение, не ответив',
  protocol: 'Сервер ответил не по протоколу Minecraft',
  network: 'Сетевая ошибка',
};

export class StatusError extends Error {
  constructor(
    readonly code: StatusErrorCode,
    detail?: string,
    /** The failure looks like a pre-1.7 server, which the legacy ping may reach. */
    readonly tryLegacy = false,
  ) {
    super(detail ? `${ERROR_TEXT[code]} (${detail})` : ERROR_TEXT[code]);
  }
}

export interface StatusOptions {
  host: string;
  /** Omitted: a host name is looked up as `_minecraft._tcp.<host>` first, then port 25565. */
  port?: number;
  /** One deadline for DNS, connect and reply together. */
  timeoutMs?: number;
  /** Stops the check early (the monitor stopping); it fails with code 'aborted'. */
  signal?: AbortSignal;
  /** For tests; the system resolver otherwise. */
  resolveSrv?: (name: string, timeoutMs: number) => Promise<SrvRecord[]>;
}

/** Asks a Minecraft Java server for its status: Server List Ping (1.7+), else the 1.6 legacy ping. */
export async function queryStatus(options: StatusOptions): Promise<ServerStatus> {
  const deadline = new Deadline(options.timeoutMs ?? 3000, options.signal);
  try {
    const target = await deadline.race(resolveTarget(options, deadline));
    try {
      return await modernPing(options.host, target, deadline);
    } catch (err) {
      // A 1.6 or older server kicks a modern handshake, or hangs up on it; ask it the old way.
      if (!(err instanceof StatusError) || !err.tryLegacy || deadline.signal.aborted) throw err;
      try {
        return await legacyPing(options.host, target, deadline);
      } catch {
        throw err;
      }
    }
  } finally {
    deadline.dispose();
  }
}

/** The check's time budget as an AbortSignal, plus an outside signal folded in. */
class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly end: number;
  private readonly onOuterAbort = () => this.controller.abort(new StatusError('aborted'));

  constructor(
    ms: number,
    private readonly outer?: AbortSignal,
  ) {
    this.end = Date.now() + ms;
    this.timer = setTimeout(() => this.controller.abort(new StatusError('timeout')), ms);
    if (outer?.aborted) this.onOuterAbort();
    else outer?.addEventListener('abort', this.onOuterAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  remaining(): number {
    return Math.max(0, this.end - Date.now());
  }

  error(): StatusError {
    const reason: unknown = this.signal.reason;
    return reason instanceof StatusError ? reason : new StatusError('timeout');
  }

  /** The promise's result, or the deadline's error as soon as it passes. */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.signal.aborted) {
      promise.catch(() => {});
      return Promise.reject(this.error());
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(this.error());
      this.signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (v) => {
          this.signal.removeEventListener('abort', onAbort);
          resolve(v);
        },
        (e: unknown) => {
          this.signal.removeEventListener('abort', onAbort);
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    });
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener('abort', this.onOuterAbort);
  }
}

function isLocalName(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost');
}

async function systemSrv(name: string, timeoutMs: number): Promise<SrvRecord[]> {
  const resolver = new dnsPromises.Resolver({ timeout: Math.max(1, timeoutMs), tries: 1 });
  const timer = setTimeout(() => resolver.cancel(), timeoutMs);
  try {
    return await resolver.resolveSrv(name);
  } finally {
    clearTimeout(timer);
  }
}

async function resolveTarget(options: StatusOptions, deadline: Deadline): Promise<{ host: string; port: number }> {
  const raw = options.host.trim().replace(/^\[(.*)\]$/, '$1');
  if (!raw) throw new StatusError('dns', 'пустой адрес');
  if (net.isIP(raw)) return { host: raw, port: options.port ?? DEFAULT_PORT };
  const host = domainToASCII(raw.replace(/\.$/, ''));
  if (!host) throw new StatusError('dns', 'некорректное имя');
  if (options.port !== undefined || isLocalName(host)) return { host, port: options.port ?? DEFAULT_PORT };
  const lookup = options.resolveSrv ?? systemSrv;
  try {
    const records = await lookup(`_minecraft._tcp.${host}`, deadline.remaining());
    const best = [...records].sort((a, b) => a.priority - b.priority || b.weight - a.weight)[0];
    if (best && best.name && best.port > 0) return { host: best.name.replace(/\.$/, ''), port: best.port };
  } catch {
    // No SRV record (the usual case) or a resolver failure: the plain address is still worth a try.
  }
  return { host, port: DEFAULT_PORT };
}

function socketError(err: NodeJS.ErrnoException): StatusError {
  switch (err.code) {
    case 'ECONNREFUSED':
      return new StatusError('refused');
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'ENODATA':
      return new StatusError('dns');
    case 'ECONNRESET':
    case 'EPIPE':
      return new StatusError('closed');
    default:
      return new StatusError('network', err.code);
  }
}

/**
 * One TCP exchange under the deadline. `onData` gets everything received so far and returns a
 * result when it has one; `onClose` decides what a closed connection means. The socket and every
 * listener are gone when the promise settles, whichever way.
 */
function exchange<T>(
  target: { host: string; port: number },
  deadline: Deadline,
  handlers: {
    greeting: () => Buffer;
    onData: (buf: Buffer, write: (b: Buffer) => void) => { done: T } | { consumed: number } | null;
    onClose: (received: number) => T | StatusError;
    onDeadline: () => T | StatusError;
  },
): Promise<T> {
  if (deadline.signal.aborted) return Promise.reject(deadline.error());
  return new Promise<T>((resolve, reject) => {
    const socket = net.connect({ host: target.host, port: target.port });
    let buf: Buffer = Buffer.alloc(0);
    let received = 0;
    let settled = false;
    const finish = (result: T | StatusError) => {
      if (settled) return;
      settled = true;
      deadline.signal.removeEventListener('abort', onAbort);
      socket.removeAllListeners();
      socket.on('error', () => {});
      socket.destroy();
      if (result instanceof StatusError) reject(result);
      else resolve(result);
    };
    const onAbort = () => {
      const reason = deadline.error();
      finish(reason.code === 'aborted' ? reason : handlers.onDeadline());
    };
    deadline.signal.addEventListener('abort', onAbort, { once: true });
    socket.setNoDelay(true);
    socket.once('connect', () => socket.write(handlers.greeting()));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
      try {
        for (;;) {
          const step = handlers.onData(buf, (b) => socket.write(b));
          if (!step) return;
          if ('done' in step) return finish(step.done);
          buf = buf.subarray(step.consumed);
        }
      } catch (err) {
        finish(err instanceof StatusError ? err : new StatusError('protocol', err instanceof ProtocolError ? err.message : undefined));
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) => finish(socketError(err)));
    socket.on('close', () => finish(handlers.onClose(received)));
  });
}

function parseStatusJson(text: string): Omit<ServerStatus, 'latencyMs' | 'legacy' | 'address'> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new ProtocolError('ответ не JSON');
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new ProtocolError('ответ не объект');
  const d = data as {
    version?: { name?: unknown; protocol?: unknown };
    players?: { online?: unknown; max?: unknown; sample?: unknown };
    description?: unknown;
    favicon?: unknown;
  };
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.min(Math.max(0, Math.trunc(v)), 10_000_000) : 0);
  const players = d.players && typeof d.players === 'object' ? d.players : null;
  const favicon =
    typeof d.favicon === 'string' && d.favicon.startsWith('data:image/png;base64,') && d.favicon.length <= MAX_FAVICON
      ? d.favicon.replace(/\s+/g, '')
      : null;
  return {
    online: count(players?.online),
    max: count(players?.max),
    playersKnown: players !== null,
    sample: sampleNames(players?.sample),
    version: typeof d.version?.name === 'string' ? motdToPlain(d.version.name, 255) || null : null,
    protocol: typeof d.version?.protocol === 'number' ? d.version.protocol : null,
    motd: motdToPlain(d.description),
    favicon,
  };
}

const GAME_NAME = /^[A-Za-z0-9_]{1,16}$/;
const NIL_UUID = /^0{8}-?0{4}-?0{4}-?0{4}-?0{12}$/;
const MAX_SAMPLE = 12;

function sampleNames(sample: unknown): string[] {
  if (!Array.isArray(sample)) return [];
  const names: string[] = [];
  for (const entry of sample.slice(0, 64)) {
    if (!entry || typeof entry !== 'object') continue;
    const { name, id } = entry as { name?: unknown; id?: unknown };
    if (typeof name !== 'string' || !GAME_NAME.test(name)) continue;
    if (typeof id === 'string' && NIL_UUID.test(id)) continue;
    if (!names.includes(name)) names.push(name);
    if (names.length === MAX_SAMPLE) break;
  }
  return names;
}

async function modernPing(originalHost: string, target: { host: string; port: number }, deadline: Deadline): Promise<ServerStatus> {
  let sentAt = 0;
  let status: ServerStatus | null = null;
  const handshakeHost = originalHost.trim().slice(0, 255) || target.host;
  const portBytes = Buffer.alloc(2);
  portBytes.writeUInt16BE(target.port);
  return exchange<ServerStatus>(target, deadline, {
    greeting: () => {
      sentAt = performance.now();
      return Buffer.concat([
        packet(0x00, encodeVarInt(STATUS_PROTOCOL), encodeString(handshakeHost), portBytes, encodeVarInt(1)),
        packet(0x00),
      ]);
    },
    onData: (buf, write) => {
      // A pre-1.7 server kicks an unknown packet: 0xFF, then a big-endian length whose high byte is
      // 0 for any short reason. As a VarInt, 0xFF 0x00 would be a padded encoding no server sends.
      if (!status && buf[0] === 0xff) {
        if (buf.length < 2) return null;
        if (buf[1] === 0x00) throw new StatusError('protocol', 'старый протокол', true);
      }
      const len = decodeVarInt(buf);
      if (!len) return null;
      if (len.value <= 0 || len.value > MAX_PACKET) throw new ProtocolError('недопустимая длина пакета');
      if (buf.length < len.size + len.value) return null;
      const body = buf.subarray(len.size, len.size + len.value);
      const id = decodeVarInt(body);
      if (!id) throw new ProtocolError('пакет без идентификатора');
      if (!status && id.value === 0x00) {
        const strLen = decodeVarInt(body, id.size);
        if (!strLen || strLen.value < 0 || id.size + strLen.size + strLen.value > body.length) throw new ProtocolError('обрезанная строка');
        const json = body.subarray(id.size + strLen.size, id.size + strLen.size + strLen.value).toString('utf8');
        status = { ...parseStatusJson(json), latencyMs: Math.round(performance.now() - sentAt), legacy: false, address: target };
        const payload = Buffer.alloc(8);
        payload.writeBigInt64BE(BigInt(Date.now()));
        sentAt = performance.now();
        write(packet(0x01, payload));
        return { consumed: len.size + len.value };
      }
      if (status && id.value === 0x01) return { done: { ...status, latencyMs: Math.round(performance.now() - sentAt) } };
      throw new ProtocolError(`неожиданный пакет ${id.value}`);
    },
    // The status is what we came for; a server that closes instead of answering the ping still answered.
    onClose: (received) =>
      status ?? (received > 0 ? new StatusError('protocol', 'обрыв пакета') : new StatusError('closed', undefined, true)),
    onDeadline: () => status ?? deadline.error(),
  });
}

function utf16be(s: string): Buffer {
  return Buffer.from(s, 'utf16le').swap16();
}

async function legacyPing(originalHost: string, target: { host: string; port: number }, deadline: Deadline): Promise<ServerStatus> {
  let sentAt = 0;
  const host = originalHost.trim().slice(0, 255) || target.host;
  const channel = utf16be('MC|PingHost');
  const hostBytes = utf16be(host);
  const head = Buffer.alloc(5);
  head.writeUInt8(0xfe, 0);
  head.writeUInt8(0x01, 1);
  head.writeUInt8(0xfa, 2);
  head.writeUInt16BE(channel.length / 2, 3);
  const rest = Buffer.alloc(5);
  rest.writeUInt16BE(7 + hostBytes.length, 0);
  rest.writeUInt8(LEGACY_PROTOCOL, 2);
  rest.writeUInt16BE(hostBytes.length / 2, 3);
  const portBytes = Buffer.alloc(4);
  portBytes.writeInt32BE(target.port);
  return exchange<ServerStatus>(target, deadline, {
    greeting: () => {
      sentAt = performance.now();
      return Buffer.concat([head, channel, rest, hostBytes, portBytes]);
    },
    onData: (buf) => {
      if (buf[0] !== 0xff) throw new ProtocolError('не ответ на старый пинг');
      if (buf.length < 3) return null;
      const chars = buf.readUInt16BE(1);
      if (buf.length < 3 + chars * 2) return null;
      const text = Buffer.from(buf.subarray(3, 3 + chars * 2))
        .swap16()
        .toString('utf16le');
      return { done: parseLegacy(text, Math.round(performance.now() - sentAt), target) };
    },
    onClose: () => new StatusError('closed'),
    onDeadline: () => deadline.error(),
  });
}

function parseLegacy(text: string, latencyMs: number, address: { host: string; port: number }): ServerStatus {
  const num = (s: string | undefined) => {
    const n = Number.parseInt(s ?? '', 10);
    return Number.isFinite(n) && n >= 0 ? Math.min(n, 10_000_000) : null;
  };
  let motd: string,
    online: number | null,
    max: number | null,
    version: string | null = null,
    protocol: number | null = null;
  if (text.startsWith('§1\u0000')) {
    // 1.4–1.6: §1 \0 protocol \0 version \0 motd \0 online \0 max
    const parts = text.split('\u0000');
    if (parts.length < 6) throw new ProtocolError('неполный ответ на старый пинг');
    protocol = num(parts[1]);
    version = parts[2] ? motdToPlain(parts[2], 255) || null : null;
    motd = parts[3] ?? '';
    online = num(parts[4]);
    max = num(parts[5]);
  } else {
    // Beta 1.8–1.3: motd § online § max
    const parts = text.split('§');
    if (parts.length < 3) throw new ProtocolError('неполный ответ на старый пинг');
    max = num(parts.pop());
    online = num(parts.pop());
    motd = parts.join('§');
  }
  if (online === null || max === null) throw new ProtocolError('нет числа игроков');
  return {
    online,
    max,
    playersKnown: true,
    sample: [],
    version,
    protocol,
    motd: motdToPlain(motd),
    favicon: null,
    latencyMs,
    legacy: true,
    address,
  };
}
