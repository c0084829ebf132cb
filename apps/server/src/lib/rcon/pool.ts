import { RconClient } from './client.ts';

/** Where a game server's RCON listens, and its password. */
export interface RconAddress {
  host: string;
  port: number;
  password: string;
}

export interface RconPoolOptions {
  /** Connect-and-login deadline of a new connection. */
  timeoutMs: number;
  /** A connection not asked for during this long is closed (default 60 s)… */
  idleCloseMs?: number;
  /** …unless its server is still being worked on (a delivery lane that only paused). */
  inUse?: (serverId: number) => boolean;
}

interface Connection {
  client: RconClient;
  /** The address and password it was opened with: a change in the admin's form opens a new one. */
  key: string;
  idle: NodeJS.Timeout | null;
}

/**
 * One kept-open, logged-in RCON connection per game server. RCON runs one command at a time per
 * connection, so the caller must not use a server's connection from two places at once (the
 * delivery worker has one lane per server). A dropped connection, or one opened with an address
 * or password that has changed since, is replaced by a new one at the next get().
 */
export class RconPool {
  private readonly conns = new Map<number, Connection>();

  constructor(private readonly options: RconPoolOptions) {}

  /**
   * The server's open connection, or a new one. Throws the RconError of a failed connect or login
   * (`connect`: unreachable; `auth`: the password was refused) — nothing was sent either way.
   */
  async get(serverId: number, address: RconAddress): Promise<RconClient> {
    const key = `${address.host}\n${address.port}\n${address.password}`;
    const open = this.conns.get(serverId);
    if (open && open.key === key && !open.client.closed) {
      if (open.idle) clearTimeout(open.idle);
      open.idle = this.idleTimer(serverId);
      return open.client;
    }
    this.close(serverId);
    const { host, port, password } = address;
    const client = await RconClient.connect({ host, port, password, timeoutMs: this.options.timeoutMs });
    this.conns.set(serverId, { client, key, idle: this.idleTimer(serverId) });
    return client;
  }

  /** Closes the server's connection (after a failed command: its state is unknown, the next get() opens a new one). */
  close(serverId: number): void {
    const c = this.conns.get(serverId);
    if (!c) return;
    this.conns.delete(serverId);
    if (c.idle) clearTimeout(c.idle);
    c.client.close();
  }

  closeAll(): void {
    for (const id of [...this.conns.keys()]) this.close(id);
  }

  private idleTimer(serverId: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      if (!this.options.inUse?.(serverId)) this.close(serverId);
    }, this.options.idleCloseMs ?? 60_000);
    timer.unref();
    return timer;
  }
}
