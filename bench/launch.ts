/**
 * npm run bench:launch — a launch day's crowd against the built site, started as production starts
 * it (the serve script's node flags and the units' environment, testing/serve-args.ts), rate limits
 * on, on a database seeded as for `npm run bench` (bench/seed.ts: 5,000 players, news, tiers,
 * items, servers). Every request carries the client address the bench picks: on SQLite one
 * instance believes one proxy hop (TRUST_PROXY=1) and reads it from X-Forwarded-For; with
 * DATABASE_URL, LAUNCH_INSTANCES instances on PostgreSQL sit behind Debian's nginx with the
 * shipped deploy/nginx/kubik.conf (testing/nginx.ts), which SETS X-Forwarded-For to the
 * connection's peer, so each request leaves from a loopback address of its own (127.x.y.z) and the
 * instances believe nginx (TRUST_PROXY=on, as the file's header says).
 *
 * Parts, each printed with its goal, PASS/FAIL and the load average:
 * 1. Burst: LAUNCH_BURST registrations sent within LAUNCH_BURST_MS, evenly spaced (an open loop:
 *    each leaves on schedule and its time counts from then), each from its own address on a
 *    connection of its own → none refused (every one 201), p99 ≤ 2 s.
 * 2. Steady: LAUNCH_STEADY registrations over LAUNCH_SECONDS, open loop, distinct addresses → none
 *    refused, p99 ≤ 1 s. During the same minute: public reads (news, donate tiers, servers, the
 *    index page) at LAUNCH_READS_PER_SEC, open loop → p99 ≤ 50 ms; LAUNCH_FLOOD_LOOPS loops of
 *    wrong-password logins to existing players (Player_101 … Player_4998) from ONE /24, rotating
 *    the last octet, in a process of its own at `nice -n LAUNCH_FLOOD_NICE` (bench/flood-client.ts:
 *    it stands in for a machine elsewhere, as in `npm run bench:flood`); and a known player
 *    (BenchPlayer, from browsers that logged in before: their kubik_device cookies) logging in
 *    every LAUNCH_LOGIN_EVERY_MS → its median < 2× its calm median, measured just before.
 *
 * Knobs (environment):
 *   LAUNCH_BURST=150            registrations in the burst
 *   LAUNCH_BURST_MS=1000        the burst's span
 *   LAUNCH_STEADY=1000          registrations in the steady part
 *   LAUNCH_SECONDS=60           the steady part's span
 *   LAUNCH_READS_PER_SEC=150    public reads during it (0: none)
 *   LAUNCH_FLOOD_LOOPS=32       loops of wrong logins during it (0: no flood)
 *   LAUNCH_FLOOD_NICE=19        the flood client's nice value (0: the site's priority)
 *   LAUNCH_LOGIN_EVERY_MS=2000  the known player's login interval during it
 *   LAUNCH_CALM_LOGINS=10       the known player's calm logins before it
 *   LAUNCH_CALM_READS_SECONDS=10  the public reads alone before it, for comparison (0: none)
 *   LAUNCH_PER_NETWORK=1        registrants sharing one /24 (1: each from a network of its own)
 *   LAUNCH_PARTS=burst,steady   the parts to run
 *   LAUNCH_LOG_LEVEL=info       the sites' LOG_LEVEL (the units' default; stdout drained as journald would)
 *   DATABASE_URL                PostgreSQL where a database may be created (and is dropped afterwards)
 *   LAUNCH_INSTANCES=3          instances behind nginx on PostgreSQL
 *   NGINX_BIN=/usr/sbin/nginx   Debian's nginx (apt-get install nginx-light)
 *
 * Beside each part, since the machine is shared and a part's figures mean little without knowing
 * what else ran: the sites' own time per request (their access lines), their event loop delay
 * (/metrics) and the bench's own, the CPU the sites, nginx, the flood and the bench used, how busy
 * the whole machine was (/proc/stat), how long the sites' main threads, their lowered pool threads
 * (the hashes) and the bench waited for a core (/proc/…/schedstat), and nginx's new error lines.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../apps/server/src/db/index.ts';
import { migrateToLatest } from '../apps/server/src/db/migrate.ts';
import { seed, type SeedResult } from './seed.ts';
import { LoadClient, outcomeOf, type AddressMode, type Answer } from './http-client.ts';
import { freePort } from '../testing/free-port.ts';
import { Nginx, nginxMissing, selfSignedCertificate, siteConfig } from '../testing/nginx.ts';
import { SERVE_ENV, serveArgs } from '../testing/serve-args.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const num = (name: string, fallback: number) => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(v) || v < 0) throw new Error(`${name} must be a number ≥ 0, not ${process.env[name]}`);
  return v;
};
const BURST = num('LAUNCH_BURST', 150);
const BURST_MS = num('LAUNCH_BURST_MS', 1000);
const STEADY = num('LAUNCH_STEADY', 1000);
const SECONDS = num('LAUNCH_SECONDS', 60);
const READS_PER_SEC = num('LAUNCH_READS_PER_SEC', 150);
const FLOOD_LOOPS = num('LAUNCH_FLOOD_LOOPS', 32);
const FLOOD_NICE = num('LAUNCH_FLOOD_NICE', 19);
const LOGIN_EVERY_MS = num('LAUNCH_LOGIN_EVERY_MS', 2000);
const CALM_LOGINS = Math.max(1, num('LAUNCH_CALM_LOGINS', 10));
const CALM_READS_SECONDS = num('LAUNCH_CALM_READS_SECONDS', 10);
const PER_NETWORK = Math.max(1, num('LAUNCH_PER_NETWORK', 1));
const INSTANCES = Math.max(1, num('LAUNCH_INSTANCES', 3));
const PARTS = (process.env.LAUNCH_PARTS ?? 'burst,steady').split(',').filter(Boolean);
const LOG_LEVEL = process.env.LAUNCH_LOG_LEVEL ?? 'info';
const DATABASE_URL = process.env.DATABASE_URL || undefined;

/** Goals of a launch day: a burst of newcomers, steady sign-ups, public reads beside them. */
const GOALS = { burstP99Ms: 2000, steadyP99Ms: 1000, readsP99Ms: 50, knownRatio: 2 };
/** The public reads, in turn. */
const READS = ['/api/tidings/news', '/api/donate/fully', '/api/servers/', '/'];
/** Seeded players the flood guesses at (bench/seed.ts: Player_101 … Player_4998; 4999 is the administrator). */
const FLOOD_NAMES = { prefix: 'Player_', first: 101, last: 4998 };
/** Per device a known browser may log in 10 times a window (2 × RATE_LIMIT_LOGIN_ACCOUNT); the bench keeps under it. */
const LOGINS_PER_DEVICE = 8;

