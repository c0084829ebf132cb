import net from 'node:net';

/**
 * A TCP forwarder in front of a server (PostgreSQL in the fault tests), imitating what a site sees
 * when the network to its database fails or the database host goes away, as an outage looks from
 * a client socket (Linux TCP: RST on an open connection, ECONNREFUSED on a new one):
 * - cut(): every open connection is reset (the client's reads fail with ECONNRESET / "Connection
 *   terminated unexpectedly"), and the port refuses new ones (the listener closes).
 * - restore(): listens again on the same port; connections are forwarded as before.
 * Bytes pass through unchanged, so any protocol works over it (PostgreSQL's wire protocol here).
 */
export class TcpProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;
  /** Connections accepted so far (each forwarded to the target). */
  accepted = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(port = 0): Promise<number> {
    const server = net.createServer((client) => {
      this.accepted += 1;
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** Resets every open connection and refuses new ones until restore(). */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    const closed = server ? new Promise<void>((r) => server.close(() => r())) : Promise.resolve();
    for (const s of this.sockets) s.resetAndDestroy();
    this.sockets.clear();
    await closed;
  }

  /** Accepts connections on the same port again. */
  async restore(): Promise<void> {
    if (!this.server) await this.start(this.port);
  }

  async stop(): Promise<void> {
    await this.cut();
  }
}
