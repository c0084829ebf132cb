import net from 'node:net';

/**
 * A Minecraft Java server's status side as the vanilla server runs it (Varint21FrameDecoder,
 * FriendlyByteBuf, ServerStatusPacketListenerImpl; the protocol as wiki.vg describes Server List
 * Ping), for tests (the client's and the browser's). 'modern' speaks Server List Ping 1.7+,
 * 'legacy' is a 1.6 server (answers 0xFE, kicks anything else), 'silent' accepts and never
 * speaks, 'garbage' answers noise, 'close' hangs up at once. Its VarInt is its own, written from
 * the protocol, so a mistake in the site's client cannot hide behind the same mistake here.
 */
export type PeerMode = 'modern' | 'legacy' | 'silent' | 'garbage' | 'close';

export interface PeerOptions {
  mode?: PeerMode;
  /** The status JSON (modern), as an object or raw text. */
  status?: unknown;
  /** Legacy reply fields. */
  legacy?: { version: string; motd: string; online: number; max: number };
  pongDelayMs?: number;
  /** Never answer the ping (the status still comes). */
  noPong?: boolean;
  /** What 'garbage' answers; an HTTP error page by default. */
  garbage?: Buffer;
}

/** The peer was sent something the vanilla server would drop the connection for. */
class Corrupt extends Error {}

/**
 * FriendlyByteBuf.readVarInt: 7 bits a byte, the lowest group first, the high bit set on every
 * byte but the last; more than `maxBytes` bytes is "VarInt too big" (5 for a value; the frame
 * length in front of each packet may take only 3, "length wider than 21-bit"). Null while the
 * bytes have not all arrived.
 */
function readVarInt(buf: Buffer, offset: number, maxBytes = 5): { value: number; size: number } | null {
  let value = 0;
  for (let i = 0; i < maxBytes; i++) {
    if (offset + i >= buf.length) return null;
    const byte = buf[offset + i]!;
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return { value, size: i + 1 };
  }
  throw new Corrupt('VarInt too big');
}

/** A field read inside a packet that is already whole: running out of bytes is an error there. */
function field(body: Buffer, offset: number): { value: number; size: number } {
  const v = readVarInt(body, offset);
  if (!v) throw new Corrupt('packet cut short');
  return v;
}

/** FriendlyByteBuf.writeVarInt; a negative number takes all five bytes (two's complement). */
function writeVarInt(value: number): Buffer {
  const bytes: number[] = [];
  let v = value >>> 0;
  while (v >= 0x80) {
    bytes.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  bytes.push(v);
  return Buffer.from(bytes);
}

/** One packet on the wire (no compression in the status state): length, id, payload. */
function frame(id: number, payload: Buffer): Buffer {
  const body = Buffer.concat([writeVarInt(id), payload]);
  return Buffer.concat([writeVarInt(body.length), body]);
}

/** FriendlyByteBuf.writeUtf: the UTF-8 byte count as a VarInt, then the bytes. */
function utf(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([writeVarInt(bytes.length), bytes]);
}

export interface Handshake {
  protocol: number;
  host: string;
  port: number;
  nextState: number;
}

export function defaultStatus(online = 3, max = 20, motd: unknown = 'A Minecraft Server'): unknown {
  return { version: { name: '1.21.4', protocol: 769 }, players: { max, online, sample: [] }, description: motd, enforcesSecureChat: false };
}

export class StatusPeer {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  readonly handshakes: Handshake[] = [];
  readonly legacyPings: number[] = [];
  port = 0;

  constructor(public options: PeerOptions = {}) {
    this.server = net.createServer((socket) => this.accept(socket));
  }

  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  /** Connections the peer still holds open (a client that leaks sockets shows here). */
  get openConnections(): number {
    return this.sockets.size;
  }

  /** Waits until every client connection has gone (the client destroyed its socket). */
  async drained(timeoutMs = 2000): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    while (this.sockets.size > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    return this.sockets.size === 0;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
    const mode = this.options.mode ?? 'modern';
    if (mode === 'close') return void socket.destroy();
    if (mode === 'silent') return void socket.resume();
    let buf = Buffer.alloc(0);
    let state: 'handshake' | 'status' | 'ping' = 'handshake';
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (mode === 'garbage') {
        // What a player gets when the address points at a web server.
        socket.end(
          this.options.garbage ??
            'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 11\r\nConnection: close\r\n\r\nBad Request',
        );
        return;
      }
      if (mode === 'legacy') return this.legacy(socket, buf);
      try {
        for (;;) {
          const len = readVarInt(buf, 0, 3);
          if (!len || buf.length < len.size + len.value) return;
          const body = buf.subarray(len.size, len.size + len.value);
          buf = buf.subarray(len.size + len.value);
          const id = field(body, 0);
          let at = id.size;
          if (state === 'handshake' && id.value === 0) {
            // Handshake: protocol version, server address (a string of at most 255), port, next state.
            const protocol = field(body, at);
            at += protocol.size;
            const hostLen = field(body, at);
            at += hostLen.size;
            if (hostLen.value > 255 * 3 || at + hostLen.value + 2 > body.length) throw new Corrupt('bad handshake');
            const host = body.subarray(at, at + hostLen.value).toString('utf8');
            at += hostLen.value;
            const port = body.readUInt16BE(at);
            const nextState = field(body, at + 2).value;
            this.handshakes.push({ protocol: protocol.value, host, port, nextState });
            state = 'status';
          } else if (state === 'status' && id.value === 0) {
            // Status request, answered once; a second one is "Request already handled" (a disconnect).
            const status = this.options.status ?? defaultStatus();
            socket.write(frame(0x00, utf(typeof status === 'string' ? status : JSON.stringify(status))));
            state = 'ping';
          } else if ((state === 'status' || state === 'ping') && id.value === 1 && body.length - at >= 8) {
            // Ping request: the same 8 bytes go back, then the server closes the connection.
            if (this.options.noPong) return;
            const pong = frame(0x01, body.subarray(at, at + 8));
            const delay = this.options.pongDelayMs ?? 0;
            if (delay > 0) setTimeout(() => !socket.destroyed && socket.end(pong), delay).unref();
            else socket.end(pong);
            return;
          } else {
            socket.destroy();
            return;
          }
        }
      } catch (error) {
        if (!(error instanceof Corrupt)) throw error;
        socket.destroy();
      }
    });
  }

  private legacy(socket: net.Socket, buf: Buffer): void {
    if (buf[0] !== 0xfe) {
      // What a 1.6 server does with a packet it does not know before login.
      const reason = Buffer.from('Protocol error', 'utf16le').swap16();
      const head = Buffer.from([0xff, 0, 0]);
      head.writeUInt16BE(reason.length / 2, 1);
      socket.end(Buffer.concat([head, reason]));
      return;
    }
    if (buf.length < 3) return;
    this.legacyPings.push(buf[1]!);
    const l = this.options.legacy ?? { version: '1.6.4', motd: 'A Minecraft Server', online: 0, max: 20 };
    const text = ['§1', '78', l.version, l.motd, String(l.online), String(l.max)].join('\u0000');
    const body = Buffer.from(text, 'utf16le').swap16();
    const head = Buffer.from([0xff, 0, 0]);
    head.writeUInt16BE(body.length / 2, 1);
    socket.end(Buffer.concat([head, body]));
  }
}
