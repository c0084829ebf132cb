import { readFileSync } from 'node:fs';
import net from 'node:net';

/**
 * Where freePort() looks: below the kernel's range for ephemeral ports (Linux:
 * ip_local_port_range, 32768–60999 by default). A port from that range, free a moment ago, can be
 * taken before the server that was meant to have it listens — by any outgoing connection's local
 * port (the tests open thousands, to PostgreSQL among others) or a listener on port 0. Below it,
 * only a port someone asked for by number can.
 */
function quietRange(): [number, number] | null {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return low > 12_000 ? [10_000, low - 1] : null;
  } catch {
    return null;
  }
}
const QUIET = quietRange();

function listenOnce(port: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(null) : reject(err)));
    srv.listen(port, '127.0.0.1', () => {
      const { port: bound } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(bound));
    });
  });
}

/** A loopback TCP port that was free a moment ago (for a server whose address must be known before it starts). */
export async function freePort(): Promise<number> {
  if (QUIET) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = await listenOnce(QUIET[0] + Math.floor(Math.random() * (QUIET[1] - QUIET[0] + 1)));
      if (port !== null) return port;
    }
  }
  return (await listenOnce(0))!;
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
