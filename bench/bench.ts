/**
 * npm run bench — one run of the whole site on this machine, SQLite by default or PostgreSQL
 * when DATABASE_URL is set (a fresh database is created beside it and dropped afterwards).
 * Prints a table and writes bench/results.json.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import pg from 'pg';
import { openDatabase } from '../apps/server/src/db/index.ts';
import { migrateToLatest } from '../apps/server/src/db/migrate.ts';
import { seed, type SeedResult } from './seed.ts';
import { benchDeliveries, benchOneCore, benchPurchases, benchSweep } from './workloads.ts';
import { freePort } from '../testing/free-port.ts';
import { SERVE_ENV, serveArgs } from '../testing/serve-args.ts';
import { writeJson } from './format-json.ts';
import { capture, startBare } from './bare.ts';
import { benchInstructions, canCountInstructions, type InstructionRow } from './instructions.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 50;
/** Seconds of unmeasured load on the site and on the bare server before each endpoint's turns. */
const WARM_UP = 1;
/** The fixed rate (req/s) and seconds of each endpoint's CPU-per-answer measure, site and bare twice each. */
const CPU_RATE = 5000;
const CPU_SECONDS = 2;
/** BENCH_ONLY=me,head limits the endpoint figures to names containing one of the words (for profiling). */
const ONLY = process.env.BENCH_ONLY?.split(',').filter(Boolean) ?? [];
/**
 * The site's LOG_LEVEL: info, the default and the units' setting, where each answer is also a JSON
 * line on stdout; the site's stdout is a pipe this process drains, as journald would.
 * BENCH_LOG_LEVEL=warn leaves the lines out.
 */
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'info';
const ALL_PARTS = ['endpoints', 'purchases', 'sweep', 'deliveries', 'onecore', 'instructions'];
/**
 * BENCH_PARTS=endpoints,purchases,sweep,deliveries,onecore,instructions (default all) runs only
 * those parts; results.json is then not written. `instructions` needs valgrind (Debian's
 * package); without it that part is left out with a note.
 */
const PARTS = process.env.BENCH_PARTS?.split(',').filter(Boolean) ?? ALL_PARTS;
const PARTIAL = ONLY.length > 0 || ALL_PARTS.some((p) => !PARTS.includes(p));
/** The one-core ramp's rates (req/s of the peak mix) and each step's seconds. */
const ONECORE_RATES = (process.env.BENCH_ONECORE_RATES ?? '100,200,400,600,800,1000,1200,1600,2000,2400,3200').split(',').map(Number);
const ONECORE_STEP_SECONDS = Number(process.env.BENCH_ONECORE_SECONDS ?? DURATION);
/** `taskset` pins the site to core 0 and the load to the others, when there are others. */
const CAN_PIN = os.cpus().length > 1 && spawnSync('taskset', ['-V']).status === 0;

/** The goals, each endpoint's ratio to the bare server answering the same bytes (same run). */
function goalOf(name: string): number {
  if (name.includes('/api/user/')) return 0.8;
  if (name.includes('index page')) return 0.9;
  return 1.0;
}
const P99_GOAL_MS = 10;

/** Moves every thread of this process (the load generator) off core 0, or back onto all cores. */
function pinSelf(offCoreZero: boolean): void {
  if (!CAN_PIN) return;
  const all = `0-${os.cpus().length - 1}`;
  spawnSync('taskset', ['-a', '-cp', offCoreZero ? `1-${os.cpus().length - 1}` : all, String(process.pid)], { stdio: 'ignore' });
}

