import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';

/**
 * Debian's nginx (the `nginx-light` or `nginx` package, /usr/sbin/nginx; NGINX_BIN elsewhere) run
 * in the foreground as an unprivileged master of its own, with the site file of
 * deploy/nginx/kubik.conf: only the upstream ports, the listen ports, the certificate and the cache
 * and ACME paths are swapped for the caller's; everything else is the shipped file. Used by the
 * deployment test (apps/server/src/deploy/cluster.test.ts) and by `npm run bench:launch`.
 * The system's nginx, if any, is never touched: the packages are installed with a policy-rc.d
 * that keeps their service from starting (.ci/run).
 */

export const NGINX_BIN = process.env.NGINX_BIN ?? '/usr/sbin/nginx';

/** Why nginx cannot run here (with what to do), or null when it can. */
export function nginxMissing(): string | null {
  if (fs.existsSync(NGINX_BIN)) return null;
  return `${NGINX_BIN} is missing: install Debian's nginx (apt-get install nginx-light), as .ci/run does, or set NGINX_BIN`;
}

export interface SiteConfigOptions {
  /** The instances' ports on 127.0.0.1, one `server` line each in `upstream kubik`. */
  upstreams: number[];
  httpPort: number;
  httpsPort: number;
  cert: string;
  key: string;
  /** nginx's own directory (cache and ACME paths go under it). */
  dir: string;
}

