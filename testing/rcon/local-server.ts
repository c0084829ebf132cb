import net from 'node:net';

/** A TCP server on 127.0.0.1 that tracks its connections, so that a test can stop (and restart) it like a game server. */
export abstract class LocalTcpServer {
  port = 0;
  private server: net.Server | null = null;
  protected readonly sockets = new Set<net.Socket>();

  protected abstract serve(socket: net.Socket): void;

  /** Listens on 127.0.0.1; port 0 picks a free one, a given port lets a test restart the server. */
  async start(port = this.port): Promise<number> {
    const server = net.createServer({ noDelay: false }, (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => {});
      this.serve(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** Closes every connection at once, as a crash or a restart of the game server would. */
  dropConnections(): void {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  async stop(): Promise<void> {
    this.dropConnections();
    const server = this.server;
    this.server = null;
    if (server) await new Promise((r) => server.close(() => r(null)));
  }
}
