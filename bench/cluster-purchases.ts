/**
 * npm run bench:cluster — purchases per second on PostgreSQL through one instance and through three
 * (separate processes of the built site on one database, as systemd's kubik@3001…3003 run them),
 * 100 concurrent buyers of one item through POST /api/shop/buy, taking turns (one, three, one,
 * three) so that a slow stretch of the shared machine does not fall on one side only. Needs
 * DATABASE_URL (a database is created beside it and dropped afterwards); prints the figures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../apps/server/src/db/index.ts';
import { migrateToLatest } from '../apps/server/src/db/migrate.ts';
import { seed } from './seed.ts';
import { freePort } from '../testing/free-port.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BUYERS = 100;
const INSTANCES = 3;

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}`);
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    if (Date.now() > deadline) throw new Error(`${url} not ready`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function login(url: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password, bearer: true }),
  });
  if (!res.ok) throw new Error(`login ${username}: ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}

/** 100 buyers in closed loops for SECONDS, buyer i through urls[i % urls.length]. */
async function purchases(urls: string[], tokens: string[], itemId: number) {
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  let done = 0;
  const refused: Record<number, number> = {};
  await Promise.all(
    tokens.map(async (token, i) => {
      while (performance.now() < deadline) {
        const res = await fetch(`${urls[i % urls.length]}/api/shop/buy`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': randomUUID() },
          body: JSON.stringify({ shop_id: itemId, quantity: 1 }),
        });
        await res.arrayBuffer();
        if (res.ok) done++;
        else refused[res.status] = (refused[res.status] ?? 0) + 1;
      }
    }),
  );
  return { perSecond: Math.round(done / ((performance.now() - started) / 1000)), refused };
}

async function main(): Promise<void> {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('DATABASE_URL (a PostgreSQL server where a database may be created) is needed');
  const name = `kubik_bench_cluster_${process.pid}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  const databaseUrl = u.toString();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kubik-bench-cluster-'));
  const children: ChildProcess[] = [];
  try {
    const handle = openDatabase({ databaseUrl, sqlitePath: '' });
    await migrateToLatest(handle);
    const seeded = await seed(handle);
    // A second item like the first but not counted (most items of a game shop): its purchases share no row.
    const bench = await handle.db.selectFrom('shop_items').selectAll().where('id', '=', seeded.benchItemId).executeTakeFirstOrThrow();
    const { id: _id, ...copy } = bench;
    const unlimitedId = (
      await handle.db
        .insertInto('shop_items')
        .values({ ...copy, name: `${bench.name} (без счёта)`, unlimited: 1 })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    await handle.close();
    const serve = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
      .serve!.split(/\s+/)
      .slice(1);
    const urls: string[] = [];
    for (let i = 0; i < INSTANCES; i++) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const child = spawn(process.execPath, serve, {
        cwd: ROOT,
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          DATA_DIR: dataDir,
          PUBLIC_URL: 'http://127.0.0.1',
          RATE_LIMITS: 'off',
          LOG_LEVEL: 'warn',
          DATABASE_URL: databaseUrl,
          MONITOR_INTERVAL_SEC: '86400',
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      children.push(child);
      await waitReady(`${url}/readyz`, child);
      urls.push(url);
    }
    const buyers = seeded.buyers.slice(0, BUYERS);
    // One login at a time: password checks wait in a bounded queue that refuses a crowd of strangers.
    const tokens: string[] = [];
    for (const [i, b] of buyers.entries()) tokens.push(await login(urls[i % INSTANCES]!, b.username, b.password));
    console.log(
      `Kubik cluster purchases: PostgreSQL, ${os.cpus().length} cores, Node ${process.version}, ${BUYERS} buyers, ${SECONDS} s each`,
    );
    const mean = (xs: number[]) => Math.round(xs.reduce((s, x) => s + x, 0) / xs.length);
    for (const [what, itemId] of [
      ['an item with counted stock', seeded.benchItemId],
      ['an unlimited item', unlimitedId],
    ] as const) {
      const one: number[] = [];
      const three: number[] = [];
      for (let round = 0; round < 2; round++) {
        const a = await purchases(urls.slice(0, 1), tokens, itemId);
        one.push(a.perSecond);
        console.log(
          `${what}, one instance: ${a.perSecond}/s, refused ${JSON.stringify(a.refused)}; load average ${os.loadavg()[0]!.toFixed(1)}`,
        );
        const b = await purchases(urls, tokens, itemId);
        three.push(b.perSecond);
        console.log(
          `${what}, three instances: ${b.perSecond}/s, refused ${JSON.stringify(b.refused)}; load average ${os.loadavg()[0]!.toFixed(1)}`,
        );
      }
      console.log(`purchases/s of ${what} on PostgreSQL: one instance ${mean(one)}, three instances ${mean(three)}`);
    }
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)));
    rmSync(dataDir, { recursive: true, force: true });
    const c = new pg.Client({ connectionString: base });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  }
}

await main();
