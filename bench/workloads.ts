import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../apps/server/src/db/index.ts';
import { enqueueDeliveries, enqueueDelivery, type DeliveryRequest } from '../apps/server/src/modules/deliveries/deliveries.queue.ts';
import { postLedger } from '../apps/server/src/modules/ledger/ledger.service.ts';
import type { SeedResult } from './seed.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BUYERS = 100;

async function login(url: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password, bearer: true }),
  });
  if (!res.ok) throw new Error(`login ${username}: ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}

/** Runs `worker` in `parallel` loops for SECONDS and returns completed operations per second. */
async function closedLoop(parallel: number, worker: (i: number) => Promise<boolean>): Promise<{ perSecond: number; failures: number }> {
  const deadline = performance.now() + SECONDS * 1000;
  let done = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async (_, i) => {
      while (performance.now() < deadline) {
        if (await worker(i)) done++;
        else failures++;
      }
    }),
  );
  return { perSecond: Math.round(done / ((performance.now() - started) / 1000)), failures };
}

/**
 * Purchases per second by 100 concurrent buyers through POST /api/shop/buy, against the same
 * statements run as raw transactions on the same database (the limit).
 */
export async function benchPurchases(url: string, seeded: SeedResult, databaseUrl: string | undefined, sqlitePath: string) {
  // One login at a time: password checks wait in a bounded queue that turns a crowd of strangers away (429).
  const tokens: string[] = [];
  for (const b of seeded.buyers.slice(0, BUYERS)) tokens.push(await login(url, b.username, b.password));
  const site = await closedLoop(BUYERS, async (i) => {
    const res = await fetch(`${url}/api/shop/buy`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[i]}` },
      body: JSON.stringify({ shop_id: seeded.benchItemId, quantity: 1 }),
    });
    await res.arrayBuffer();
    return res.ok;
  });

  const handle = openDatabase({ databaseUrl, sqlitePath });
  const buyerIds = (
    await handle.db.selectFrom('users').select('id').where('username', 'like', 'Buyer_%').orderBy('id').limit(BUYERS).execute()
  ).map((r) => r.id);
  const raw = await closedLoop(BUYERS, async (i) => {
    const userId = buyerIds[i]!;
    await handle.db.transaction().execute(async (trx) => {
      const now = Date.now();
      const item = await trx
        .updateTable('shop_items')
        .set({ count: sql<number>`count - 1`, updated_at: now })
        .where('id', '=', seeded.benchItemId)
        .where('deleted_at', 'is', null)
        .where('status', '=', 'Продаётся')
        .where('count', '>=', 1)
        .returning(['id', 'name', 'item_id_minecraft', 'price', 'server_id'])
        .executeTakeFirstOrThrow();
      const price = Number(item.price);
      const order = await trx
        .insertInto('shop_orders')
        .values({
          user_id: userId,
          item_id: item.id,
          item_name: item.name,
          item_id_minecraft: item.item_id_minecraft,
          price,
          quantity: 1,
          total: price,
          created_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await postLedger(trx, { userId, amount: -price, reason: 'purchase', authorId: userId, ref: `order:${order.id}` });
      await enqueueDelivery(trx, {
        source: 'shop',
        sourceId: order.id,
        userId,
        label: item.name,
        server: item.server_id ?? 'only',
        commands: null,
        params: { item: item.item_id_minecraft, quantity: 1, order: order.id },
        quantity: 1,
      });
    });
    return true;
  });
  await handle.close();
  return {
    site_per_s: site.perSecond,
    site_failures: site.failures,
    raw_per_s: raw.perSecond,
    ratio: Number((site.perSecond / Math.max(1, raw.perSecond)).toFixed(2)),
  };
}

/**
 * One monitor sweep over 1,000 local status servers of which 5 % never answer, triggered as the
 * admin's refresh button does (POST /api/servers/monitor).
 */
export async function benchSweep(
  url: string,
  seeded: SeedResult & { admin?: { username: string; password: string } },
  databaseUrl: string | undefined,
  sqlitePath: string,
  timeoutMs = 3000,
) {
  const farm = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/status-farm.ts'), '1000', '0.05'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const { ports, silent } = await new Promise<{ ports: number[]; silent: number[] }>((resolve) =>
      farm.once('message', (m) => resolve(m as { ports: number[]; silent: number[] })),
    );
    const handle = openDatabase({ databaseUrl, sqlitePath });
    const now = Date.now();
    await handle.db.deleteFrom('servers').execute();
    const all = [...ports, ...silent];
    for (let i = 0; i < all.length; i += 200) {
      await handle.db
        .insertInto('servers')
        .values(
          all.slice(i, i + 200).map((port, k) => ({
            name: `Бенч ${i + k}`,
            description: 'Бенчмарк',
            image_url: '',
            ip_address: '127.0.0.1',
            port,
            max_online: 100,
            online: 0,
            status: 'offline',
            version: null,
            motd: null,
            fail_count: 0,
            last_checked_at: null,
            rcon_host: null,
            rcon_port: null,
            rcon_password: null,
            command_template: null,
            sort_order: i + k,
            created_at: now,
            updated_at: now,
          })),
        )
        .execute();
    }
    await handle.close();
    const token = await login(url, seeded.admin!.username, seeded.admin!.password);
    const started = performance.now();
    const res = await fetch(`${url}/api/servers/monitor`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    const ms = Math.round(performance.now() - started);
    const body = await res.text();
    if (!res.ok) throw new Error(`monitor: ${res.status} ${body}`);
    return { servers: all.length, silent: silent.length, ms, limit_ms: timeoutMs + 500, status: res.status };
  } finally {
    farm.kill();
  }
}