/*
 * Addresses, all in 127.0.0.0/8 so that behind nginx they can be bound (Linux routes the whole /8
 * to the loopback device); on SQLite the same ones go in X-Forwarded-For.
 * - registrant network n (0 … 25,343): 127.(1 + n >> 8).(n & 255).x — LAUNCH_PER_NETWORK share one;
 * - the known player's browsers: 127.100.d.1;
 * - the public reads: 127.150.0.1 … 127.150.0.16;
 * - the flood: one /24, 127.200.0.1 … 127.200.0.254.
 */
const registrantAddress = (i: number) => {
  const n = Math.floor(i / PER_NETWORK);
  if (n >= 99 * 256) throw new Error('too many registrant networks for the 127.1–99.x.x plan');
  return `127.${1 + (n >> 8)}.${n & 255}.${(i % PER_NETWORK) + 10}`;
};
const deviceAddress = (d: number) => `127.100.${d % 250}.1`;
const readAddress = (i: number) => `127.150.0.${(i % 16) + 1}`;
const FLOOD_NETWORK = '127.200.0';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loadAverage = () => os.loadavg()[0]!.toFixed(1);

// ---------- figures ----------

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

interface Timed {
  outcome: string;
  /** From the planned send time to the whole answer (ms). */
  ms: number;
  /** How late the bench sent it (its own event loop's delay, ms). */
  lagMs: number;
  /** From the moment it was sent (ms): without the bench's own lateness. */
  sentMs: number;
}

interface Spread {
  n: number;
  p50: number;
  p99: number;
  max: number;
  outcomes: Record<string, number>;
  lagP99: number;
  lagMax: number;
  /** p99 counted from each request's actual sending. */
  sentP99: number;
}

function spread(rows: Timed[]): Spread {
  const ms = rows.map((r) => r.ms).sort((a, b) => a - b);
  const lag = rows.map((r) => r.lagMs).sort((a, b) => a - b);
  const sent = rows.map((r) => r.sentMs).sort((a, b) => a - b);
  const outcomes: Record<string, number> = {};
  for (const r of rows) outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
  return {
    n: rows.length,
    p50: percentile(ms, 0.5),
    p99: percentile(ms, 0.99),
    max: ms.at(-1) ?? NaN,
    outcomes,
    lagP99: percentile(lag, 0.99),
    lagMax: lag.at(-1) ?? NaN,
    sentP99: percentile(sent, 0.99),
  };
}

const f0 = (x: number) => (Number.isFinite(x) ? Math.round(x).toString() : '?');
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '?');
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

// ---------- processes and CPU ----------

/** CPU time of a process and all its descendants so far (user + system, ms), from /proc; 0 where there is none. */
function treeCpuMs(pid: number | undefined): number {
  if (!pid) return 0;
  const tick = 1000 / 100;
  let total = 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    total += (Number(fields[11]) + Number(fields[12])) * tick;
    for (const tid of readdirSync(`/proc/${pid}/task`))
      for (const child of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean))
        total += treeCpuMs(Number(child));
  } catch {
    // gone, or no /proc
  }
  return total;
}

/** Busy and total CPU time of the whole machine so far (ms, all cores), from /proc/stat. */
function machineCpuMs(): { busy: number; total: number } {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
    const idle = cpu[3]! + cpu[4]!;
    const total = cpu.slice(0, 8).reduce((s, x) => s + x, 0);
    return { busy: (total - idle) * 10, total: total * 10 };
  } catch {
    return { busy: 0, total: 0 };
  }
}

/** What a process's threads did so far (ms), from /proc/PID/task/TID/{stat,schedstat}. */
interface ThreadTimes {
  /** Runnable but waiting for a core (the scheduler's run queue): the main thread, and all threads. */
  mainWait: number;
  allWait: number;
  /** The threads below the main thread's priority (the site puts libuv's pool, where hashes run, at POOL_THREADS_NICE): their CPU and their run-queue wait. */
  lowCpu: number;
  lowWait: number;
}

