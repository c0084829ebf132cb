/**
 * npm run bench:flood — a flood of refused logins, measured from outside against the built, listening site
 * (the CI test modules/security/login-flood.test.ts runs the flood inside the site's own process).
 * The owner logs in on the web from the browser they used before, one login at a time: calm, then
 * while 32 loops send launcher logins (`authserver/authenticate`) with made-up names, each from a
 * new address, then while 32 loops send password resets with made-up tokens. Rate limits are on;
 * the site believes one proxy hop (TRUST_PROXY=1), so X-Forwarded-For gives every request the
 * address the flood picks. The flood runs in a process of its own (bench/flood-client.ts), as a
 * stranger's machine would, at the lowest CPU priority (`nice -n 19`, FLOOD_NICE=0 for none): it
 * stands in for a machine elsewhere, so it gets the cores only when the site and the owner leave
 * them idle. At the site's priority the client took 0.6 of a core from the two (its fetch costs more
 * per request than the site's answer) and the owner's hash waited for it, which no remote stranger
 * can make it do. Prints each median and its ratio to calm (goal: under 2×).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../apps/server/src/db/index.ts';
import { migrateToLatest } from '../apps/server/src/db/migrate.ts';
import { seed } from './seed.ts';
import { freePort } from '../testing/free-port.ts';
import { SERVE_ENV, serveArgs } from '../testing/serve-args.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const LOOPS = 32;
const SAMPLES = Number(process.env.FLOOD_SAMPLES ?? 15);
const NICE = Number(process.env.FLOOD_NICE ?? 19);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
let ownerSeq = 0;
/** The owner on the move (phone, home, work): never over a per-address limit. */
const ownerIp = () => `100.64.${ownerSeq++ % 250}.1`;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kubik-flood-'));
  const handle = openDatabase({ sqlitePath: path.join(dataDir, 'kubik.sqlite') });
  await migrateToLatest(handle);
  const seeded = await seed(handle);
  await handle.close();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // BENCH_CPU_PROF=<dir>: a CPU profile of the site's whole run, as in bench.ts.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const site = spawn(process.execPath, [...profile, ...serveArgs()], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...SERVE_ENV,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      PUBLIC_URL: url,
      LOG_LEVEL: 'fatal',
      TRUST_PROXY: '1',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  try {
    for (let i = 0; ; i++) {
      if (
        await fetch(`${url}/readyz`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (i > 600 || site.exitCode !== null) throw new Error('the site did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
    const { username, password } = seeded.player;
    const webLogin = async (device?: string) => {
      const started = performance.now();
      const res = await fetch(`${url}/api/user/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': ownerIp(), ...(device && { cookie: device }) },
        body: JSON.stringify({ username, password }),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`the owner's login answered ${res.status}: ${text}`);
      return {
        ms: performance.now() - started,
        device: res.headers
          .getSetCookie()
          .find((c) => c.startsWith('kubik_device='))
          ?.split(';')[0],
      };
    };
    // The owner's browsers (phone, home, work…), each one the site knows from an earlier login: a
    // known browser may try 10 logins a window, and the bench makes 4 × SAMPLES.
    const devices: string[] = [];
    for (let i = 0; i < Math.ceil((4 * SAMPLES) / 8); i++) devices.push((await webLogin()).device!);
    let turn = 0;
    const owner = async () => {
      const times: number[] = [];
      for (let i = 0; i < SAMPLES; i++) times.push((await webLogin(devices[turn++ % devices.length])).ms);
      return median(times);
    };
    /** LOOPS loops of `kind` from another process while the owner logs in; the owner's median and the flood's statuses. */
    const during = async (kind: 'launcher' | 'reset') => {
      const client = [process.execPath, '--import', 'tsx', path.join(import.meta.dirname, 'flood-client.ts'), url, kind, String(LOOPS)];
      const [command, ...args] = NICE > 0 ? ['nice', '-n', String(NICE), ...client] : client;
      const flood = spawn(command!, args, {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      flood.stdout.on('data', (d: Buffer) => (out += d));
      const exited = new Promise<number | null>((r) => flood.once('exit', r));
      // The flood up to speed (its process started and its loops running) before the owner's first login.
      await new Promise((r) => setTimeout(r, 1500));
      if (flood.exitCode !== null) throw new Error('the flood client stopped before the owner logged in');
      const ms = await owner();
      flood.kill('SIGTERM');
      if ((await exited) !== 0) throw new Error('the flood client failed');
      return { ms, statuses: JSON.parse(out) as Record<string, number> };
    };
    const calm = await owner();
    const launchers = await during('launcher');
    const calmAgain = await owner();
    const resets = await during('reset');
    const base = Math.min(calm, calmAgain);
    console.log(
      `Kubik login flood (SQLite, ${os.cpus().length} cores, Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(1)}, flood client at nice ${NICE})`,
    );
    console.log(`owner's web login, calm: median ${calm.toFixed(1)} ms, again after the first flood ${calmAgain.toFixed(1)} ms`);
    console.log(
      `during ${LOOPS} loops of launcher logins from new addresses: median ${launchers.ms.toFixed(1)} ms = ${(launchers.ms / base).toFixed(2)}× calm (goal < 2×); the flood got ${JSON.stringify(launchers.statuses)}`,
    );
    console.log(
      `during ${LOOPS} loops of refused resets from new addresses: median ${resets.ms.toFixed(1)} ms = ${(resets.ms / base).toFixed(2)}× calm (goal < 2×); the flood got ${JSON.stringify(resets.statuses)}`,
    );
  } finally {
    site.kill('SIGTERM');
    await new Promise((r) => (site.exitCode !== null ? r(null) : site.once('exit', r)));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