const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 5000);
/** The order number rides in the item's data, so that every command is told apart (and counted once). */
const TEMPLATE = 'give {player} minecraft:{item}{order:{order}} {quantity}';

interface RconStats {
  commands: string[];
  first: number;
  last: number;
  violations: number;
  connections: number;
  logins: number;
}

/**
 * A backlog of one-piece deliveries to one game server (the vanilla-like RCON test server, in a
 * process of its own) drained by the running site: the rows are queued while the server is up, and
 * the figure counts from the first command that reaches the server to the moment the last row is
 * recorded as done. Checks that each was sent exactly once. A second server with RCON (never
 * reachable) sits beside it, so the deliveries left waiting by the earlier parts (for "the only
 * server with RCON") stay where they are.
 */
export async function benchDeliveries(seeded: SeedResult, databaseUrl: string | undefined, sqlitePath: string) {
  const names = seeded.buyers.map((b) => b.username);
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/rcon-server.ts'), 'bench-rcon', ...names], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = () =>
    new Promise<RconStats>((resolve) => {
      child.once('message', (m) => resolve(m as RconStats));
      child.send('stats');
    });
  try {
    const { port } = await new Promise<{ port: number }>((resolve) => child.once('message', (m) => resolve(m as { port: number })));
    const handle = openDatabase({ databaseUrl, sqlitePath });
    const now = Date.now();
    const server = (name: string, rconPort: number) => ({
      name,
      description: 'Бенчмарк выдачи',
      image_url: '',
      ip_address: '127.0.0.1',
      port: 25565,
      max_online: 100,
      online: 0,
      status: 'offline',
      version: null,
      motd: null,
      fail_count: 0,
      last_checked_at: null,
      rcon_host: '127.0.0.1',
      rcon_port: rconPort,
      rcon_password: 'bench-rcon',
      command_template: TEMPLATE,
      sort_order: 0,
      created_at: now,
      updated_at: now,
    });
    const target = await handle.db.insertInto('servers').values(server('Выдача', port)).returning('id').executeTakeFirstOrThrow();
    await handle.db.insertInto('servers').values(server('Выключенный', 1)).execute();
    const users = await handle.db.selectFrom('users').select(['id', 'username']).where('username', 'in', names).execute();
    const orders = await handle.db.selectFrom('shop_orders').select(['id']).orderBy('id', 'desc').limit(1).executeTakeFirst();
    const base = (orders?.id ?? 0) + 1_000_000;
    const requests: DeliveryRequest[] = Array.from({ length: BACKLOG }, (_, i) => {
      const u = users[i % users.length]!;
      return {
        source: 'shop',
        sourceId: null,
        userId: u.id,
        label: 'Алмаз',
        server: target.id,
        commands: null,
        params: { item: 'diamond', quantity: 1, order: base + i },
        quantity: 1,
      };
    });
    for (let i = 0; i < requests.length; i += 500)
      await handle.db.transaction().execute((trx) => enqueueDeliveries(trx, requests.slice(i, i + 500)));
    const ids = (await handle.db.selectFrom('deliveries').select('id').where('server_id', '=', target.id).execute()).map((r) => r.id);

    const done = async () =>
      Number(
        (
          await handle.db
            .selectFrom('deliveries')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('server_id', '=', target.id)
            .where('state', '=', 'done')
            .executeTakeFirstOrThrow()
        ).n,
      );
    const deadline = Date.now() + 180_000;
    let finished = 0;
    while ((await done()) < ids.length) {
      if (Date.now() > deadline) throw new Error(`deliveries: ${await done()} of ${ids.length} done after 180 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
    finished = Date.now();
    const stats = await ask();
    const rows = await handle.db.selectFrom('deliveries').select(['state', 'attempts']).where('server_id', '=', target.id).execute();
    await handle.close();
    const exactlyOnce =
      stats.commands.length === ids.length &&
      new Set(stats.commands).size === ids.length &&
      rows.every((r) => r.state === 'done' && Number(r.attempts) === 1);
    const ms = Math.round(finished - stats.first);
    return {
      backlog: ids.length,
      ms,
      per_s: Math.round(ids.length / (ms / 1000)),
      exactly_once: exactlyOnce,
      commands: stats.commands.length,
      connections: stats.connections,
      violations: stats.violations,
    };
  } finally {
    child.kill();
  }
}

/** One request of the peak mix, by its group: only logins have a latency goal of their own. */
interface MixRequest {
  group: 'public' | 'own' | 'lists' | 'logins' | 'purchases';
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Shares of a community's peak mix (docs/bench.md), per 100 requests. */
const PEAK_MIX = { public: 60, own: 25, lists: 10, logins: 4, purchases: 1 } as const;

/** A deterministic order of 100 requests in the mix's proportions, spread out (no bursts of one kind). */
function peakMixSequence(tokens: string[], seeded: SeedResult, devices: string[]): MixRequest[] {
  const json = { 'content-type': 'application/json' };
  const gzip = { 'accept-encoding': 'gzip, br' };
  const auth = (i: number) => ({ ...gzip, authorization: `Bearer ${tokens[i % tokens.length]}` });
  const publicPaths = ['/api/tidings/news', '/api/donate/fully', '/api/servers/', '/api/shop/all', '/'];
  const listPaths = ['/api/user/history', '/api/shop/orders', '/api/user/deliveries', '/api/votes/top'];
  const out: MixRequest[] = [];
  for (let i = 0; i < PEAK_MIX.public; i++)
    out.push({ group: 'public', method: 'GET', path: publicPaths[i % publicPaths.length]!, headers: gzip });
  for (let i = 0; i < PEAK_MIX.own; i++)
    out.push({ group: 'own', method: 'GET', path: i % 2 ? '/api/user/head' : '/api/user/me', headers: auth(i) });
  for (let i = 0; i < PEAK_MIX.lists; i++) {
    const p = listPaths[i % listPaths.length]!;
    out.push({
      group: 'lists',
      method: 'GET',
      path: p,
      headers: p.startsWith('/api/user/') || p.startsWith('/api/shop/') ? auth(i) : gzip,
    });
  }
  for (let i = 0; i < PEAK_MIX.logins; i++)
    out.push({
      group: 'logins',
      method: 'POST',
      path: '/api/user/login',
      // Returning players: each from the browser where they logged in before (its device cookie).
      headers: { ...json, cookie: devices[i % devices.length]! },
      // Players other than the buyers, so that the buyers' sessions (the /me tokens) stay as they are.
      body: JSON.stringify({ username: `Player_${200 + (i % devices.length)}`, password: seeded.player.password, bearer: true }),
    });
  out.push({
    group: 'purchases',
    method: 'POST',
    path: '/api/shop/buy',
    headers: { ...json, authorization: `Bearer ${tokens[0]}` },
    body: JSON.stringify({ shop_id: seeded.benchItemId, quantity: 1 }),
  });
  // Spread: a fixed pseudo-random order (the same in every run).
  let s = 29;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * An open-loop load at a fixed rate: requests go out on schedule whether or not earlier ones were
 * answered (a slow site is not given a rest, unlike a closed loop), and each latency counts from
 * the moment the request was due.
 */
async function openLoop(base: string, rate: number, seconds: number, mix: MixRequest[]) {
  const u = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const latencies: Record<'other' | 'logins', number[]> = { other: [], logins: [] };
  const failed = { other: 0, logins: 0 };
  let sent = 0;
  let answered = 0;
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  const fire = (r: MixRequest, due: number) => {
    const p = new Promise<void>((resolve) => {
      const req = http.request(
        { host: u.hostname, port: u.port, method: r.method, path: r.path, headers: r.headers, agent, timeout: 10_000 },
        (res) => {
          res.resume();
          res.on('end', () => {
            answered++;
            (r.group === 'logins' ? latencies.logins : latencies.other).push(performance.now() - due);
            if ((res.statusCode ?? 500) >= 400) failed[r.group === 'logins' ? 'logins' : 'other']++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        failed[r.group === 'logins' ? 'logins' : 'other']++;
        resolve();
      });
      req.on('timeout', () => req.destroy());
      req.end(r.body);
    });
    inFlight.add(p);
    void p.then(() => inFlight.delete(p));
  };
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const elapsed = (performance.now() - started) / 1000;
      // Every request due by now (request n is due at n / rate seconds, the first at once).
      const due = Math.min(Math.floor(Math.min(elapsed, seconds) * rate) + 1, Math.floor(seconds * rate));
      while (sent < due) {
        // Each request's own due time, so a late tick does not hide a delay.
        fire(mix[sent % mix.length]!, started + (sent / rate) * 1000);
        sent++;
      }
      if (elapsed >= seconds) {
        clearInterval(tick);
        resolve();
      }
    }, 2);
  });
  await Promise.race([Promise.all(inFlight), new Promise((r) => setTimeout(r, 10_000))]);
  const unanswered = sent - answered;
  agent.destroy();
  const other = latencies.other.sort((a, b) => a - b);
  const logins = latencies.logins.sort((a, b) => a - b);
  return {
    rate,
    achieved: Math.round(answered / seconds),
    p99_ms: Math.round(percentile(other, 99) * 10) / 10,
    p50_ms: Math.round(percentile(other, 50) * 10) / 10,
    login_p99_ms: Math.round(percentile(logins, 99)),
    failed: failed.other + failed.logins + unanswered,
    failed_logins: failed.logins,
    sent,
  };
}

/**
 * One-core capacity: the site pinned to one core (its caller starts it so), the load
 * generated from another, the peak mix at rising fixed rates until a step no longer holds: p99 of
 * everything but logins ≤ 50 ms, of logins ≤ 250 ms, at most 1 % refused or failed. Returns every
 * step and the highest rate that held.
 */
export async function benchOneCore(url: string, seeded: SeedResult, rates: number[], stepSeconds: number) {
  // One at a time: a burst of logins from unknown browsers is refused (the password-check queue).
  const tokens: string[] = [];
  for (const b of seeded.buyers.slice(0, 20)) tokens.push(await login(url, b.username, b.password));
  const devices: string[] = [];
  for (let i = 0; i < PEAK_MIX.logins; i++) {
    const res = await fetch(`${url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: `Player_${200 + i}`, password: seeded.player.password }),
    });
    await res.arrayBuffer();
    const device = res.headers.getSetCookie().find((c) => c.startsWith('kubik_device='));
    if (!res.ok || !device) throw new Error(`one core: login Player_${200 + i}: ${res.status}`);
    devices.push(device.split(';')[0]!);
  }
  const mix = peakMixSequence(tokens, seeded, devices);
  // Warm-up: every kind of request once (caches filled, the fast paths learnt), then a short calm load.
  for (const r of mix) {
    const res = await fetch(url + r.path, { method: r.method, headers: r.headers, body: r.body });
    await res.arrayBuffer();
    if (res.status >= 400) throw new Error(`one core warm-up: ${r.method} ${r.path} answered ${res.status}`);
  }
  await openLoop(url, 50, 2, mix);
  const steps: (Awaited<ReturnType<typeof openLoop>> & { held: boolean })[] = [];
  let best = 0;
  for (const rate of rates) {
    const r = await openLoop(url, rate, stepSeconds, mix);
    const held = r.p99_ms <= 50 && r.login_p99_ms <= 250 && r.failed <= r.sent * 0.01 && r.achieved >= rate * 0.95;
    steps.push({ ...r, held });
    console.log(
      `  one core, ${rate} req/s: answered ${r.achieved}/s, p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms (logins ${r.login_p99_ms} ms), failed ${r.failed} of ${r.sent} (logins ${r.failed_logins}): ${held ? 'held' : 'NOT held'}`,
    );
    if (!held) break;
    best = rate;
  }
  return { steps, held_rate: best };
}
