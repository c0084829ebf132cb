import net from 'node:net';
import {
  ANSWER_PART_CHARS,
  encodePacket,
  MAX_REQUEST_BODY,
  PacketReader,
  SERVERDATA_AUTH,
  SERVERDATA_AUTH_RESPONSE,
  SERVERDATA_EXECCOMMAND,
  SERVERDATA_RESPONSE_VALUE,
  SOURCE_PART_BYTES,
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
 * connect: the server could not be reached, or closed the connection before the command went out
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

/**
 * A logged-in RCON connection that runs one command at a time, in the way a Minecraft server
 * (vanilla, CraftBukkit, Spigot, Paper) accepts it. Its RconClient thread reads each request
 * with a single read of at most 1460 bytes that must hold exactly one whole packet, or it closes
 * the connection without running anything. So this client writes every packet with a write of its
 * own and never writes a packet before the previous one has been answered (see
 * docs/decisions/011-rcon-client.md).
 */
export class RconClient {
  private readonly reader = new PacketReader();
  private listener: Listener | null = null;
  private onGone: ((err: Error) => void) | null = null;
  private gone: Error | null = null;
  private nextId = 1;
  private busy = false;

  private constructor(private readonly socket: net.Socket) {
    // Requests are written one at a time and each waits for its answer: Nagle would only delay them.
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
    if (Buffer.byteLength(options.password, 'utf8') > MAX_REQUEST_BODY)
      return Promise.reject(new RconError('auth', 'пароль RCON слишком длинный'));
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: options.host, port: options.port });
      const client = new RconClient(socket);
      const authId = client.id();
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
   * Runs a command and returns its whole answer. Minecraft writes a long answer in parts of 4096
   * characters; a shorter first part is the whole answer. Only when the first part is full does
   * the client write an end marker (an empty RESPONSE_VALUE), which the server reads after it has
   * written every part: Minecraft answers it "Unknown request 0", a Source server mirrors it.
   * Whatever is written is one packet per write, and the marker goes out only once the command has
   * been read (its first part has arrived), so the server never finds two packets in one read.
   */
  command(command: string, timeoutMs: number): Promise<string> {
    if (Buffer.byteLength(command, 'utf8') > MAX_REQUEST_BODY) return Promise.reject(new Error(`команда длиннее ${MAX_REQUEST_BODY} байт`));
    if (this.busy) return Promise.reject(new Error('RCON: одна команда за раз'));
    if (this.gone) return Promise.reject(new RconError('connect', describe(this.gone)));
    this.busy = true;
    return new Promise((resolve, reject) => {
      const id = this.id();
      let endId: number | null = null;
      const parts: Buffer[] = [];
      let settled = false;
      const finish = (err: Error | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.listener = null;
        this.onGone = null;
        this.busy = false;
        if (err) reject(err);
        else resolve(Buffer.concat(parts).toString('utf8'));
      };
      const noMore = (why: string) => {
        // The command ran (a part came) but the end never did: the answer so far is all there is,
        // and whatever the server says later would be taken for the next command's answer.
        if (parts.length > 0) finish(null);
        else finish(new RconError('noanswer', why));
        this.close();
      };
      const timer = setTimeout(() => noMore(`нет ответа на команду за ${timeoutMs} мс`), timeoutMs);
      this.onGone = (err) => noMore(describe(err));
      this.listener = (p) => {
        if (p.id === id && p.type === SERVERDATA_RESPONSE_VALUE) {
          parts.push(p.body);
          if (endId !== null) return;
          if (!mayContinue(p.body)) return finish(null);
          endId = this.id();
          this.socket.write(encodePacket(endId, SERVERDATA_RESPONSE_VALUE, ''));
        } else if (endId !== null && p.id === endId) {
          finish(null);
        } else if (p.id === -1 && p.type === SERVERDATA_AUTH_RESPONSE) {
          // Minecraft's answer to a command on a connection that is not logged in: nothing ran.
          finish(new RconError('auth', 'сервер не принял вход RCON'));
          this.close();
        }
      };
      this.socket.write(encodePacket(id, SERVERDATA_EXECCOMMAND, command));
    });
  }

  get closed(): boolean {
    return this.gone !== null;
  }

  close(): void {
    this.drop(new Error('соединение закрыто'));
  }

  private id(): number {
    const id = this.nextId;
    this.nextId = this.nextId >= 0x7fffffff ? 1 : this.nextId + 1;
    return id;
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

/** A part this long may be followed by more: Minecraft's 4096 characters, or a full Source packet. */
function mayContinue(body: Buffer): boolean {
  if (body.length >= SOURCE_PART_BYTES) return true;
  // Fewer bytes than characters is impossible, so a short body cannot hold 4096 characters.
  return body.length >= ANSWER_PART_CHARS && body.toString('utf8').length >= ANSWER_PART_CHARS;
}

/** The reason, in Russian, for the admin: what the socket error means for an owner. */
export function describe(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return 'соединение отклонено (сервер выключен или RCON не включён)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return 'адрес сервера не найден';
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'сервер недоступен';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'сервер разорвал соединение';
  return err.message;
}
