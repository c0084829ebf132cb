import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type DbHandle } from '../db/index.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { VanillaRconServer } from '../../../../testing/rcon/vanilla-server.ts';
import { findLedgerMismatches } from '../modules/ledger/ledger.service.ts';
import { findShopLedgerMismatches } from '../modules/shop/shop.service.ts';
import { createPgDatabase, dbKinds, seedUser, type TestApp } from '../test/test-app.ts';
import { freePort } from '../../../../testing/free-port.ts';

/*
 * The crash test: the real site runs as a child process (node main.ts, as `npm start` runs it)
 * under a load of purchases while deliveries flow to a game server over RCON, and is killed
 * with SIGKILL at random moments, several times. After every restart the money and the goods
 * must agree exactly: balances with the ledger, stock with the orders, every acknowledged
 * purchase with its order, ledger row and deliveries, no order that nobody was told about, and
 * no delivery lost or sent twice. Requests whose answer was lost in a crash are retried with the
 * same Idempotency-Key, as a careful client would: each must end up bought exactly once.
 */

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const CYCLES = 4;
const BUYERS = 8;
/** Between one buyer's purchases: the game server takes ~25 commands a second (RCON answers are two packets). */
const PAUSE_MS = 100;
const PLAYERS = 8;
const BALANCE = 10_000_000; // kopecks each: nobody runs out of money
const PRICE = 1.5; // roubles per piece
const PLENTY = 100_000; // pieces: never sells out
const SCARCE = 25; // pieces: sells out during the run, so refusals race with purchases
const TEMPLATE = 'give {player} minecraft:{item} {quantity} order={order}';
/** A delivery claim's lease with RCON_TIMEOUT_MS=2000 (modules/deliveries/deliveries.claims.ts leaseMs). */
const LEASE_MS = 2 * 2000 + 30_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The site as a child process, started and killed by this test only. */
class Site {
  private child: ChildProcess | null = null;
  url = '';
  readonly log: string[] = [];

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  async start(): Promise<void> {
    const port = await freePort();
    this.url = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], {
      cwd: ROOT,
      env: { ...this.env, PORT: String(port), PUBLIC_URL: this.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (chunk: Buffer) => this.log.push(...chunk.toString().split('\n').filter(Boolean).slice(0, 20));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`site exited with ${child.exitCode}:\n${this.log.slice(-20).join('\n')}`);
      try {
        const res = await fetch(`${this.url}/api/site`);
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`site did not start in 60 s:\n${this.log.slice(-20).join('\n')}`);
      await sleep(100);
    }
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }
}

interface Attempt {
  key: string;
  token: string;
  userId: number;
  itemId: number;
  quantity: number;
}

interface Outcome {
  status: number;
  orderId?: number;
  error?: string;
}