const NO_TIMES: ThreadTimes = { mainWait: 0, allWait: 0, lowCpu: 0, lowWait: 0 };

/**
 * On a machine others keep busy, a run-queue wait is where an answer's time goes while the process
 * itself is idle; a thread at a nice above 0 waits behind every busier process at nice 0.
 */
function threadTimes(pid: number | undefined): ThreadTimes {
  const out = { ...NO_TIMES };
  if (!pid) return out;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const waited = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // After "tid (name) ": state is field 0, utime 11, stime 12, nice 16.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.allWait += waited;
      if (tid === String(pid)) out.mainWait += waited;
      else if (Number(fields[16]) > 0) {
        out.lowWait += waited;
        out.lowCpu += (Number(fields[11]) + Number(fields[12])) * 10;
      }
    }
  } catch {
    // gone, or no schedstat
  }
  return out;
}

const addTimes = (a: ThreadTimes, b: ThreadTimes): ThreadTimes => ({
  mainWait: a.mainWait + b.mainWait,
  allWait: a.allWait + b.allWait,
  lowCpu: a.lowCpu + b.lowCpu,
  lowWait: a.lowWait + b.lowWait,
});

/** A process of the site (or nginx, or the flood) with the last lines it printed, for a failure's message. */
interface Started {
  name: string;
  child: ChildProcess;
  lines: string[];
}

/** One access line of a site (LOG_LEVEL=info): Fastify's time from the request's arrival to its answer. */
interface SiteAnswer {
  at: number;
  method: string;
  url: string;
  status: number;
  ms: number;
}
const siteAnswers: SiteAnswer[] = [];
const ACCESS_LINE = /"method":"(\w+)","url":"([^"]*)","status":(\d+),"ms":([\d.]+)/;

function keepLines(started: Started, stream: NodeJS.ReadableStream | null, passWarnings: boolean): void {
  let partial = '';
  stream?.setEncoding('utf8');
  stream?.on('data', (text: string) => {
    const all = partial + text;
    const end = all.lastIndexOf('\n') + 1;
    partial = all.slice(end);
    for (const line of all.slice(0, end).split('\n')) {
      if (!line) continue;
      const access = passWarnings ? ACCESS_LINE.exec(line) : null;
      if (access) {
        siteAnswers.push({ at: performance.now(), method: access[1]!, url: access[2]!, status: Number(access[3]), ms: Number(access[4]) });
        continue;
      }
      started.lines.push(line);
      if (started.lines.length > 40) started.lines.shift();
      // Drained as journald would; warnings and errors still show.
      if (passWarnings && /^\{"level":[4-6]0/.test(line)) process.stderr.write(`[${started.name}] ${line}\n`);
    }
  });
}

async function stopProcess(p: Started, signal: NodeJS.Signals = 'SIGTERM', killAfterMs = 15_000): Promise<void> {
  const c = p.child;
  if (c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise((r) => c.once('exit', r));
  c.kill(signal);
  const t = setTimeout(() => c.kill('SIGKILL'), killAfterMs);
  await exited;
  clearTimeout(t);
}

// ---------- the run ----------

interface Target {
  /** Where the load goes: the one instance (SQLite) or nginx (PostgreSQL). */
  url: string;
  mode: AddressMode;
  label: string;
}

/** Sends count requests evenly over spanMs, each on schedule whatever the others do (an open loop). */
async function openLoop(count: number, spanMs: number, send: (i: number) => Promise<Answer | Error>): Promise<Timed[]> {
  const t0 = performance.now() + 5;
  const all: Promise<Timed>[] = [];
  for (let i = 0; i < count; i++) {
    const at = t0 + (count > 1 ? (i * spanMs) / count : 0);
    const wait = at - performance.now();
    if (wait >= 1) await sleep(wait);
    const sentAt = performance.now();
    const lagMs = Math.max(0, sentAt - at);
    all.push(
      send(i)
        .catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))))
        .then((answer) => ({ outcome: outcomeOf(answer), ms: performance.now() - at, lagMs, sentMs: performance.now() - sentAt })),
    );
  }
  return Promise.all(all);
}

/** The public reads in turn at READS_PER_SEC for spanMs, open loop. */
function readLoad(client: LoadClient, spanMs: number): Promise<Timed[]> {
  return openLoop(Math.round((READS_PER_SEC * spanMs) / 1000), spanMs, (i) =>
    client.request('GET', READS[i % READS.length]!, { from: readAddress(i), headers: { 'accept-encoding': 'gzip, br' } }),
  );
}

function registration(client: LoadClient, tag: string, i: number, address: string): Promise<Answer> {
  const username = `${tag}_${i}`;
  return client.request('POST', '/api/user/register', {
    from: address,
    fresh: true,
    headers: { 'accept-language': 'ru' },
    body: { username, email: `${username.toLowerCase()}@launch.test`, password: `start-${randomBytes(6).toString('hex')}` },
  });
}

