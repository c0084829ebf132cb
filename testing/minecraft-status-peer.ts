import net from 'node:net';
import { decodeVarInt, encodeString, packet } from '../apps/server/src/lib/minecraft/varint.ts';

/**
 * A Minecraft server's status side, written from the protocol, for tests (the client's and the
 * browser's). 'modern' speaks Server List Ping 1.7+, 'legacy' is a 1.6 server (answers 0xFE,
 * kicks anything else), 'silent' accepts and never speaks, 'garbage' answers noise, 'close'
 * hangs up at once.
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
      for (;;) {
        const len = decodeVarInt(buf);
        if (!len || buf.length < len.size + len.value) return;
        const body = buf.subarray(len.size, len.size + len.value);
        buf = buf.subarray(len.size + len.value);
        const id = decodeVarInt(body)!;
        let at = id.size;
        if (state === 'handshake' && id.value === 0) {
          const protocol = decodeVarInt(body, at)!;
          at += protocol.size;
          const hostLen = decodeVarInt(body, at)!;
          at += hostLen.size;
          const host = body.subarray(at, at + hostLen.value).toString('utf8');
          at += hostLen.value;
          const port = body.readUInt16BE(at);
          const nextState = decodeVarInt(body, at + 2)!.value;
          this.handshakes.push({ protocol: protocol.value, host, port, nextState });
          state = 'status';
        } else if (state === 'status' && id.value === 0) {
          const status = this.options.status ?? defaultStatus();
          socket.write(packet(0x00, encodeString(typeof status === 'string' ? status : JSON.stringify(status))));
          state = 'ping';
        } else if (state === 'ping' && id.value === 1) {
          if (this.options.noPong) return;
          const pong = packet(0x01, body.subarray(at, at + 8));
          const delay = this.options.pongDelayMs ?? 0;
          if (delay > 0) setTimeout(() => !socket.destroyed && socket.end(pong), delay).unref();
          else socket.end(pong);
        } else {
          socket.destroy();
          return;
        }
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