async function post(url: string, token: string, body: unknown, key?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...(key && { 'idempotency-key': key }) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe.each(dbKinds)('crash test on %s', (kind) => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it('keeps money, stock, orders and deliveries exact across SIGKILLs during purchases and deliveries', async () => {
    // ---------------------------------------------------------------- a database, players, a game server
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kubik-crash-'));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const pgDb = kind === 'pg' ? await createPgDatabase() : null;
    if (pgDb) cleanup.push(() => pgDb.drop());
    const handle: DbHandle = openDatabase({ databaseUrl: pgDb?.url, sqlitePath: path.join(dataDir, 'kubik.sqlite') });
    cleanup.push(async () => {
      await handle.close();
      // pg's pool resolves end() before its sockets have closed; the database is dropped WITH (FORCE) next.
      await sleep(250);
    });
    await migrateToLatest(handle);
    // The seeding helper only needs the database.
    const seeder = { handle } as unknown as TestApp;
    await seedUser(seeder, 'Owner', { admin: true });
    const players: { id: number; name: string }[] = [];
    for (let i = 0; i < PLAYERS; i++)
      players.push({ id: await seedUser(seeder, `Player${i}`, { balanceKopecks: BALANCE }), name: `Player${i}` });

    // Answers like Minecraft to the give command of our template (the order number is there to count deliveries).
    const rcon = new VanillaRconServer({
      password: 'rcon-secret',
      onCommand: (command) => {
        const m = /^give (\S+) (\S+) (\d+) order=\d+$/.exec(command);
        return m ? `Gave ${m[3]} [${m[2]}] to ${m[1]}` : 'Unknown or incomplete command, see below for error';
      },
    });
    await rcon.start(0);
    cleanup.push(() => rcon.stop());

    const site = new Site({
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ...(pgDb && { DATABASE_URL: pgDb.url }),
      RATE_LIMITS: 'off',
      DELIVERY_INTERVAL_SEC: '1',
      RCON_TIMEOUT_MS: '2000',
      // The same instance after each restart (on a new port): it takes back its dead life's claims at once.
      INSTANCE_ID: 'crash-test-site',
      MONITOR_INTERVAL_SEC: '86400',
      LOG_LEVEL: 'warn',
      WEB_DIST: path.join(dataDir, 'no-web'),
    });
    cleanup.push(() => site.kill());
    await site.start();

    const login = async (username: string) => {
      const res = await fetch(`${site.url}/api/user/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password: 'password123', bearer: true }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { token: string }).token;
    };
    const owner = await login('Owner');
    const server = await post(`${site.url}/api/servers/`, owner, {
      name: 'Выживание',
      description: 'Сервер для теста',
      ip_address: '127.0.0.1',
      port: 25565,
      rcon_host: '127.0.0.1',
      rcon_port: rcon.port,
      rcon_password: 'rcon-secret',
      command_template: TEMPLATE,
    });
    expect(server.status, JSON.stringify(server.body)).toBe(201);
    const serverId = (server.body.server as { id: number }).id;
    const items: { id: number; stock: number }[] = [];
    for (const [name, stock] of [
      ['Алмаз', PLENTY],
      ['Элитры', SCARCE],
    ] as const) {
      const res = await post(`${site.url}/api/shop/admin/create`, owner, {
        name,
        price: PRICE,
        count: stock,
        icon: '/i.png',
        item_id_minecraft: name === 'Алмаз' ? 'diamond' : 'elytra',
        server_id: serverId,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      items.push({ id: res.body.id as number, stock });
    }
    // Sessions live in the database: the tokens stay good across every restart.
    const tokens = new Map<number, string>();
    for (const p of players) tokens.set(p.id, await login(p.name));

    // ---------------------------------------------------------------- the load
    const outcomes = new Map<string, Outcome>();
    let inDoubt: Attempt[] = [];
    let attempts = 0;
    let inFlight = 0;

    async function attempt(a: Attempt): Promise<void> {
      attempts++;
      inFlight++;
      try {
        const res = await post(`${site.url}/api/shop/buy`, a.token, { shop_id: a.itemId, quantity: a.quantity }, a.key);
        outcomes.set(a.key, {
          status: res.status,
          orderId: res.body.order_id as number | undefined,
          error: res.body.error as string | undefined,
        });
      } catch {
        // The answer was lost (the site died under it): the purchase may or may not have happened.
        inDoubt.push(a);
      } finally {
        inFlight--;
      }
    }
    const attemptsByKey = new Map<string, Attempt>();
    function buyers(stopped: () => boolean): Promise<void>[] {
      return Array.from({ length: BUYERS }, async (_, i) => {
        while (!stopped()) {
          const player = players[(i + Math.floor(Math.random() * PLAYERS)) % PLAYERS]!;
          const item = Math.random() < 0.3 ? items[1]! : items[0]!;
          const a: Attempt = {
            key: `crash-${randomUUID()}`,
            token: tokens.get(player.id)!,
            userId: player.id,
            itemId: item.id,
            quantity: 1 + Math.floor(Math.random() * 3),
          };
          attemptsByKey.set(a.key, a);
          const before = inDoubt.length;
          await attempt(a);
          if (inDoubt.length > before) return; // the site is gone; this buyer waits for the next cycle
          await sleep(Math.random() * 2 * PAUSE_MS);
        }
      });
    }

    // ---------------------------------------------------------------- the checks after a restart
    const db = handle.db;
    async function check(stage: string): Promise<string[]> {
      const problems: string[] = [];
      const say = (s: string) => problems.push(`${stage}: ${s}`);
      // The site keeps delivering while we look: a command seen before reading the rows was sent
      // before they were read (so its row cannot be pending); a row read as done had its command
      // seen by the time the rows were read.
      const orderOf = (command: string) => Number(/ order=(\d+)$/.exec(command)?.[1]);
      const seenBefore = new Set(rcon.commands.map(orderOf));
      for (const m of await findLedgerMismatches(db)) say(`balance of ${m.username} is ${m.balance}, its ledger sums to ${m.ledger}`);
      for (const m of await findShopLedgerMismatches(db)) say(m);

      const orders = await db.selectFrom('shop_orders').select(['id', 'user_id', 'item_id', 'quantity', 'total']).execute();
      const deliveries = (
        await db
          .selectFrom('deliveries')
          .select(['id', 'source_id', 'quantity', 'state', 'last_error', 'reply'])
          .where('source', '=', 'shop')
          .execute()
      ).map(({ source_id, ...d }) => ({ ...d, order_id: source_id! }));
      const purchaseRows = await db.selectFrom('ledger').select(['ref', 'amount', 'user_id']).where('reason', '=', 'purchase').execute();
      const ordersById = new Map(orders.map((o) => [o.id, o]));

      for (const [key, o] of outcomes)
        if (o.status !== 200 && o.status !== 409) say(`purchase ${key} was answered ${o.status}: ${o.error}`);

      // Every acknowledged purchase has its order (the one it was told), ledger row and deliveries; every order was acknowledged once.
      const acknowledged = new Map<number, string>();
      for (const [key, o] of outcomes) {
        if (o.status !== 200) continue;
        const a = attemptsByKey.get(key)!;
        const order = o.orderId === undefined ? undefined : ordersById.get(o.orderId);
        if (!order) {
          say(`purchase ${key} was answered 200 with order ${o.orderId}, which does not exist`);
          continue;
        }
        if (order.user_id !== a.userId || order.item_id !== a.itemId || Number(order.quantity) !== a.quantity)
          say(`order ${order.id} is not what ${key} bought`);
        const other = acknowledged.get(order.id);
        if (other && other !== key) say(`order ${order.id} was acknowledged to two purchases: ${other} and ${key}`);
        acknowledged.set(order.id, key);
        if (!purchaseRows.some((r) => r.ref === `order:${order.id}` && Number(r.amount) === -Number(order.total)))
          say(`order ${order.id} has no ledger row`);
      }
      for (const order of orders) {
        if (!acknowledged.has(order.id)) say(`order ${order.id} was never acknowledged to anybody`);
        const mine = deliveries.filter((d) => d.order_id === order.id);
        const pieces = mine.reduce((s, d) => s + Number(d.quantity), 0);
        if (mine.length === 0 || pieces !== Number(order.quantity))
          say(`order ${order.id} of ${order.quantity} pieces has ${mine.length} deliveries of ${pieces} pieces`);
      }

      // Stock moves only with orders; balances only with purchases.
      for (const item of items) {
        const row = await db.selectFrom('shop_items').select('count').where('id', '=', item.id).executeTakeFirstOrThrow();
        const sold = orders.filter((o) => o.item_id === item.id).reduce((s, o) => s + Number(o.quantity), 0);
        if (Number(row.count) + sold !== item.stock) say(`item ${item.id}: ${row.count} left + ${sold} sold ≠ ${item.stock}`);
        if (Number(row.count) < 0) say(`item ${item.id} oversold: ${row.count}`);
      }
      for (const p of players) {
        const row = await db.selectFrom('users').select('balance').where('id', '=', p.id).executeTakeFirstOrThrow();
        const spent = orders.filter((o) => o.user_id === p.id).reduce((s, o) => s + Number(o.total), 0);
        if (Number(row.balance) !== BALANCE - spent) say(`${p.name}: balance ${row.balance} ≠ ${BALANCE} − ${spent}`);
      }

      // Deliveries: none lost, none failed, and none sent twice.
      for (const d of deliveries) {
        if (!ordersById.has(d.order_id)) say(`delivery ${d.id} belongs to no order`);
        if (!['pending', 'sent', 'done', 'unknown'].includes(d.state))
          say(`delivery ${d.id} is ${d.state}: ${d.last_error ?? ''} ${d.reply ?? ''}`);
      }
      const times = new Map<number, number>();
      for (const id of rcon.commands.map(orderOf)) times.set(id, (times.get(id) ?? 0) + 1);
      for (const [orderId, n] of times) {
        if (Number.isNaN(orderId)) say(`an unexpected command reached the game server`);
        if (n > 1) say(`order ${orderId} was given ${n} times`);
      }
      // A command that reached the game must never be waiting to be sent again.
      for (const d of deliveries)
        if (d.state === 'pending' && seenBefore.has(d.order_id))
          say(`delivery ${d.id} of order ${d.order_id} reached the game but is pending again`);
      for (const d of deliveries)
        if (d.state === 'done' && times.get(d.order_id) !== 1)
          say(`delivery ${d.id} is done but its order was given ${times.get(d.order_id) ?? 0} times`);
      return problems;
    }

    // ---------------------------------------------------------------- kill, restart, retry, check
    const problems: string[] = [];
    let retried = 0;
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      let stopped = false;
      const load = buyers(() => stopped);
      // Let purchases and deliveries run, then pull the plug at a random moment.
      await sleep(300 + Math.floor(Math.random() * 1200));
      // ...while a purchase is on its way, so that some answers are surely lost.
      while (inFlight === 0) await new Promise((r) => setImmediate(r));
      stopped = true;
      await site.kill('SIGKILL');
      await Promise.all(load);
      const restarted = Date.now();
      await site.start();
      // The restarted instance takes back at once what its dead life claimed, instead of waiting
      // out the leases (2 × RCON_TIMEOUT_MS + 30 s): no claim from before the restart outlives a second.
      const claimedBefore = () =>
        db
          .selectFrom('deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('locked_until', 'is not', null)
          .where('locked_until', '<', restarted + LEASE_MS)
          .executeTakeFirstOrThrow();
      const taken = Date.now() + 1000;
      while (Number((await claimedBefore()).n) > 0 && Date.now() < taken) await sleep(50);
      const held = Number((await claimedBefore()).n);
      if (held > 0) problems.push(`after kill ${cycle}: ${held} deliveries still claimed by the dead process a second after the restart`);

      // A careful client retries a purchase whose answer it never got, with the same key.
      const retry = inDoubt;
      retried += retry.length;
      inDoubt = [];
      for (const a of retry) await attempt(a);
      expect(inDoubt, 'retries after the restart got answers').toEqual([]);
      problems.push(...(await check(`after kill ${cycle}`)));
    }

    // Deliveries resume after the last restart: everything pending reaches the game (a row the dead
    // process was sending was judged interrupted at the restart: it may have run, it is not resent).
    const due = () =>
      db
        .selectFrom('deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('state', 'in', ['pending', 'sent'])
        .executeTakeFirstOrThrow();
    const deadline = Date.now() + 20_000;
    while (Number((await due()).n) > 0 && Date.now() < deadline) await sleep(200);
    const left = Number((await due()).n);
    if (left > 0)
      problems.push(`${left} deliveries still waiting 20 s after the last restart (site log: ${site.log.slice(-5).join(' | ')})`);
    problems.push(...(await check('at the end')));

    // Replaying an acknowledged purchase gives its first answer, not a second purchase.
    const acked = [...outcomes].filter(([, o]) => o.status === 200).slice(0, 10);
    for (const [key, o] of acked) {
      const a = attemptsByKey.get(key)!;
      const again = await post(`${site.url}/api/shop/buy`, a.token, { shop_id: a.itemId, quantity: a.quantity }, key);
      if (again.status !== 200 || again.body.order_id !== o.orderId)
        problems.push(`replay of ${key}: ${again.status} ${JSON.stringify(again.body)}`);
    }

    const stats = await db
      .selectFrom('deliveries')
      .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('state')
      .execute();
    const orders = Number(
      (
        await db
          .selectFrom('shop_orders')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const soldOut = [...outcomes.values()].filter((o) => o.status === 409).length;
    // The run must have been a real one: purchases in every state of the race, and commands delivered.
    expect(problems).toEqual([]);
    expect(orders, `orders (attempts ${attempts})`).toBeGreaterThan(50);
    expect(soldOut, 'refusals of the sold-out item').toBeGreaterThan(0);
    expect(rcon.commands.length, `commands (deliveries: ${JSON.stringify(stats)})`).toBeGreaterThan(20);
    expect(retried, 'purchases in flight when the site was killed').toBeGreaterThan(0);

    await site.kill('SIGTERM');
  }, 240_000);
});
