/**
 * A test double of a Source-engine RCON server (https://developer.valvesoftware.com/wiki/Source_RCON_Protocol),
 * kept for what Source servers do differently from Minecraft:
 *
 * - it parses a byte stream (any number of packets per read, packets split across reads);
 * - on login it first sends an empty SERVERDATA_RESPONSE_VALUE, then the AUTH_RESPONSE;
 * - it mirrors an empty SERVERDATA_RESPONSE_VALUE request back with the same id, followed by a
 *   second packet of that id whose body is 0x00 0x01 0x00 0x00 (the trick clients use to find the
 *   end of a long answer);
 * - long answers are split into packets of at most 4096 bytes (the size field's limit).
 */
import type net from 'node:net';
import { LocalTcpServer } from './local-server.ts';

const AUTH = 3;
const EXEC = 2;
const AUTH_RESPONSE = 2;
const RESPONSE_VALUE = 0;
const MAX_BODY = 4096 - 10;

function encode(id: number, type: number, body: Buffer): Buffer {
  const buf = Buffer.alloc(14 + body.length);
  buf.writeInt32LE(body.length + 10, 0);
  buf.writeInt32LE(id, 4);
  buf.writeInt32LE(type, 8);
  body.copy(buf, 12);
  return buf;
}

export interface SourceRconOptions {
  password: string;
  /** The answer to a command; default: an echo. */
  handler?: (command: string) => string;
  /** Write every packet byte by byte, to exercise reassembly. */
  trickle?: boolean;
}

export class SourceRconServer extends LocalTcpServer {
  readonly commands: string[] = [];
  readonly logins: { ok: boolean }[] = [];
  constructor(public options: SourceRconOptions) {
    super();
  }

  protected serve(socket: net.Socket): void {
    let pending = Buffer.alloc(0);
    let authed = false;
    let out = Promise.resolve();
    const send = (id: number, type: number, body: Buffer) => {
      const packet = encode(id, type, body);
      out = out.then(async () => {
        if (!this.options.trickle) return void socket.write(packet);
        for (const byte of packet) {
          if (socket.destroyed) return;
          socket.write(Buffer.of(byte));
          await new Promise((r) => setImmediate(r));
        }
      });
    };
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4) {
        const size = pending.readInt32LE(0);
        if (size < 10 || size > 4096) return void socket.destroy();
        if (pending.length < 4 + size) break;
        const id = pending.readInt32LE(4);
        const type = pending.readInt32LE(8);
        const body = pending.toString('utf8', 12, 4 + size - 2).replace(/\0+$/, '');
        pending = pending.subarray(4 + size);
        if (type === AUTH) {
          authed = body === this.options.password;
          this.logins.push({ ok: authed });
          send(id, RESPONSE_VALUE, Buffer.alloc(0));
          send(authed ? id : -1, AUTH_RESPONSE, Buffer.alloc(0));
        } else if (!authed) {
          socket.destroy();
          return;
        } else if (type === EXEC) {
          this.commands.push(body);
          const answer = Buffer.from(this.options.handler ? this.options.handler(body) : `echo: ${body}`, 'utf8');
          for (let i = 0; i === 0 || i < answer.length; i += MAX_BODY) send(id, RESPONSE_VALUE, answer.subarray(i, i + MAX_BODY));
        } else if (type === RESPONSE_VALUE) {
          send(id, RESPONSE_VALUE, Buffer.alloc(0));
          send(id, RESPONSE_VALUE, Buffer.from([0, 1, 0, 0]));
        }
      }
    });
  }
}