interface Usage {
  sitesMs: number;
  nginxMs: number;
  floodMs: number;
  benchMs: number;
  machineBusyPct: number;
  wallMs: number;
  /** The sites' threads over the part, summed over the instances (ms). */
  sites: ThreadTimes;
  /** The bench's threads' run-queue wait over the part, and its event loop's longest delay (ms). */
  benchWaitMs: number;
  benchLoopMaxMs: number;
}

/** The bench's own event loop: how long its timers ran late (a blocked or starved client shows here). */
const benchLoop = monitorEventLoopDelay({ resolution: 10 });
benchLoop.enable();

class CpuMeter {
  private readonly start: {
    sites: number;
    nginx: number;
    bench: number;
    machine: { busy: number; total: number };
    at: number;
    threads: ThreadTimes;
    benchWait: number;
  };
  constructor(
    private readonly sites: () => number,
    private readonly nginx: () => number,
    private readonly sitePids: () => (number | undefined)[],
  ) {
    const u = process.cpuUsage();
    this.start = {
      sites: sites(),
      nginx: nginx(),
      bench: (u.user + u.system) / 1000,
      machine: machineCpuMs(),
      at: performance.now(),
      threads: this.siteThreads(),
      benchWait: threadTimes(process.pid).allWait,
    };
    benchLoop.reset();
  }

  private siteThreads(): ThreadTimes {
    return this.sitePids().map(threadTimes).reduce(addTimes, NO_TIMES);
  }

  read(floodMs = 0): Usage {
    const u = process.cpuUsage();
    const m = machineCpuMs();
    const total = m.total - this.start.machine.total;
    return {
      sitesMs: this.sites() - this.start.sites,
      nginxMs: this.nginx() - this.start.nginx,
      floodMs,
      benchMs: (u.user + u.system) / 1000 - this.start.bench,
      machineBusyPct: total > 0 ? (100 * (m.busy - this.start.machine.busy)) / total : NaN,
      wallMs: performance.now() - this.start.at,
      sites: (() => {
        const now = this.siteThreads();
        const then = this.start.threads;
        return {
          mainWait: now.mainWait - then.mainWait,
          allWait: now.allWait - then.allWait,
          lowCpu: now.lowCpu - then.lowCpu,
          lowWait: now.lowWait - then.lowWait,
        };
      })(),
      benchWaitMs: threadTimes(process.pid).allWait - this.start.benchWait,
      benchLoopMaxMs: benchLoop.max / 1e6,
    };
  }
}

function usageLine(u: Usage): string {
  const cores = (ms: number) => (ms / u.wallMs).toFixed(2);
  const others = (u.machineBusyPct / 100) * os.cpus().length - (u.sitesMs + u.nginxMs + u.floodMs + u.benchMs) / u.wallMs;
  return (
    `CPU in cores over ${(u.wallMs / 1000).toFixed(1)} s: sites ${cores(u.sitesMs)}, nginx ${cores(u.nginxMs)}, flood ${cores(u.floodMs)}, ` +
    `bench ${cores(u.benchMs)}; the machine ${f0(u.machineBusyPct)} % busy (${Math.max(0, others).toFixed(2)} cores by everything else: ` +
    `other helpers' work${DATABASE_URL ? ', PostgreSQL' : ''}). Waiting for a core (run queue), ms a second: ` +
    `the sites' main thread${DATABASE_URL ? 's' : ''} ${f0((1000 * u.sites.mainWait) / u.wallMs)}, their lowered pool threads (the hashes) ` +
    `${f0((1000 * u.sites.lowWait) / u.wallMs)} while they ran ${cores(u.sites.lowCpu)} cores, all their threads ${f0((1000 * u.sites.allWait) / u.wallMs)}; ` +
    `the bench ${f0((1000 * u.benchWaitMs) / u.wallMs)} (its event loop late by up to ${f0(u.benchLoopMaxMs)} ms)`
  );
}

/**
 * The sites' main-thread delay since the last call (prom-client's monitorEventLoopDelay, reset at
 * each scrape of /metrics, which each instance answers to this machine): the highest p99 and max
 * over the instances, ms.
 */
async function loopDelay(ports: number[]): Promise<{ p99: number; max: number }> {
  const p99s: number[] = [];
  const maxes: number[] = [];
  for (const port of ports) {
    const text = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(10_000) }).then(
      (r) => r.text(),
      () => '',
    );
    const read = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1]) * 1000;
    p99s.push(read('nodejs_eventloop_lag_p99_seconds'));
    maxes.push(read('nodejs_eventloop_lag_max_seconds'));
  }
  const highest = (xs: number[]) => (xs.every(Number.isFinite) ? Math.max(...xs) : NaN);
  return { p99: highest(p99s), max: highest(maxes) };
}

/** What the sites' access lines say of one kind of request since index `from`: p50, p99, max (ms) and count. */
function insideSites(from: number, method: string, url: string, status?: number): string {
  const ms = siteAnswers
    .slice(from)
    .filter((a) => a.method === method && a.url === url && (status === undefined || a.status === status))
    .map((a) => a.ms)
    .sort((a, b) => a - b);
  if (ms.length === 0) return `${method} ${url}: no access lines (LAUNCH_LOG_LEVEL=info shows them)`;
  return `${method} ${url}${status ? ` ${status}` : ''} ×${ms.length}: p50 ${f1(percentile(ms, 0.5))}, p99 ${f1(percentile(ms, 0.99))}, max ${f0(ms.at(-1)!)} ms`;
}