async function waitReady(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${url} not ready`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function peakRssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return Math.round(kb / 1024);
  } catch {
    return 0;
  }
}

function rssMb(pid: number): number {
  try {
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

/** CPU time a process has used so far (user + system), from /proc/PID/stat. */
function cpuMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat; here, after "pid (comm) ", indexes 11 and 12.
    return Math.round(((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
  } catch {
    return 0;
  }
}

interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

async function load(url: string, headers: Record<string, string>, seconds = DURATION): Promise<LoadResult> {
  const r = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers });
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx };
}

/**
 * The server's CPU time per answer at a fixed rate both can carry (CPU_RATE req/s): steadier than
 * the throughput ratio on a shared machine, where the load generator competes for the same cores
 * and a slow stretch moves both figures. Null where /proc is missing.
 */
async function cpuPerAnswer(url: string, pid: number, headers: Record<string, string>): Promise<number | null> {
  if (!existsSync(`/proc/${pid}/stat`)) return null;
  const before = cpuMsOf(pid);
  const r = await autocannon({ url, connections: CONNECTIONS, duration: CPU_SECONDS, overallRate: CPU_RATE, headers });
  const after = cpuMsOf(pid);
  return r.requests.total === 0 ? null : ((after - before) * 1000) / r.requests.total;
}

/** gzip size of the JavaScript the first page loads: the entry script and its module preloads. */
function firstPageJsGzip(distDir: string): number {
  const html = readFileSync(path.join(distDir, 'index.html'), 'utf8');
  const files = new Set<string>();
  for (const m of html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)) files.add(m[1]!);
  let total = 0;
  for (const f of files) total += gzipSync(readFileSync(path.join(distDir, f))).length;
  return total;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kubik-bench-'));
  let pgDrop: (() => Promise<void>) | null = null;
  let databaseUrl: string | undefined;
  if (process.env.DATABASE_URL) {
    const base = process.env.DATABASE_URL;
    const name = `kubik_bench_${process.pid}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const u = new URL(base);
    u.pathname = `/${name}`;
    databaseUrl = u.toString();
    pgDrop = async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    };
  }
  const children: ChildProcess[] = [];
  try {
    console.log(
      `Kubik bench: ${databaseUrl ? 'PostgreSQL' : 'SQLite'}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, the site at LOG_LEVEL=${LOG_LEVEL}`,
    );
    const handle = openDatabase({ databaseUrl, sqlitePath: path.join(dataDir, 'kubik.sqlite') });
    await migrateToLatest(handle);
    const seeded: SeedResult = await seed(handle);
    await handle.close();

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = {
      ...process.env,
      ...SERVE_ENV,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      PUBLIC_URL: url,
      RATE_LIMITS: 'off',
      LOG_LEVEL,
      DATABASE_URL: databaseUrl ?? '',
      MONITOR_INTERVAL_SEC: '86400',
    };
    // The site runs as the production units run it: the built bundle under plain node, with the
    // serve script's flags and the units' environment (SERVE_ENV).
    const serve = serveArgs();
    const startSite = (opts: { oneCore?: boolean; port?: number } = {}) => {
      const args = [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), ...serve];
      const pinned = opts.oneCore && CAN_PIN;
      const siteEnv = opts.port ? { ...env, PORT: String(opts.port), PUBLIC_URL: `http://127.0.0.1:${opts.port}` } : env;
      const child = spawn(pinned ? 'taskset' : process.execPath, pinned ? ['-c', '0', process.execPath, ...args] : args, {
        cwd: ROOT,
        env: siteEnv,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      // Drained as journald would; warnings and errors still show.
      let partial = '';
      child.stdout.setEncoding('utf8').on('data', (text: string) => {
        const all = partial + text;
        const end = all.lastIndexOf('\n') + 1;
        partial = all.slice(end);
        if (!/"level":[4-6]0/.test(all.slice(0, end))) return;
        for (const line of all.slice(0, end).split('\n')) if (/^\{"level":[4-6]0/.test(line)) process.stderr.write(`${line}\n`);
      });
      return child;
    };
    // Cold start: process spawned → first 200 from /readyz (database reached, migrations done),
    // three times on the seeded database, the site pinned to one core (the goal is on one
    // core); the median counts. CPU time (user + system, from /proc) is printed beside it: unlike
    // the wall clock it does not grow with the machine's load.
    const starts: { ms: number; cpuMs: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const probe = startSite({ oneCore: true });
      await waitReady(`${url}/readyz`, probe);
      starts.push({ ms: Math.round(performance.now() - started), cpuMs: cpuMsOf(probe.pid!) });
      const exited = new Promise((r) => probe.once('exit', r));
      probe.kill('SIGTERM');
      await exited;
    }
    starts.sort((a, b) => a.ms - b.ms);
    const coldStartMs = starts[1]!.ms;
    const coldStartCpuMs = starts[1]!.cpuMs;
    console.log(
      `cold start to ready${CAN_PIN ? ' (one core)' : ''}: ${starts.map((s) => `${s.ms} ms (CPU ${s.cpuMs} ms)`).join(', ')}; load average ${os.loadavg()[0]!.toFixed(1)}`,
    );
    // Instructions per answer under valgrind, site and bare server (bench/instructions.ts): the
    // steady figure for the request path, while nothing else runs, on the database as seeded (not
    // one with the deliveries the one-core part's purchases leave, retried on timers).
    let instructions: InstructionRow[] | null = null;
    if (PARTS.includes('instructions')) {
      if (!canCountInstructions()) console.log('instructions: valgrind not found (apt-get install valgrind), part left out');
      else
        instructions = await benchInstructions(serve, env, ROOT, [
          { name: 'GET /api/tidings/news', path: '/api/tidings/news', headers: async () => ({}) },
          {
            name: 'GET /api/user/me',
            path: '/api/user/me',
            headers: async (base) => {
              const r = await fetch(`${base}/api/user/login`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ username: seeded.player.username, password: seeded.player.password, bearer: true }),
              });
              return { authorization: `Bearer ${((await r.json()) as { token: string }).token}` };
            },
          },
        ]);
    }

    // One core: the site alone on core 0, the load from the others, first of all on the database as
    // seeded (a community's site at its peak, not one still working off the thousands of orders,
    // servers and deliveries the parts below leave behind: after the purchases part its deliveries
    // shared the core with the ramp).
    let onecore: (Awaited<ReturnType<typeof benchOneCore>> & { pinned: boolean; peak_rss_mb: number; load_average: number }) | null = null;
    if (PARTS.includes('onecore')) {
      const onePort = await freePort();
      const pinnedSite = startSite({ oneCore: true, port: onePort });
      children.push(pinnedSite);
      await waitReady(`http://127.0.0.1:${onePort}/readyz`, pinnedSite);
      pinSelf(true);
      try {
        const r = await benchOneCore(`http://127.0.0.1:${onePort}`, seeded, ONECORE_RATES, ONECORE_STEP_SECONDS);
        onecore = { ...r, pinned: CAN_PIN, peak_rss_mb: peakRssMb(pinnedSite.pid!), load_average: Number(os.loadavg()[0]!.toFixed(1)) };
      } finally {
        pinSelf(false);
      }
      const stopped = new Promise((r) => pinnedSite.once('exit', r));
      pinnedSite.kill('SIGTERM');
      await stopped;
    }

    const site = startSite();
    const sitePid = site.pid!;
    children.push(site);
    await waitReady(`${url}/readyz`, site);
    // Resident memory sampled every 100 ms through the whole run, beside the kernel's high-water mark.
    let sampledPeakMb = 0;
    const sampler = setInterval(() => (sampledPeakMb = Math.max(sampledPeakMb, rssMb(site.pid!))), 100);
    sampler.unref();

    const login = await fetch(`${url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: seeded.player.username, password: seeded.player.password, bearer: true }),
    });
    const token = ((await login.json()) as { token: string }).token;
    const auth = { authorization: `Bearer ${token}` };

    const endpoints: { name: string; path: string; headers: Record<string, string> }[] = [
      { name: 'GET /api/tidings/news', path: '/api/tidings/news', headers: {} },
      { name: 'GET /api/donate/fully', path: '/api/donate/fully', headers: {} },
      { name: 'GET /api/servers/', path: '/api/servers/', headers: {} },
      { name: 'GET /api/shop/all', path: '/api/shop/all', headers: {} },
      { name: 'GET /api/user/me', path: '/api/user/me', headers: auth },
      { name: 'GET /api/user/head (cached)', path: '/api/user/head', headers: auth },
      { name: 'GET / (index page)', path: '/', headers: {} },
    ];
    const rows: Record<string, unknown>[] = [];
    for (const e of PARTS.includes('endpoints') ? endpoints : []) {
      if (ONLY.length && !ONLY.some((w) => e.name.includes(w))) continue;
      const headers = { 'accept-encoding': 'gzip, br', ...e.headers };
      const sample = await capture(url + e.path, headers);
      const bare = await startBare(sample);
      // Both first answer a second of the same load unmeasured: a site that has run for a while
      // has compiled this path, and the first thousands of answers (V8 still compiling it; the
      // bare server's few lines compile at once) measured the warm-up, not the path.
      await load(url + e.path, headers, WARM_UP);
      await load(bare.url + e.path, headers, WARM_UP);
      // Site and bare server take turns (site, bare, site, bare; half the time each), so that a
      // slower stretch of this shared machine does not fall on one of them only.
      const [s1, b1, s2, b2] = [
        await load(url + e.path, headers, DURATION / 2),
        await load(bare.url + e.path, headers, DURATION / 2),
        await load(url + e.path, headers, DURATION / 2),
        await load(bare.url + e.path, headers, DURATION / 2),
      ];
      // CPU per answer at a fixed rate, in turns too; the lower of each side's two.
      const cpu = { site: [] as (number | null)[], bare: [] as (number | null)[] };
      for (let turn = 0; turn < 2; turn++) {
        cpu.site.push(await cpuPerAnswer(url + e.path, sitePid, headers));
        cpu.bare.push(await cpuPerAnswer(bare.url + e.path, bare.pid, headers));
      }
      bare.stop();
      const lowest = (xs: (number | null)[]) => (xs.some((x) => x === null) ? null : Math.min(...(xs as number[])));
      const siteUs = lowest(cpu.site);
      const bareUs = lowest(cpu.bare);
      const site = {
        rps: Math.round((s1.rps + s2.rps) / 2),
        p50: Math.max(s1.p50, s2.p50),
        p99: Math.max(s1.p99, s2.p99),
        errors: s1.errors + s2.errors,
        non2xx: s1.non2xx + s2.non2xx,
      };
      const limit = { rps: Math.round((b1.rps + b2.rps) / 2), p99: Math.max(b1.p99, b2.p99) };
      rows.push({
        endpoint: e.name,
        status: sample.status,
        bytes: sample.body.length,
        rps: site.rps,
        p50_ms: site.p50,
        p99_ms: site.p99,
        bare_rps: limit.rps,
        bare_p99_ms: limit.p99,
        ratio: Number((site.rps / Math.max(1, limit.rps)).toFixed(2)),
        cpu_us: siteUs === null ? null : Number(siteUs.toFixed(1)),
        bare_cpu_us: bareUs === null ? null : Number(bareUs.toFixed(1)),
        cpu_ratio: siteUs === null || bareUs === null ? null : Number((bareUs / siteUs).toFixed(2)),
        goal: goalOf(e.name),
        errors: site.errors + site.non2xx,
        load_average: Number(os.loadavg()[0]!.toFixed(1)),
      });
      console.log(
        `${e.name}: ${site.rps} req/s (bare ${limit.rps}), p50 ${site.p50} ms, p99 ${site.p99} ms (bare ${limit.p99}); CPU per answer at ${CPU_RATE} req/s ${siteUs?.toFixed(1) ?? '?'} µs (bare ${bareUs?.toFixed(1) ?? '?'} µs); load average ${os.loadavg()[0]!.toFixed(1)}`,
      );
    }

    const purchases = PARTS.includes('purchases')
      ? await benchPurchases(url, seeded, databaseUrl, path.join(dataDir, 'kubik.sqlite'))
      : null;
    if (purchases) console.log(`purchases: ${purchases.site_per_s}/s (raw ${purchases.raw_per_s}/s)`);
    const sweep = PARTS.includes('sweep') ? await benchSweep(url, seeded, databaseUrl, path.join(dataDir, 'kubik.sqlite')) : null;
    if (sweep) console.log(`monitor sweep: ${sweep.ms} ms (goal ${sweep.limit_ms} ms)`);
    const deliveries = PARTS.includes('deliveries') ? await benchDeliveries(seeded, databaseUrl, path.join(dataDir, 'kubik.sqlite')) : null;
    if (deliveries)
      console.log(
        `deliveries: ${deliveries.backlog} in ${deliveries.ms} ms = ${deliveries.per_s}/s (exactly once: ${deliveries.exactly_once}, connections ${deliveries.connections}, refused reads ${deliveries.violations})`,
      );
    clearInterval(sampler);
    const peakMb = peakRssMb(site.pid!);
    const heap = await fetch(`${url}/metrics`)
      .then((r) => r.text())
      .then((t) => Math.round(Number(/^nodejs_heap_size_used_bytes (\S+)/m.exec(t)?.[1] ?? 0) / 1048576))
      .catch(() => 0);
    console.log(`peak memory (RSS): ${peakMb} MB (sampled ${sampledPeakMb} MB); heap in use at the end: ${heap} MB`);

    // The goals, each against its limit in this same run.
    const verdict = (ok: boolean) => (ok ? 'pass' : 'FAIL');
    const summary: Record<string, unknown>[] = rows.map((r) => ({
      figure: r.endpoint,
      value: `${String(r.ratio)} of bare, p99 ${String(r.p99_ms)} ms (bare ${String(r.bare_p99_ms)}; CPU ${r.cpu_ratio === null ? '?' : String(r.cpu_ratio)})`,
      goal: `≥ ${String(r.goal)}, p99 ≤ ${P99_GOAL_MS} ms`,
      result: verdict(Number(r.ratio) >= Number(r.goal) && Number(r.p99_ms) <= P99_GOAL_MS),
      load_average: r.load_average,
    }));
    summary.push({
      figure: `cold start to ready${CAN_PIN ? ', one core' : ''} (median of 3)`,
      value: `${coldStartMs} ms (CPU ${coldStartCpuMs} ms)`,
      goal: '≤ 1000 ms',
      result: verdict(coldStartMs <= 1000),
      load_average: Number(os.loadavg()[0]!.toFixed(1)),
    });
    summary.push({
      figure: 'peak memory (RSS)',
      value: `${peakMb} MB`,
      goal: '≤ 150 MB',
      result: verdict(peakMb <= 150),
      load_average: '',
    });
    for (const r of instructions ?? [])
      summary.push({
        figure: `instructions per answer, ${r.endpoint} (valgrind)`,
        value: `site ${r.site_k}k, bare ${r.bare_k}k: ${r.ratio} of bare`,
        goal: '(the steady figure beside the ratios)',
        result: '',
        load_average: '',
      });
    if (onecore)
      summary.push({
        figure: `one core capacity, peak mix${onecore.pinned ? '' : ' (NOT pinned: no taskset or one core)'}`,
        value: `${onecore.held_rate} req/s (peak RSS ${onecore.peak_rss_mb} MB)`,
        goal: '≥ 800 req/s, p99 ≤ 50 ms (logins ≤ 250 ms)',
        result: verdict(onecore.held_rate >= 800),
        load_average: onecore.load_average,
      });
    console.log('');
    console.table(summary);
    if (PARTIAL || !purchases || !sweep || !deliveries || !onecore) return;
    const jsGzip = firstPageJsGzip(path.join(ROOT, 'apps/web/dist'));

    const results = {
      date: new Date().toISOString(),
      machine: {
        cores: os.cpus().length,
        cpu: os.cpus()[0]?.model,
        memory_gib: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
        database: databaseUrl ? 'postgresql' : 'sqlite',
      },
      site_log_level: LOG_LEVEL,
      data: seeded.counts,
      connections: CONNECTIONS,
      duration_s: DURATION,
      endpoints: rows,
      purchases,
      monitor_sweep: sweep,
      deliveries,
      cold_start_ms: coldStartMs,
      cold_start_cpu_ms: coldStartCpuMs,
      peak_memory_mb: peakMb,
      one_core: onecore,
      instructions_per_answer: instructions,
      first_page_js_gzip_kb: Number((jsGzip / 1024).toFixed(1)),
    };
    console.log('');
    console.table(rows);
    console.table([
      { figure: 'purchases/s (100 buyers)', value: purchases.site_per_s, limit: purchases.raw_per_s, ratio: purchases.ratio },
      { figure: 'monitor sweep, 1000 servers (5% silent)', value: `${sweep.ms} ms`, limit: `${sweep.limit_ms} ms`, ratio: '' },
      {
        figure: `deliveries/s, backlog of ${deliveries.backlog} to one server`,
        value: deliveries.per_s,
        limit: 200,
        ratio: deliveries.exactly_once ? 'exactly once' : 'NOT exactly once',
      },
      { figure: 'cold start to ready (median of 3)', value: `${coldStartMs} ms (CPU ${coldStartCpuMs} ms)`, limit: '1000 ms', ratio: '' },
      { figure: 'peak memory (RSS)', value: `${peakMb} MB`, limit: '150 MB', ratio: '' },
      { figure: 'first-page JS (gzip)', value: `${results.first_page_js_gzip_kb} KB`, limit: '90 KB', ratio: '' },
    ]);
    await writeJson(path.join(import.meta.dirname, 'results.json'), results);
    console.log('written to bench/results.json');
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    await pgDrop?.();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
