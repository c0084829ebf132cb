/**
 * npm run bench:flood — issue 29's flood, measured from outside against the built, listening site
 * (the CI test modules/security/login-flood.test.ts runs the flood inside the site's own process).
 * The owner logs in on the web from the browser they used before, one login at a time: calm, then
 * while 32 loops send launcher logins (`authserver/authenticate`) with made-up names, each from a
 * new address, then while 32 loops send password resets with made-up tokens. Rate limits are on;
 * the site believes one proxy hop (TRUST_PROXY=1), so X-Forwarded-For gives every request the
 * address the flood picks. Prints each median and its ratio to calm (goal: under 2×).
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../apps/server/src/db/index.ts';
import { migrateToLatest } from '../apps/server/src/db/migrate.ts';
import { seed } from './seed.ts';
import { freePort } from '../testing/free-port.ts';
import { serveArgs } from '../testing/serve-args.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const LOOPS = 32;
const SAMPLES = Number(process.env.FLOOD_SAMPLES ?? 15);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
let seq = 0;
/** A new IPv4 address each call, each in a network of its own (the site counts some limits per /24). */
const freshIp = () => {
  const n = ++seq;
  return `10.${n & 255}.${(n >> 8) & 255}.${((n >> 16) & 255) + 1}`;
};
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
  const serve = serveArgs();
  const site = spawn(process.execPath, serve, {
    cwd: ROOT,
    env: {
      ...process.env,
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
    /** Runs `send` in LOOPS loops while the owner logs in; the owner's median and the flood's statuses. */
    const during = async (send: () => Promise<number>) => {
      let stop = false;
      const statuses: Record<number, number> = {};
      const loops = Array.from({ length: LOOPS }, async () => {
        while (!stop) {
          const s = await send();
          statuses[s] = (statuses[s] ?? 0) + 1;
        }
      });
      await new Promise((r) => setTimeout(r, 500));
      const ms = await owner();
      stop = true;
      await Promise.all(loops);
      return { ms, statuses };
    };
    const launcher = async () => {
      const res = await fetch(`${url}/api/yggdrasil/authserver/authenticate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': freshIp() },
        body: JSON.stringify({
          agent: { name: 'Minecraft', version: 1 },
          username: `Nobody_${randomBytes(4).toString('hex')}`,
          password: randomUUID(),
          requestUser: true,
        }),
      });
      await res.arrayBuffer();
      return res.status;
    };
    const reset = async () => {
      const res = await fetch(`${url}/api/user/reset-password/${randomBytes(32).toString('base64url')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': freshIp() },
        body: JSON.stringify({ new_password: 'brand-new-pass' }),
      });
      await res.arrayBuffer();
      return res.status;
    };
    const calm = await owner();
    const launchers = await during(launcher);
    const calmAgain = await owner();
    const resets = await during(reset);
    const base = Math.min(calm, calmAgain);
    console.log(
      `Kubik login flood (SQLite, ${os.cpus().length} cores, Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(1)})`,
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