/** Public reads that were not answered from memory (each has an access line then), since `from`. */
function throughFastify(from: number): string {
  const ms = siteAnswers
    .slice(from)
    .filter((a) => a.method === 'GET' && READS.includes(a.url))
    .map((a) => a.ms)
    .sort((a, b) => a - b);
  return ms.length === 0
    ? 'every public read answered from memory'
    : `${ms.length} public reads through Fastify, p99 ${f1(percentile(ms, 0.99))} ms`;
}

/** nginx's error log lines (warn and above) not shown yet. */
let nginxErrorsShown = 0;
function newNginxErrors(nginx: Nginx | null): string[] {
  if (!nginx) return [];
  const lines = nginx.errors().split('\n').filter(Boolean);
  const fresh = lines.slice(nginxErrorsShown);
  nginxErrorsShown = lines.length;
  return fresh;
}

function reportNginxErrors(nginx: Nginx | null): void {
  const lines = newNginxErrors(nginx);
  if (lines.length === 0) return;
  console.log(`   nginx's error log, ${lines.length} new lines; the last ones:`);
  for (const line of lines.slice(-8)) console.log(`     ${line.slice(0, 300)}`);
}

/** The password checks the sites' access lines show since `from` (registrations made, logins answered 200 or 401), and the pool's CPU per check. */
function perCheck(from: number, u: Usage): string {
  const checks = siteAnswers
    .slice(from)
    .filter(
      (a) =>
        (a.url === '/api/user/register' && a.status === 201) || (a.url === '/api/user/login' && (a.status === 200 || a.status === 401)),
    ).length;
  return `${checks} password checks, ${checks ? f1(u.sites.lowCpu / checks) : '?'} ms of the pool's CPU each`;
}

interface Row {
  figure: string;
  value: string;
  goal: string;
  result: string;
  load_average: string;
}

const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

