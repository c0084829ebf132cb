import net from 'node:net';
import { encodePacket, PacketReader, SERVERDATA_AUTH, SERVERDATA_AUTH_RESPONSE, SERVERDATA_EXECCOMMAND, SERVERDATA_RESPONSE_VALUE } from './packet.ts';

export interface TestRconOptions {
  password: string;
  /**
   * The answer to a command; null: never answer it (the connection then hangs, like a stuck
   * server thread, and answers nothing more). Default: Minecraft's answer to give.
   */
  handler?: (command: string) => string | null;
  /** Characters per answer packet; Minecraft uses 4096. */
  chunkSize?: number;
  /** Write every packet byte by byte, to exercise reassembly. */
  trickle?: boolean;
  /** Send Source's empty RESPONSE_VALUE before the auth answer. */
  sourceStyleAuth?: boolean;
  /** Stay silent on requests of unknown types (so the client gets no end-of-answer marker). */
  ignoreUnknownTypes?: boolean;
}

/** A game server's RCON side, written from the protocol, for tests: answers like Minecraft. */
export class TestRconServer {
  readonly commands: string[] = [];
  readonly logins: { ok: boolean }[] = [];
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(public options: TestRconOptions) {}

  /** Listens on 127.0.0.1; port 0 picks a free one, a given port lets a test restart the server. */
  async start(port = this.port): Promise<number> {
    const server = net.createServer((socket) => this.serve(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
    return this.port;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    const server = this.server;
    this.server = null;
    if (server) await new Promise((r) => server.close(() => r(null)));
  }

  private serve(socket: net.Socket): void {
    // Like a game server's RCON: answers go out at once, not after Nagle's 40 ms.
    socket.setNoDelay(true);
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
    const reader = new PacketReader();
    let authed = false;
    let hung = false;
    const send = async (id: number, type: number, body: string) => {
      const buf = encodePacket(id, type, body);
      if (!this.options.trickle) return void socket.write(buf);
      for (const byte of buf) {
        if (socket.destroyed) return;
        socket.write(Buffer.of(byte));
        await new Promise((r) => setImmediate(r));
      }
    };
    // Requests are answered strictly in order, as Minecraft's single RCON thread does.
    let queue = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      let packets;
      try {
        packets = reader.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const p of packets) {
        queue = queue.then(async () => {
          if (hung || socket.destroyed) return;
          if (p.type === SERVERDATA_AUTH) {
            authed = p.body === this.options.password;
            this.logins.push({ ok: authed });
            if (this.options.sourceStyleAuth) await send(p.id, SERVERDATA_RESPONSE_VALUE, '');
            await send(authed ? p.id : -1, SERVERDATA_AUTH_RESPONSE, '');
            return;
          }
          if (!authed) return void socket.destroy();
          if (p.type === SERVERDATA_EXECCOMMAND) {
            this.commands.push(p.body);
            const answer = this.options.handler ? this.options.handler(p.body) : defaultAnswer(p.body);
            if (answer === null) {
              hung = true;
              return;
            }
            const size = this.options.chunkSize ?? 4096;
            for (let i = 0; i === 0 || i < answer.length; i += size) await send(p.id, SERVERDATA_RESPONSE_VALUE, answer.slice(i, i + size));
            return;
          }
          if (!this.options.ignoreUnknownTypes) await send(p.id, SERVERDATA_RESPONSE_VALUE, `Unknown request ${p.type.toString(16)}`);
        });
      }
    });
  }
}

function defaultAnswer(command: string): string {
  const give = /^give (\S+) (\S+) (\d+)$/.exec(command);
  if (give) return `Gave ${give[3]} [${give[2]}] to ${give[1]}`;
  return 'Unknown or incomplete command, see below for error';
}
