import net from 'node:net';

/** A loopback TCP port that was free a moment ago (for a server whose address must be known before it starts). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/**
 * A loopback port held open until release(): for a server that must know its address long before
 * it listens (a test site's PUBLIC_URL, seconds of migrations ahead). A port freePort() found can be
 * taken in between — by another test's listener or an outgoing connection's local port.
 */
export async function reservePort(): Promise<{ port: number; release: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      resolve({ port, release: () => new Promise<void>((done) => srv.close(() => done())) });
    });
    srv.on('error', reject);
  });
}
