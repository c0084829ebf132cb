/**
 * A test double of the RCON side of a Minecraft Java server, written from the server's own code:
 * `net.minecraft.server.rcon.thread.RconClient` and `PktUtils` (unchanged in what matters from 1.7
 * to 1.21, and kept by CraftBukkit, Spigot and Paper). It is as strict as the real thing:
 *
 * - One thread per connection reads with a single `read(buf, 0, 1460)` on a fresh
 *   BufferedInputStream. Whatever that read returns must be exactly one whole packet (its size
 *   field must equal the bytes read minus 4); anything else — two packets, half a packet, fewer
 *   than 10 bytes — closes the connection without running anything. Bytes that arrived while the
 *   thread was busy with the previous request are read together, as the kernel hands them over.
 * - Answers: auth → `AUTH_RESPONSE` with the request id, or id -1 when the password is wrong (or
 *   empty); a command before login → id -1 too; a command → its output in parts of 4096 Java
 *   characters, each part written with a write of its own, an empty output as one empty part;
 *   any other packet type → "Unknown request <hex type>".
 * - Nagle's algorithm is left on (the server never calls setTcpNoDelay).
 * - Commands run one at a time on the main thread (`executeBlocking`), so a slow tick delays
 *   every connection's answers; Paper answers an empty (blank) command with an empty part.
 *
 * The game behind it is a small imitation of vanilla commands (`give`, `list`, `say`, `kick`,
 * `ban`, `pardon`), with per-player online state, so the worker can be tested on what it must
 * survive: slow answers, silence, dropped connections, a wrong password, players who are not in
 * the game, and long answers.
 */
import type net from 'node:net';
import { LocalTcpServer } from './local-server.ts';

const SERVERDATA_AUTH = 3;
const SERVERDATA_EXECCOMMAND = 2;
const SERVERDATA_AUTH_RESPONSE = 2;
const SERVERDATA_RESPONSE_VALUE = 0;
/** PktUtils.MAX_PACKET_SIZE: the read buffer. */
const READ_BUFFER = 1460;
/** RconClient.sendCmdResponse splits at 4096 Java characters (UTF-16 code units). */
const PART_CHARS = 4096;

export type Drop = 'before' | 'after';

/** What a command does, decided by the test; undefined falls back to the imitation of vanilla. */
export interface CommandOutcome {
  /** The output; null: the server thread hangs and never answers (a stuck tick). */
  reply?: string | null;
  /** Wait this long before answering (a slow tick). */
  delayMs?: number;
  /** Close the connection before running the command (it never runs) or after running it without answering. */
  drop?: Drop;
}

export interface VanillaRconOptions {
  /** rcon.password; an empty one never lets anyone in, as in vanilla. */
  password: string;
  /** Players in the game (names compared ignoring case, as the game does). */
  online?: Iterable<string>;
  maxPlayers?: number;
  /** Decides a command's fate before the imitation runs; return undefined to let it run. */
  onCommand?: (command: string) => CommandOutcome | string | null | undefined | Promise<CommandOutcome | string | null | undefined>;
  /** Every answer waits this long (a loaded server). */
  delayMs?: number;
}

export interface ViolationRecord {
  /** Bytes the one read returned. */
  bytes: number;
  reason: string;
}

function encode(id: number, type: number, body: string): Buffer {
  // Java's String.getBytes(UTF_8) turns an unpaired surrogate into '?'; Buffer.from turns it into U+FFFD.
  const payload = Buffer.from(body.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '?'), 'utf8');
  const buf = Buffer.alloc(14 + payload.length);
  buf.writeInt32LE(payload.length + 10, 0);
  buf.writeInt32LE(id, 4);
  buf.writeInt32LE(type, 8);
  payload.copy(buf, 12);
  return buf;
}

/** PktUtils.stringFromByteArray: up to the first NUL, or up to the last byte read. */
function stringAt(buf: Buffer, offset: number, length: number): string {
  const last = length - 1;
  let end = Math.min(offset, last);
  while (end < last && buf[end] !== 0) end++;
  return buf.toString('utf8', offset, end);
}