async function main(): Promise<void> {
  if (!existsSync(path.join(ROOT, 'apps/server/dist/main.js')))
    throw new Error('apps/server/dist/main.js is missing: run `npm run bench:launch`, which builds the site first');
  if (DATABASE_URL) {
    const missing = nginxMissing();
    if (missing) throw new Error(`three instances behind nginx need it: ${missing}`);
    if (spawnSync('openssl', ['version']).status !== 0)
      throw new Error('openssl is missing (apt-get install openssl): nginx needs a certificate');
  }
  if (FLOOD_LOOPS > 0 && FLOOD_NICE > 0 && spawnSync('nice', ['true']).status !== 0) throw new Error('`nice` is missing (coreutils)');

  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kubik-launch-'));
  const processes: Started[] = [];
  let nginx: Nginx | null = null;
  let flood: Started | null = null;
  let dropDatabase: (() => Promise<void>) | null = null;
  let cleaned: Promise<void> | null = null;
  const cleanup = () =>
    (cleaned ??= (async () => {
      if (flood) await stopProcess(flood, 'SIGKILL');
      await nginx?.stop();
      await Promise.all(processes.map((p) => stopProcess(p)));
      await dropDatabase?.().catch((err: unknown) => console.error(`could not drop the bench database: ${String(err)}`));
      rmSync(dataDir, { recursive: true, force: true });
    })());
  /** Before anything is started: once the cleanup has begun, nothing more may start. */
  const notStopping = () => {
    if (cleaned) throw new Error('stopped');
  };
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: stopping everything the bench started`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    // ---- the database, seeded ----
    let databaseUrl: string | undefined;
    if (DATABASE_URL) {
      const name = `kubik_launch_${process.pid}`;
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      try {
        await admin.connect();
      } catch (err) {
        throw new Error(`cannot reach PostgreSQL at DATABASE_URL (${DATABASE_URL}): ${(err as Error).message}`, { cause: err });
      }
      dropDatabase = async () => {
        const c = new pg.Client({ connectionString: DATABASE_URL });
        await c.connect();
        await c.query(`drop database if exists ${name} with (force)`);
        await c.end();
      };
      notStopping();
      await admin.query(`create database ${name}`);
      await admin.end();
      const u = new URL(DATABASE_URL);
      u.pathname = `/${name}`;
      databaseUrl = u.toString();
    }
    const handle = openDatabase({ databaseUrl, sqlitePath: path.join(dataDir, 'kubik.sqlite') });
    await migrateToLatest(handle);
    const seeded: SeedResult = await seed(handle);
    await handle.close();

    // ---- the site: one instance, or INSTANCES behind nginx ----
    const instances = databaseUrl ? INSTANCES : 1;
    const ports = await Promise.all(Array.from({ length: instances }, () => freePort()));
    const httpsPort = databaseUrl ? await freePort() : 0;
    const publicUrl = databaseUrl ? `https://127.0.0.1:${httpsPort}` : `http://127.0.0.1:${ports[0]}`;
    notStopping();
    for (const [i, port] of ports.entries()) {
      const child = spawn(process.execPath, serveArgs(), {
        cwd: ROOT,
        env: {
          ...process.env,
          ...SERVE_ENV,
          PORT: String(port),
          HOST: '127.0.0.1',
          DATA_DIR: dataDir,
          PUBLIC_URL: publicUrl,
          DATABASE_URL: databaseUrl ?? '',
          LOG_LEVEL,
          // Behind nginx: believe it (one hop), as deploy/nginx/kubik.conf's header says; alone: the
          // bench's X-Forwarded-For stands in for a proxy's.
          TRUST_PROXY: databaseUrl ? 'on' : '1',
          // Instances sharing this machine share its cores for password checks, as the deploy files say.
          PASSWORD_SLOTS: String(Math.max(1, Math.min(4, Math.floor(os.availableParallelism() / instances)))),
          RATE_LIMITS: 'on',
          SMTP_URL: '',
          // The seeded servers are not real game servers: nobody to check.
          MONITOR_INTERVAL_SEC: '86400',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const started: Started = { name: `site ${i + 1}`, child, lines: [] };
      keepLines(started, child.stdout, true);
      keepLines(started, child.stderr, false);
      processes.push(started);
    }
    await Promise.all(
      processes.map(async (p, i) => {
        const deadline = Date.now() + 90_000;
        for (;;) {
          if (p.child.exitCode !== null)
            throw new Error(`${p.name} exited with ${p.child.exitCode} before it was ready:\n${p.lines.slice(-15).join('\n')}`);
          const ok = await fetch(`http://127.0.0.1:${ports[i]}/readyz`, { signal: AbortSignal.timeout(5000) }).then(
            (r) => r.ok,
            () => false,
          );
          if (ok) return;
          if (Date.now() > deadline) throw new Error(`${p.name} not ready in 90 s:\n${p.lines.slice(-15).join('\n')}`);
          await sleep(100);
        }
      }),
    );
    let target: Target;
    if (databaseUrl) {
      const dir = path.join(dataDir, 'nginx');
      const { cert, key } = selfSignedCertificate(path.join(dataDir, 'tls'));
      const site = siteConfig(readFileSync(path.join(ROOT, 'deploy/nginx/kubik.conf'), 'utf8'), {
        upstreams: ports,
        httpPort: await freePort(),
        httpsPort,
        cert,
        key,
        dir,
      });
      notStopping();
      nginx = new Nginx(dir);
      // Debian's nginx.conf runs a worker per core; connections raised from its 768, which the
      // flood's kept-alive connections (one per address of its /24) and the crowd's would crowd.
      await nginx.start(site, httpsPort, { workers: 'auto', connections: 4096 });
      target = { url: publicUrl, mode: 'source', label: `PostgreSQL, ${instances} instances behind nginx (deploy/nginx/kubik.conf)` };
    } else {
      target = { url: publicUrl, mode: 'forwarded', label: 'SQLite, one instance' };
    }
    const sitesCpu = () => processes.reduce((s, p) => s + treeCpuMs(p.child.pid), 0);
    const nginxCpu = () => treeCpuMs(nginx?.pid);
    const sitePids = () => processes.map((p) => p.child.pid);
    const client = new LoadClient(target.url, target.mode);

    console.log(
      `Kubik launch day: ${target.label}; ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, ` +
        `Node ${process.version}; sites at LOG_LEVEL=${LOG_LEVEL}, rate limits on; load average ${os
          .loadavg()
          .map((x) => x.toFixed(1))
          .join(' ')}`,
    );

    // ---- the known player's browsers: each logged in once before (a kubik_device cookie) ----
    const { username, password } = seeded.player;
    const duringLogins = LOGIN_EVERY_MS > 0 ? Math.floor((SECONDS * 1000) / LOGIN_EVERY_MS) : 0;
    const devices: string[] = [];
    for (let d = 0; d < Math.ceil((CALM_LOGINS + duringLogins) / LOGINS_PER_DEVICE); d++) {
      const answer = await client.request('POST', '/api/user/login', { from: deviceAddress(d), body: { username, password } });
      const cookie = answer.setCookie.find((c) => c.startsWith('kubik_device='))?.split(';')[0];
      if (answer.status !== 200 || !cookie) throw new Error(`the known player's first login answered ${answer.status}: ${answer.body}`);
      devices.push(cookie);
    }
    let turn = 0;
    const knownLogin = async (): Promise<number> => {
      const d = turn++ % devices.length;
      const started = performance.now();
      const answer = await client.request('POST', '/api/user/login', {
        from: deviceAddress(d),
        headers: { cookie: devices[d]! },
        body: { username, password },
      });
      if (answer.status !== 200) throw new Error(`the known player's login answered ${outcomeOf(answer)}: ${answer.body}`);
      return performance.now() - started;
    };

    const rows: Row[] = [];

    // ---- 1. the burst ----
    if (PARTS.includes('burst') && BURST > 0) {
      const meter = new CpuMeter(sitesCpu, nginxCpu, sitePids);
      const from = siteAnswers.length;
      await loopDelay(ports);
      const timed = await openLoop(BURST, BURST_MS, (i) => registration(client, 'Burst', i, registrantAddress(i)));
      const usage = meter.read();
      const delay = await loopDelay(ports);
      await sleep(200);
      const s = spread(timed);
      const refused = s.n - (s.outcomes['201'] ?? 0);
      console.log(
        `\n1. Burst: ${BURST} registrations within ${BURST_MS} ms from ${Math.ceil(BURST / PER_NETWORK)} networks: ${JSON.stringify(s.outcomes)}; ` +
          `p50 ${f0(s.p50)} ms, p99 ${f0(s.p99)} ms, max ${f0(s.max)} ms (the bench sent them up to ${f1(s.lagMax)} ms late; p99 from sending ${f0(s.sentP99)} ms); load average ${loadAverage()}`,
      );
      console.log(
        `   inside the sites: ${insideSites(from, 'POST', '/api/user/register')}; event loop delay p99 ${f0(delay.p99)} ms, max ${f0(delay.max)} ms`,
      );
      if (nginx) {
        // nginx sets X-Forwarded-For to the connection's peer: the crowd must reach it from as many addresses as it has.
        const seen = nginx.clientsOf('POST', '/api/user/register').size;
        console.log(`   nginx saw the registrations come from ${seen} addresses`);
        if (seen !== BURST)
          throw new Error(`nginx saw ${seen} client addresses for ${BURST} registrations: the addresses did not reach it`);
      }
      console.log(`   ${usageLine(usage)}; ${perCheck(from, usage)}`);
      reportNginxErrors(nginx);
      rows.push(
        { figure: 'burst: refused', value: String(refused), goal: '0', result: verdict(refused === 0), load_average: loadAverage() },
        {
          figure: 'burst: p99',
          value: `${f0(s.p99)} ms (p50 ${f0(s.p50)}, max ${f0(s.max)})`,
          goal: `≤ ${GOALS.burstP99Ms} ms`,
          result: verdict(s.p99 <= GOALS.burstP99Ms),
          load_average: loadAverage(),
        },
      );
      // The burst's letters written and its sessions' writes done before the calm logins.
      await sleep(3000);
    }

    // ---- 2. the steady minute ----
    if (PARTS.includes('steady')) {
      const calm: number[] = [];
      const calmFrom = siteAnswers.length;
      for (let i = 0; i < CALM_LOGINS; i++) {
        calm.push(await knownLogin());
        await sleep(200);
      }
      const calmMedian = median(calm);
      // The same reads alone first: what this machine gives them now, with nothing else of the bench running.
      const alone = CALM_READS_SECONDS > 0 && READS_PER_SEC > 0 ? spread(await readLoad(client, CALM_READS_SECONDS * 1000)) : null;
      await sleep(200);
      const calmInside = insideSites(calmFrom, 'POST', '/api/user/login', 200);
      console.log(
        `\n2. Steady. The known player's calm logins: median ${f1(calmMedian)} ms (${calm.map((x) => x.toFixed(0)).join(', ')}); inside the sites: ${calmInside}; load average ${loadAverage()}`,
      );
      if (alone)
        console.log(
          `   public reads alone, ${CALM_READS_SECONDS} s at ${READS_PER_SEC}/s: ${JSON.stringify(alone.outcomes)}; p50 ${f1(alone.p50)} ms, p99 ${f1(alone.p99)} ms, ` +
            `max ${f0(alone.max)} ms (sent up to ${f1(alone.lagMax)} ms late; p99 from sending ${f1(alone.sentP99)} ms); load average ${loadAverage()}`,
        );

      const meter = new CpuMeter(sitesCpu, nginxCpu, sitePids);
      const from = siteAnswers.length;
      await loopDelay(ports);
      let floodCpuMs = 0;
      let floodOutcomes: Record<string, number> | null = null;
      let floodExited: Promise<number | null> = Promise.resolve(0);
      let floodOut = '';
      const floodStarted = performance.now();
      if (FLOOD_LOOPS > 0) {
        const args = [
          process.execPath,
          '--import',
          'tsx',
          path.join(import.meta.dirname, 'flood-client.ts'),
          target.url,
          'login',
          String(FLOOD_LOOPS),
          FLOOD_NETWORK,
          target.mode,
          FLOOD_NAMES.prefix,
          `${FLOOD_NAMES.first}-${FLOOD_NAMES.last}`,
        ];
        const [command, ...rest] = FLOOD_NICE > 0 ? ['nice', '-n', String(FLOOD_NICE), ...args] : args;
        notStopping();
        // stdin a pipe: the client ends when it closes, should this process die without stopping it.
        const child = spawn(command!, rest, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
        flood = { name: 'flood', child, lines: [] };
        child.stdout.on('data', (d: Buffer) => (floodOut += d.toString()));
        keepLines(flood, child.stderr, false);
        floodExited = new Promise((r) => child.once('exit', r));
        // The flood up to speed (its process started, its loops running) before the minute begins.
        await sleep(1500);
        if (child.exitCode !== null) throw new Error(`the flood client stopped at once:\n${flood.lines.join('\n')}`);
      }

      const spanMs = SECONDS * 1000;
      const knownTimes: number[] = [];
      const knownFailures: string[] = [];
      const [registrations, reads] = await Promise.all([
        openLoop(STEADY, spanMs, (i) => registration(client, 'Steady', i, registrantAddress(BURST + i))),
        readLoad(client, spanMs),
        (async () => {
          for (let i = 0; i < duringLogins; i++) {
            const next = sleep(LOGIN_EVERY_MS);
            try {
              knownTimes.push(await knownLogin());
            } catch (err) {
              knownFailures.push((err as Error).message);
            }
            await next;
          }
        })(),
      ]);
      if (flood) {
        floodCpuMs = treeCpuMs(flood.child.pid);
        flood.child.kill('SIGTERM');
        const code = await floodExited;
        if (code !== 0) throw new Error(`the flood client failed (${code}):\n${flood.lines.join('\n')}`);
        floodOutcomes = JSON.parse(floodOut) as Record<string, number>;
        flood = null;
      }
      const floodSeconds = (performance.now() - floodStarted) / 1000;
      const usage = meter.read(floodCpuMs);
      const delay = await loopDelay(ports);
      await sleep(200);

      const r = spread(registrations);
      const refused = r.n - (r.outcomes['201'] ?? 0);
      const rd = spread(reads);
      const readsByPath = READS.map((p, k) => ({ p, s: spread(reads.filter((_, i) => i % READS.length === k)) }));
      const knownMedian = median(knownTimes);
      const ratio = knownMedian / calmMedian;
      const floodTotal = Object.values(floodOutcomes ?? {}).reduce((a, b) => a + b, 0);
      console.log(
        `   registrations: ${STEADY} over ${SECONDS} s: ${JSON.stringify(r.outcomes)}; p50 ${f0(r.p50)} ms, p99 ${f0(r.p99)} ms, max ${f0(r.max)} ms ` +
          `(sent up to ${f1(r.lagMax)} ms late; p99 from sending ${f0(r.sentP99)} ms)`,
      );
      console.log(
        `   public reads: ${rd.n} at ${READS_PER_SEC}/s: ${JSON.stringify(rd.outcomes)}; p50 ${f1(rd.p50)} ms, p99 ${f1(rd.p99)} ms, max ${f0(rd.max)} ms ` +
          `(${readsByPath.map((x) => `${x.p} p99 ${f1(x.s.p99)}`).join(', ')}; sent up to ${f1(rd.lagMax)} ms late; p99 from sending ${f1(rd.sentP99)} ms)`,
      );
      if (floodOutcomes)
        console.log(
          `   the flood: ${FLOOD_LOOPS} loops of wrong logins from ${FLOOD_NETWORK}.0/24 at nice ${FLOOD_NICE}: ${floodTotal} in ${f1(floodSeconds)} s ` +
            `(${f0(floodTotal / floodSeconds)}/s): ${JSON.stringify(floodOutcomes)}`,
        );
      console.log(
        `   the known player: ${knownTimes.length} logins every ${LOGIN_EVERY_MS} ms from ${devices.length} known browsers: median ${f1(knownMedian)} ms = ` +
          `${ratio.toFixed(2)}× calm (p90 ${f1(
            percentile(
              [...knownTimes].sort((a, b) => a - b),
              0.9,
            ),
          )} ms, max ${f1(Math.max(...knownTimes))} ms)` +
          (knownFailures.length ? `; FAILED ${knownFailures.length}: ${knownFailures[0]}` : ''),
      );
      console.log(
        `   inside the sites: ${insideSites(from, 'POST', '/api/user/register')}; ${insideSites(from, 'POST', '/api/user/login', 200)} (the known player); ` +
          `${throughFastify(from)}; ` +
          `${insideSites(from, 'POST', '/api/user/login', 401)} (the flood's, each held to the 250 ms floor of a failed login); ` +
          `event loop delay p99 ${f0(delay.p99)} ms, max ${f0(delay.max)} ms`,
      );
      console.log(`   ${usageLine(usage)}; ${perCheck(from, usage)}; load average ${loadAverage()}`);
      reportNginxErrors(nginx);
      if (STEADY > 0)
        rows.push(
          { figure: 'steady: refused', value: String(refused), goal: '0', result: verdict(refused === 0), load_average: loadAverage() },
          {
            figure: 'steady: registration p99',
            value: `${f0(r.p99)} ms (p50 ${f0(r.p50)}, max ${f0(r.max)})`,
            goal: `≤ ${GOALS.steadyP99Ms} ms`,
            result: verdict(r.p99 <= GOALS.steadyP99Ms),
            load_average: loadAverage(),
          },
        );
      if (rd.n > 0)
        rows.push({
          figure: `steady: public reads p99 (${READS_PER_SEC}/s)`,
          value: `${f1(rd.p99)} ms (p50 ${f1(rd.p50)}, failed ${rd.n - (rd.outcomes['200'] ?? 0)})`,
          goal: `≤ ${GOALS.readsP99Ms} ms, all 200`,
          result: verdict(rd.p99 <= GOALS.readsP99Ms && rd.outcomes['200'] === rd.n),
          load_average: loadAverage(),
        });
      if (duringLogins > 0)
        rows.push({
          figure: `steady: known player's login${FLOOD_LOOPS > 0 ? ' during the flood' : ''}`,
          value: `${f1(knownMedian)} ms = ${ratio.toFixed(2)}× calm ${f1(calmMedian)} ms${knownFailures.length ? `, ${knownFailures.length} failed` : ''}`,
          goal: `< ${GOALS.knownRatio}×, none failed`,
          result: verdict(ratio < GOALS.knownRatio && knownFailures.length === 0),
          load_average: loadAverage(),
        });
    }
    client.close();
    console.log('');
    console.table(rows);
  } finally {
    await cleanup();
  }
}

try {
  await main();
} catch (err) {
  if ((err as Error).message !== 'stopped') console.error(`bench:launch could not run: ${(err as Error).stack ?? String(err)}`);
  process.exitCode = 1;
}
