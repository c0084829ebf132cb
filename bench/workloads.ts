import { spawn } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../apps/server/src/db/index.ts';
import { enqueueDelivery } from '../apps/server/src/modules/deliveries/deliveries.queue.ts';
import { postLedger } from '../apps/server/src/modules/ledger/ledger.service.ts';
import type { SeedResult } from './seed.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BUYERS = 100;

async function login(url: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${url}/api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
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
  const tokens = await Promise.all(seeded.buyers.slice(0, BUYERS).map((b) => login(url, b.username, b.password)));
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
  const buyerIds = (await handle.db.selectFrom('users').select('id').where('username', 'like', 'Buyer_%').orderBy('id').limit(BUYERS).execute()).map((r) => r.id);
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
        .values({ user_id: userId, item_id: item.id, item_name: item.name, item_id_minecraft: item.item_id_minecraft, price, quantity: 1, total: price, created_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      await postLedger(trx, { userId, amount: -price, reason: 'purchase', authorId: userId, ref: `order:${order.id}` });
      await enqueueDelivery(trx, { source: 'shop', sourceId: order.id, userId, label: item.name, server: item.server_id ?? 'only', commands: null, params: { item: item.item_id_minecraft, quantity: 1, order: order.id }, quantity: 1 });
    });
    return true;
  });
  await handle.close();
  return { site_per_s: site.perSecond, site_failures: site.failures, raw_per_s: raw.perSecond, ratio: Number((site.perSecond / Math.max(1, raw.perSecond)).toFixed(2)) };
}

/**
 * One monitor sweep over 1,000 local status servers of which 5 % never answer, triggered as the
 * admin's refresh button does (POST /api/servers/monitor).
 */
export async function benchSweep(url: string, seeded: SeedResult & { admin?: { username: string; password: string } }, databaseUrl: string | undefined, sqlitePath: string, timeoutMs = 3000) {
  const farm = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/status-farm.ts'), '1000', '0.05'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const { ports, silent } = await new Promise<{ ports: number[]; silent: number[] }>((resolve) => farm.once('message', (m) => resolve(m as { ports: number[]; silent: number[] })));
    const handle = openDatabase({ databaseUrl, sqlitePath });
    const now = Date.now();
    await handle.db.deleteFrom('servers').execute();
    const all = [...ports, ...silent];
    for (let i = 0; i < all.length; i += 200) {
      await handle.db
        .insertInto('servers')
        .values(
          all.slice(i, i + 200).map((port, k) => ({ name: `Бенч ${i + k}`, description: 'Бенчмарк', image_url: '', ip_address: '127.0.0.1', port, max_online: 100, online: 0, status: 'offline', version: null, motd: null, fail_count: 0, last_checked_at: null, rcon_host: null, rcon_port: null, rcon_password: null, command_template: null, sort_order: i + k, created_at: now, updated_at: now })),
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