/** The site file of deploy/, with these ports, certificate and paths; every swap must apply. */
export function siteConfig(source: string, o: SiteConfigOptions): string {
  let s = source;
  const swap = (re: RegExp, to: string | ((...m: string[]) => string), times: number) => {
    let n = 0;
    s = s.replace(re, (...m: string[]) => {
      n += 1;
      return typeof to === 'string' ? to : to(...m);
    });
    if (n !== times) throw new Error(`deploy/nginx/kubik.conf changed shape: ${re} matched ${n} times, expected ${times}`);
  };
  let first = true;
  swap(
    /^(\s*)server 127\.0\.0\.1:\d+ (.*);$/gm,
    (_m, indent, rest) => {
      if (!first) return '';
      first = false;
      return o.upstreams.map((p) => `${indent}server 127.0.0.1:${p} ${rest};`).join('\n');
    },
    3,
  );
  swap(/^(\s*)listen 80;$/m, `    listen 127.0.0.1:${o.httpPort};`, 1);
  swap(/^(\s*)listen 443 ssl http2;$/m, `    listen 127.0.0.1:${o.httpsPort} ssl http2;`, 1);
  swap(/^\s*listen \[::\]:\d+.*;$/gm, '', 2);
  swap(/ssl_certificate\s+\S+;/, `ssl_certificate ${o.cert};`, 1);
  swap(/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${o.key};`, 1);
  swap(/\/var\/cache\/nginx\/kubik/g, path.join(o.dir, 'cache'), 1);
  swap(/root \/var\/www\/letsencrypt;/g, `root ${path.join(o.dir, 'acme')};`, 1);
  return s;
}

/** A self-signed certificate for localhost (EC P-256, two days) by openssl, written into dir. */
export function selfSignedCertificate(dir: string): { cert: string; key: string } {
  fs.mkdirSync(dir, { recursive: true });
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

export interface NginxOptions {
  /** worker_processes: 1 (a test's own) or 'auto' (one per core, as Debian's nginx.conf has it). */
  workers?: number | 'auto';
  /** worker_connections: each client connection and each upstream connection takes one. */
  connections?: number;
}

export interface AccessEntry {
  status: number;
  /** The instances tried, in order ($upstream_addr), and what each answered. */
  upstreams: string[];
  upstreamStatuses: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One HTTPS GET to nginx (its certificate is self-signed): resolves with the status. */
function probe(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, method: 'GET', path: '/nginx-up', rejectUnauthorized: false, agent: false, timeout: 5000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/**
 * nginx in the foreground with a config of its own in dir (pid, logs, temp paths), the site file
 * included in its http block. The access log names each request's X-Test-Id, its status and the
 * instances tried (accessLog()).
 */
export class Nginx {
  private child: ChildProcess | null = null;
  readonly log: string[] = [];
  constructor(private readonly dir: string) {}

  async start(site: string, httpsPort: number, options: NginxOptions = {}): Promise<void> {
    const d = this.dir;
    for (const sub of ['tmp', 'cache', 'acme']) fs.mkdirSync(path.join(d, sub), { recursive: true });
    fs.writeFileSync(path.join(d, 'kubik.conf'), site);
    fs.writeFileSync(
      path.join(d, 'nginx.conf'),
      [
        'daemon off;',
        // As root nginx would hand its workers to "nobody", who cannot enter a private temp dir.
        process.getuid?.() === 0 ? 'user root;' : '',
        `worker_processes ${options.workers ?? 1};`,
        `pid ${d}/nginx.pid;`,
        `error_log ${d}/error.log warn;`,
        `events { worker_connections ${options.connections ?? 1024}; }`,
        'http {',
        '  include /etc/nginx/mime.types;',
        '  default_type application/octet-stream;',
        `  client_body_temp_path ${d}/tmp/body; proxy_temp_path ${d}/tmp/proxy; fastcgi_temp_path ${d}/tmp/fastcgi; uwsgi_temp_path ${d}/tmp/uwsgi; scgi_temp_path ${d}/tmp/scgi;`,
        // Which instance(s) served each request: a caller may tag its requests with X-Test-Id.
        `  log_format kubik_test '$http_x_test_id $status "$upstream_addr" "$upstream_status" $request_method $uri $remote_addr';`,
        `  access_log ${d}/access.log kubik_test;`,
        `  include ${d}/kubik.conf;`,
        '}',
        '',
      ].join('\n'),
    );
    // The generated config must pass nginx's own check first (its message is the caller's failure).
    execFileSync(NGINX_BIN, ['-t', '-q', '-p', d, '-e', `${d}/error.log`, '-c', `${d}/nginx.conf`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const child = spawn(NGINX_BIN, ['-p', d, '-e', `${d}/error.log`, '-c', `${d}/nginx.conf`], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stderr!.on('data', (c: Buffer) => this.log.push(c.toString()));
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`nginx exited: ${this.log.join('')} ${this.errors()}`);
      try {
        await probe(httpsPort);
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`nginx did not start: ${this.errors()}`);
        await sleep(100);
      }
    }
  }

  /** The master's process id while it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  errors(): string {
    try {
      return fs.readFileSync(path.join(this.dir, 'error.log'), 'utf8');
    } catch {
      return '';
    }
  }

  /** The access log: X-Test-Id → status and the upstreams tried, in order (requests without one are left out). */
  accessLog(): Map<string, AccessEntry> {
    const out = new Map<string, AccessEntry>();
    const file = path.join(this.dir, 'access.log');
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    for (const line of text.split('\n')) {
      const m = /^(\S+) (\d+) "([^"]*)" "([^"]*)"/.exec(line);
      if (!m || m[1] === '-') continue;
      out.set(m[1]!, { status: Number(m[2]), upstreams: m[3]!.split(/,\s*/).filter(Boolean), upstreamStatuses: m[4]!.split(/,\s*/) });
    }
    return out;
  }

  /** The client addresses nginx saw (and passed on as X-Forwarded-For and X-Real-IP) for method and path. */
  clientsOf(method: string, uri: string): Set<string> {
    const file = path.join(this.dir, 'access.log');
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    const out = new Set<string>();
    for (const line of text.split('\n')) {
      const m = / (\S+) (\S+) (\S+)$/.exec(line);
      if (m && m[1] === method && m[2] === uri) out.add(m[3]!);
    }
    return out;
  }

  /** Graceful stop (SIGQUIT: workers finish their requests), SIGKILL after 5 s. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGQUIT');
    const t = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(t);
  }
}
