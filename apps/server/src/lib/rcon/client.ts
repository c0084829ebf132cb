import net from 'node:net';
import {
  encodePacket,
  MAX_REQUEST_BODY,
  PacketReader,
  SERVERDATA_AUTH,
  SERVERDATA_AUTH_RESPONSE,
  SERVERDATA_EXECCOMMAND,
  SERVERDATA_RESPONSE_VALUE,
  type Packet,
} from './packet.ts';

export interface RconOptions {
  host: string;
  port: number;
  password: string;
  /** Deadline for connecting and logging in, and for the answer to each command. */
  timeoutMs: number;
}

/**
 * connect: the server could not be reached or closed the connection before the command went out
 * (safe to retry); auth: the password was refused (safe to retry once fixed); noanswer: the command
 * was written but no answer came (it may have run — never resend blindly).
 */
export type RconErrorKind = 'connect' | 'auth' | 'noanswer';

export class RconError extends Error {
  constructor(
    readonly kind: RconErrorKind,
    message: string,
  ) {
    super(message);
  }
}

type Listener = (packet: Packet) => void;

/** A logged-in RCON connection that runs one command at a time. */
export class RconClient {
  private readonly reader = new PacketReader();
  private listener: Listener | null = null;
  private onGone: ((err: Error) => void) | null = null;
  private gone: Error | null = null;
  private nextId = 1;
  private busy = false;

  private constructor(private readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      let packets: Packet[];
      try {
        packets = this.reader.push(chunk);
      } catch (err) {
        this.drop(err as Error);
        return;
      }
      for (const p of packets) this.listener?.(p);
    });
    socket.on('error', (err) => this.drop(err));
    socket.on('close', () => this.drop(new Error('сервер закрыл соединение')));
  }

  /** Connects and logs in, all within options.timeoutMs. */
  static connect(options: RconOptions): Promise<RconClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: options.host, port: options.port });
      const client = new RconClient(socket);
      const authId = client.nextId++;
      let settled = false;
      const finish = (err: RconError | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        client.listener = null;
        client.onGone = null;
        if (err) {
          client.close();
          reject(err);
        } else resolve(client);
      };
      const timer = setTimeout(() => finish(new RconError('connect', `нет ответа за ${options.timeoutMs} мс`)), options.timeoutMs);
      client.onGone = (err) => finish(new RconError('connect', describe(err)));
      client.listener = (p) => {
        // Source servers send an empty RESPONSE_VALUE before the AUTH_RESPONSE; skip it.
        if (p.type !== SERVERDATA_AUTH_RESPONSE) return;
        if (p.id === -1) finish(new RconError('auth', 'неверный пароль RCON'));
        else if (p.id === authId) finish(null);
      };
      socket.once('connect', () => socket.write(encodePacket(authId, SERVERDATA_AUTH, options.password)));
    });
  }

  /**
   * Runs a command and returns its whole answer. A long answer comes in several packets; an empty
   * RESPONSE_VALUE sent right after the command marks its end, because the server answers requests
   * in order (Minecraft answers it with "Unknown request 0", Source mirrors it).
   */
  command(command: string, timeoutMs: number): Promise<string> {
    if (Buffer.byteLength(command, 'utf8') > MAX_REQUEST_BODY) return Promise.reject(new Error('команда длиннее 1400 байт'));
    if (this.busy) return Promise.reject(new Error('RCON: одна команда за раз'));
    if (this.gone) return Promise.reject(new RconError('connect', describe(this.gone)));
    this.busy = true;
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      const endId = this.nextId++;
      const parts: string[] = [];
      let settled = false;
      const finish = (err: Error | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.listener = null;
        this.onGone = null;
        this.busy = false;
        if (err) reject(err);
        else resolve(parts.join(''));
      };
      // Without the end marker (a server that ignores it) an answer that did come still counts.
      const noMore = (why: string) => {
        if (parts.length > 0) return finish(null);
        finish(new RconError('noanswer', why));
        // Whatever the server says later would be taken for the next command's answer.
        this.close();
      };
      const timer = setTimeout(() => noMore(`нет ответа на команду за ${timeoutMs} мс`), timeoutMs);
      this.onGone = (err) => noMore(describe(err));
      this.listener = (p) => {
        if (p.id === id && p.type === SERVERDATA_RESPONSE_VALUE) parts.push(p.body);
        else if (p.id === endId) finish(null);
      };
      this.socket.write(Buffer.concat([encodePacket(id, SERVERDATA_EXECCOMMAND, command), encodePacket(endId, SERVERDATA_RESPONSE_VALUE, '')]));
    });
  }

  get closed(): boolean {
    return this.gone !== null;
  }

  close(): void {
    this.drop(new Error('соединение закрыто'));
  }

  private drop(err: Error): void {
    if (this.gone) return;
    this.gone = err;
    this.socket.destroy();
    const onGone = this.onGone;
    this.onGone = null;
    onGone?.(err);
  }
}

function describe(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return 'соединение отклонено (сервер выключен или RCON не включён)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'адрес сервера не найден';
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'сервер недоступен';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'сервер разорвал соединение';
  return err.message;
}