function itemName(id: string): string {
  const path = id.includes(':') ? id.slice(id.indexOf(':') + 1) : id;
  return path
    .split(/[_/.]/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');
}

export class VanillaRconServer extends LocalTcpServer {
  /** Commands the game ran, in order. */
  readonly commands: string[] = [];
  readonly logins: { ok: boolean }[] = [];
  /** Connections closed because a read did not hold exactly one packet (a client that a real server would refuse). */
  readonly violations: ViolationRecord[] = [];
  /** Connections accepted so far. */
  connections = 0;
  readonly online = new Set<string>();
  readonly banned = new Set<string>();
  /** What `give` actually handed out, «player count item», in order: the game's side of exactly once. */
  readonly given: string[] = [];
  /** The main thread: commands of every connection run one after another. */
  private mainThread: Promise<unknown> = Promise.resolve();

  constructor(public options: VanillaRconOptions) {
    super();
    for (const name of options.online ?? []) this.online.add(name.toLowerCase());
  }

  join(...names: string[]): void {
    for (const n of names) this.online.add(n.toLowerCase());
  }

  leave(...names: string[]): void {
    for (const n of names) this.online.delete(n.toLowerCase());
  }

  protected serve(socket: net.Socket): void {
    this.connections++;
    socket.setNoDelay(false);
    // Bytes the kernel holds for the thread's next read.
    let received: Buffer[] = [];
    let wake: (() => void) | null = null;
    let closed = false;
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      const w = wake;
      wake = null;
      w?.();
    });
    socket.on('close', () => {
      closed = true;
      const w = wake;
      wake = null;
      w?.();
    });

    /** One blocking read: everything that has arrived (at least one chunk), of which 1460 bytes are kept. */
    const read = async (): Promise<Buffer | null> => {
      if (received.length === 0 && !closed) await new Promise<void>((r) => (wake = r));
      // Whatever else the kernel already has by the time the thread wakes up comes with it.
      await new Promise((r) => setImmediate(r));
      if (received.length === 0) return null;
      const all = Buffer.concat(received);
      received = [];
      return all.subarray(0, READ_BUFFER);
    };
    const send = (id: number, type: number, body: string) => {
      if (!socket.destroyed) socket.write(encode(id, type, body));
    };
    const sendCmdResponse = (id: number, message: string) => {
      let rest = message;
      do {
        const n = Math.min(rest.length, PART_CHARS);
        send(id, SERVERDATA_RESPONSE_VALUE, rest.slice(0, n));
        rest = rest.slice(n);
      } while (rest.length !== 0);
    };

    void (async () => {
      let authed = false;
      for (;;) {
        const buf = await read();
        if (!buf || socket.destroyed) return;
        const length = buf.length;
        if (length < 10) return this.violation(socket, length, 'fewer than 10 bytes in one read');
        const size = buf.readInt32LE(0);
        if (size !== length - 4) return this.violation(socket, length, `size field ${size}, read ${length} bytes`);
        const id = buf.readInt32LE(4);
        const type = buf.readInt32LE(8);
        if (type === SERVERDATA_EXECCOMMAND) {
          if (!authed) {
            send(-1, SERVERDATA_AUTH_RESPONSE, '');
            continue;
          }
          const command = stringAt(buf, 12, length);
          const answer = await this.run(command);
          if (answer.drop) return void socket.destroy();
          if (answer.reply === null) return; // the thread never comes back to this connection
          sendCmdResponse(id, answer.reply);
        } else if (type === SERVERDATA_AUTH) {
          const password = stringAt(buf, 12, length);
          authed = password !== '' && password === this.options.password;
          this.logins.push({ ok: authed });
          send(authed ? id : -1, SERVERDATA_AUTH_RESPONSE, '');
        } else {
          sendCmdResponse(id, `Unknown request ${(type >>> 0).toString(16)}`);
        }
      }
    })();
  }

  private violation(socket: net.Socket, bytes: number, reason: string): void {
    this.violations.push({ bytes, reason });
    socket.destroy();
  }

  /** Runs a command on the main thread: one at a time across connections. */
  private run(command: string): Promise<{ reply: string | null; drop?: Drop }> {
    const job = this.mainThread.then(async () => {
      let decided = await this.options.onCommand?.(command);
      if (typeof decided === 'string' || decided === null) decided = { reply: decided };
      const outcome: CommandOutcome = decided ?? {};
      if (outcome.drop === 'before') return { reply: null, drop: 'before' as const };
      const delay = outcome.delayMs ?? this.options.delayMs ?? 0;
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      this.commands.push(command);
      if (outcome.drop === 'after') return { reply: null, drop: 'after' as const };
      if (outcome.reply === null) return { reply: null };
      return { reply: outcome.reply ?? this.vanilla(command) };
    });
    // A hung command hangs the main thread for everyone, as a stuck tick does; tests that use
    // silence give each case a server of its own.
    this.mainThread = job.then(
      (r) => (r.reply === null && !r.drop ? new Promise(() => {}) : undefined),
      () => undefined,
    );
    return job;
  }

  /** A few vanilla commands, with vanilla's wording (1.20/1.21). */
  vanilla(command: string): string {
    // Paper: "Do not process empty rcon commands".
    if (command.trim() === '') return '';
    const words = command.replace(/^\//, '').split(' ');
    const [name, ...args] = words;
    const isOnline = (p: string) => this.online.has(p.toLowerCase());
    switch (name) {
      case 'give': {
        const [player, item, countText] = args;
        if (!player || !item) return 'Unknown or incomplete command, see below for error' + `${command}<--[HERE]`;
        if (!isOnline(player)) return 'No player was found';
        if (!/^(?:[a-z0-9_.-]+:)?[a-z0-9_./-]+(?:\{.*\})?$/.test(item)) return `Unknown item '${item}'`;
        const count = countText === undefined ? 1 : Number(countText);
        if (!Number.isInteger(count) || count < 1) return `Integer must not be less than 1, found ${countText}`;
        const label = itemName(item.replace(/\{.*$/, ''));
        if (count > 6400) return `Can't give more than 6400 of [${label}]`;
        this.given.push(`${player} ${count} ${item}`);
        return `Gave ${count} [${label}] to ${player}`;
      }
      case 'list': {
        const names = [...this.online];
        return `There are ${names.length} of a max of ${this.options.maxPlayers ?? 20} players online: ${names.join(', ')}`;
      }
      case 'say':
        return '';
      case 'kick': {
        const [player] = args;
        if (!player || !isOnline(player)) return 'No player was found';
        this.online.delete(player.toLowerCase());
        return `Kicked ${player}: Kicked by an operator`;
      }
      case 'ban': {
        const [player, ...reason] = args;
        if (!player) return 'Unknown or incomplete command, see below for error' + `${command}<--[HERE]`;
        if (this.banned.has(player.toLowerCase())) return 'Nothing changed. The player is already banned';
        this.banned.add(player.toLowerCase());
        this.online.delete(player.toLowerCase());
        return `Banned ${player}: ${reason.join(' ') || 'Banned by an operator.'}`;
      }
      case 'pardon': {
        const [player] = args;
        if (!player || !this.banned.delete(player.toLowerCase())) return "Nothing changed. The player isn't banned";
        return `Unbanned ${player}`;
      }
      default:
        return `Unknown or incomplete command, see below for error${command}<--[HERE]`;
    }
  }
}
