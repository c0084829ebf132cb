import http from 'node:http';
import https from 'node:https';

/**
 * The load's HTTP client for `npm run bench:launch` and its flood (flood-client.ts), giving each
 * request the client address the bench picks, in one of two ways:
 * - `forwarded`: the site itself listens (TRUST_PROXY=1, one hop believed); the address goes in
 *   X-Forwarded-For, as a proxy in front would write it.
 * - `source`: nginx listens (deploy/nginx/kubik.conf sets X-Forwarded-For and X-Real-IP to the
 *   socket's peer, $remote_addr, whatever the client sent); the request leaves from that very
 *   address. Linux routes all of 127.0.0.0/8 to the loopback device, so any 127.x.y.z can be
 *   bound as a local address without configuring it.
 * node:http rather than fetch: undici's fetch costs several times more CPU per request, and the
 * client shares the machine's two cores with the site.
 */
export type AddressMode = 'forwarded' | 'source';

export interface Answer {
  status: number;
  body: string;
  setCookie: string[];
}

export interface RequestOptions {
  /** The client address the site should see. */
  from: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** A connection of its own, closed after the answer (a newcomer's first visit); else kept alive. */
  fresh?: boolean;
  timeoutMs?: number;
}

export class LoadClient {
  private readonly base: URL;
  private readonly lib: typeof http | typeof https;
  private readonly agent: http.Agent;

  constructor(
    url: string,
    readonly mode: AddressMode,
  ) {
    this.base = new URL(url);
    this.lib = this.base.protocol === 'https:' ? https : http;
    // Agents keep a pool per local address too, so `source` requests from one address share theirs.
    // At most 32 connections an address (a browser opens six): when answers stall, an open loop
    // would otherwise open a connection (a TLS handshake behind nginx) for every request it sends,
    // and the bench's own handshakes would take the cores the site needs. A request waiting for a
    // connection still counts from its planned time.
    const pool = { keepAlive: true, maxSockets: 32, maxFreeSockets: 32 };
    this.agent = this.lib === https ? new https.Agent({ ...pool, rejectUnauthorized: false }) : new http.Agent(pool);
  }

  request(method: string, path: string, o: RequestOptions): Promise<Answer> {
    const payload = o.body === undefined ? undefined : Buffer.from(JSON.stringify(o.body));
    const headers: Record<string, string> = { ...o.headers };
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    if (this.mode === 'forwarded') headers['x-forwarded-for'] = o.from;
    const agent = o.fresh
      ? this.lib === https
        ? new https.Agent({ keepAlive: false, rejectUnauthorized: false })
        : new http.Agent({ keepAlive: false })
      : this.agent;
    return new Promise((resolve, reject) => {
      const req = this.lib.request(
        {
          host: this.base.hostname,
          port: this.base.port,
          method,
          path,
          headers,
          agent,
          ...(this.mode === 'source' && { localAddress: o.from }),
          timeout: o.timeoutMs ?? 30_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const cookies = res.headers['set-cookie'];
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), setCookie: cookies ?? [] });
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer in ${(o.timeoutMs ?? 30_000) / 1000} s`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** How an answer is counted: its status, with the site's error code when it gave one (`429 passwords_busy`). */
export function outcomeOf(answer: Answer | Error): string {
  if (answer instanceof Error) return `error ${answer.message}`;
  if (answer.status < 400) return String(answer.status);
  try {
    const code = (JSON.parse(answer.body) as { code?: unknown }).code;
    return typeof code === 'string' ? `${answer.status} ${code}` : String(answer.status);
  } catch {
    return String(answer.status);
  }
}
