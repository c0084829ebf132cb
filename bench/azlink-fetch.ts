/**
 * npm run bench:azlink — the AzLink plugin's fetch answered by a fresh site: 200 players online
 * (AZLINK_BENCH_PLAYERS) and 100 due deliveries for them before each call, so that every answer
 * holds the most commands one may (100). Each round queues the deliveries, then times one
 * `POST /api/azlink` through the whole app (token, body check, live data, the hand-over
 * transaction, the answer), as the plugin sends it. The site's database is SQLite, or PostgreSQL
 * when BENCH_DATABASE_URL names a server where the bench may create a database. Prints p50, p90,
 * p99 and the maximum. Goal: p99 ≤ 20 ms, measured on a quiet machine.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildApp } from '../apps/server/src/app.ts';
import { loadConfig } from '../apps/server/src/config.ts';
import { openDatabase } from '../apps/server/src/db/index.ts';
import { migrateToLatest } from '../apps/server/src/db/migrate.ts';
import { enqueueDeliveries, type DeliveryRequest } from '../apps/server/src/modules/deliveries/deliveries.queue.ts';
import { offlinePlayerUuid } from '../testing/azlink-plugin.ts';

const PLAYERS = Number(process.env.AZLINK_BENCH_PLAYERS ?? 200);
const ROUNDS = Number(process.env.AZLINK_BENCH_ROUNDS ?? 300);
const WARMUP = 20;
const COMMANDS = 100;
const GOAL_P99_MS = 20;

const dir = mkdtempSync(path.join(os.tmpdir(), 'kubik-bench-azlink-'));
const cleanups: (() => Promise<void>)[] = [async () => rmSync(dir, { recursive: true, force: true })];

async function databaseUrl(): Promise<string | undefined> {
  const server = process.env.BENCH_DATABASE_URL;
  if (!server) return undefined;
  const name = `kubik_bench_azlink_${Date.now()}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: server });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  });
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function main(): Promise<void> {
  const config = loadConfig(
    {},
    {
      dataDir: dir,
      sqlitePath: path.join(dir, 'bench.sqlite'),
      databaseUrl: await databaseUrl(),
      logLevel: 'silent',
      publicUrl: 'http://kubik.bench',
      workers: false,
      rateLimits: { enabled: false },
    },
  );
  const handle = openDatabase(config);
  await migrateToLatest(handle);
  const app = await buildApp(config, { database: handle });
  await app.ready();
  cleanups.unshift(async () => {
    await app.close();
    await handle.close();
  });
  const db = handle.db;
  const now = Date.now();

  // The players: site accounts with the offline UUIDs an offline-mode server gives them.
  const names = Array.from({ length: PLAYERS }, (_, i) => `Player_${i}`);
  const users = await db
    .insertInto('users')
    .values(
      names.map((n) => ({
        username: n,
        username_lower: n.toLowerCase(),
        email: `${n.toLowerCase()}@example.com`,
        email_lower: `${n.toLowerCase()}@example.com`,
        password_hash: 'not-a-hash',
        is_admin: 0,
        balance: 0,
        email_verified_at: now,
        created_at: now,
        deleted_at: null,
        uuid: offlinePlayerUuid(n),
      })),
    )
    .returning('id')
    .execute();
  const admin = await db
    .insertInto('users')
    .values({
      username: 'BenchOwner',
      username_lower: 'benchowner',
      email: 'owner@example.com',
      email_lower: 'owner@example.com',
      password_hash: 'not-a-hash',
      is_admin: 1,
      balance: 0,
      email_verified_at: now,
      created_at: now,
      deleted_at: null,
      uuid: randomUUID(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const server = await db
    .insertInto('servers')
    .values({
      name: 'Бенч',
      description: '',
      image_url: '',
      ip_address: '127.0.0.1',
      port: 25565,
      max_online: 500,
      online: 0,
      status: 'offline',
      fail_count: 0,
      sort_order: 0,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const { linkServer } = await import('../apps/server/src/modules/servers/servers.azlink.ts');
  const { token } = await linkServer(app.ctx, admin.id, server.id);

  const body = JSON.stringify({
    platform: { type: 'BUKKIT', name: 'Paper', version: 'git-Paper-196 (MC: 1.20.1)' },
    version: '1.3.7',
    players: names.map((name) => ({ name, uuid: offlinePlayerUuid(name) })),
    maxPlayers: 500,
    full: false,
  });
  const headers = {
    accept: 'application/json',
    'azuriom-link-token': token,
    'content-type': 'application/json; charset=utf-8',
    'user-agent': 'AzLink java v1.3.7',
  };

  const times: number[] = [];
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    const requests: DeliveryRequest[] = Array.from({ length: COMMANDS }, (_, i) => ({
      source: 'shop',
      sourceId: null,
      userId: users[(round * COMMANDS + i) % users.length]!.id,
      label: 'Алмаз',
      server: server.id,
      commands: ['give {player} minecraft:diamond {quantity}'],
      params: { quantity: 1 + (i % 64) },
    }));
    await db.transaction().execute((trx) => enqueueDeliveries(trx, requests));
    const started = performance.now();
    const res = await app.inject({ method: 'POST', url: '/api/azlink', headers, payload: body });
    const ms = performance.now() - started;
    if (res.statusCode !== 200) throw new Error(`fetch answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
    const handed = Object.values(res.json<{ commands: Record<string, string[]> }>().commands).flat().length;
    if (handed !== COMMANDS) throw new Error(`the answer held ${handed} commands, not ${COMMANDS}`);
    if (round >= WARMUP) times.push(ms);
  }
  times.sort((a, b) => a - b);
  const f = (v: number) => `${v.toFixed(2)} ms`;
  const p99 = pct(times, 99);
  console.log(
    `AzLink fetch, ${PLAYERS} players online, ${COMMANDS} commands per answer, ${ROUNDS} calls on ${config.databaseUrl ? 'PostgreSQL' : 'SQLite'}:`,
  );
  console.log(`  p50 ${f(pct(times, 50))}  p90 ${f(pct(times, 90))}  p99 ${f(p99)}  max ${f(times.at(-1)!)}`);
  console.log(`  goal p99 ≤ ${GOAL_P99_MS} ms: ${p99 <= GOAL_P99_MS ? 'met' : 'NOT met'}`);
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const c of cleanups) await c().catch(() => {});
  });
