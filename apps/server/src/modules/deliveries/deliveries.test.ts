import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { VanillaRconServer, type VanillaRconOptions } from '../../../../../testing/rcon/vanilla-server.ts';
import {
  asUser,
  createPgDatabase,
  createTestApp,
  dbKinds,
  errorOf,
  loginAs,
  seedUser,
  startInstance,
  type TestApp,
} from '../../test/test-app.ts';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { findShopLedgerMismatches } from '../shop/shop.service.ts';
import { addServer, balanceOf, closeTestApp } from '../shop/shop.test-helpers.ts';
import { enqueueDeliveries, enqueueDelivery, kickDeliveries } from './deliveries.queue.ts';
import { drainDeliveries, DeliveryWorker, leaseMs, type DeliveryOptions } from './deliveries.worker.ts';
import { ClaimOwner } from '../../lib/jobs/index.ts';

// The deadline is generous: a loaded CI machine must not turn a slow answer into "unknown".
const OPTS: DeliveryOptions = { intervalMs: 1000, timeoutMs: 2000 };
const LATER = () => Date.now() + 3_600_000;

async function until(check: () => Promise<boolean>, ms = 8000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(dbKinds)('deliveries on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let player: string;
  let playerId: number;
  let adminId: number;
  const rcons: VanillaRconServer[] = [];

  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false, delivery: OPTS });
    adminId = await seedUser(t, 'Admin', { admin: true });
    playerId = await seedUser(t, 'Steve', { balanceKopecks: 10_000_000 });
    admin = await loginAs(t, 'Admin');
    player = await loginAs(t, 'Steve');
  });
  afterEach(async () => {
    for (const r of rcons.splice(0)) await r.stop();
  });
  afterAll(() => closeTestApp(t));

  const drain = (now?: () => number) => drainDeliveries(t.handle.db, { ...OPTS, ...(now && { now }) }, t.app.log);

  async function rconServer(options: Partial<VanillaRconOptions> = {}) {
    const rcon = new VanillaRconServer({ password: 'rcon-secret', online: ['Steve', 'Alex'], ...options });
    rcons.push(rcon);
    await rcon.start(0);
    return rcon;
  }

  /** A running vanilla-like RCON server, its servers row and an item delivered there. */
  async function setup(
    options: Partial<VanillaRconOptions> = {},
    server: { command_template?: string; password?: string; name?: string } = {},
    item: object = {},
  ) {
    const rcon = await rconServer(options);
    const serverId = await addServer(t, {
      name: server.name ?? `Сервер ${rcon.port}`,
      rcon_host: '127.0.0.1',
      rcon_port: rcon.port,
      rcon_password: server.password ?? 'rcon-secret',
      command_template: server.command_template ?? null,
    });
    const res = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/shop/admin/create',
        payload: { name: 'Алмаз', price: 2.5, count: 100_000, icon: '/i.png', item_id_minecraft: 'diamond', server_id: serverId, ...item },
      }),
    );
    expect(res.statusCode, res.body).toBe(201);
    return { rcon, serverId, itemId: res.json<{ id: number }>().id };
  }
  const buy = async (itemId: number, quantity: number, token = player) => {
    const res = await t.app.inject(asUser(token, { method: 'POST', url: '/api/shop/buy', payload: { shop_id: itemId, quantity } }));
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ order_id: number; new_balance: number }>().order_id;
  };
  const rows = (orderId: number) =>
    t.handle.db.selectFrom('deliveries').selectAll().where('source', '=', 'shop').where('source_id', '=', orderId).orderBy('id').execute();
  const one = async (orderId: number) => (await rows(orderId))[0]!;
  const action = (id: number, what: 'resend' | 'refund', token = admin, payload?: object) =>
    t.app.inject(
      asUser(token, {
        method: 'POST',
        url: what === 'refund' ? `/api/shop/admin/deliveries/${id}/refund` : `/api/admin/deliveries/${id}/resend`,
        ...(payload && { payload }),
      }),
    );
  const myOrder = async (orderId: number) => {
    const orders = (await t.app.inject(asUser(player, { method: 'GET', url: '/api/shop/orders' }))).json<
      { id: number; deliveries: { state: string; waiting_text: string | null }[] }[]
    >();
    return orders.find((o) => o.id === orderId)!;
  };

  it('delivers a purchase: one command per stack, in order, the reply kept, the player sees it done', async () => {
    const { rcon, itemId } = await setup();
    const orderId = await buy(itemId, 130);
    const stats = await drain();
    expect(stats.done).toBe(3);
    expect(rcon.commands).toEqual(['give Steve minecraft:diamond 64', 'give Steve minecraft:diamond 64', 'give Steve minecraft:diamond 2']);
    const done = await rows(orderId);
    expect(done.map((d) => d.state)).toEqual(['done', 'done', 'done']);
    expect(done[2]).toMatchObject({
      command: 'give Steve minecraft:diamond 2',
      reply: 'Gave 2 [Diamond] to Steve',
      attempts: 1,
      last_error: null,
      label: 'Алмаз',
      quantity: 2,
    });
    expect(done[2]!.done_at).not.toBeNull();
    // One connection, one login, and nothing a real server would have refused.
    expect(rcon.logins).toEqual([{ ok: true }]);
    expect(rcon.violations).toEqual([]);
    // Nothing is sent twice.
    await drain(LATER);
    expect(rcon.commands).toHaveLength(3);
    expect((await myOrder(orderId)).deliveries.map((d) => d.state)).toEqual(['done', 'done', 'done']);
    // The player's bell: one notice for the purchase, not one per stack.
    const told = await t.handle.db.selectFrom('notices').select(['kind', 'title']).where('user_id', '=', playerId).execute();
    expect(told.filter((n) => n.title === 'Покупка выдана: Алмаз')).toEqual([{ kind: 'delivery_done', title: 'Покупка выдана: Алмаз' }]);
  });

  it('fills a custom template, with the order number', async () => {
    const { rcon, itemId } = await setup(
      { onCommand: () => 'ok' },
      { command_template: 'kit give {player} {item} {quantity} order-{order}' },
    );
    const orderId = await buy(itemId, 1);
    await drain();
    expect(rcon.commands).toEqual([`kit give Steve diamond 1 order-${orderId}`]);
  });

  it("runs an item's own commands once per purchase, in order, with pieces per purchase", async () => {
    const lp = (c: string) => (c.startsWith('lp ') ? `[LP] Set shop.diamonds to true for ${c.split(' ')[2]}.` : undefined);
    const { rcon, itemId } = await setup(
      { onCommand: lp },
      {},
      {
        name: 'Алмазы ×16',
        pieces: 16,
        commands: [
          'give {player} minecraft:{item} {quantity}',
          'say {player} купил {quantity} шт. (заказ {order})',
          'lp user {uuid} permission set shop.diamonds',
        ],
      },
    );
    const orderId = await buy(itemId, 3);
    await drain();
    const { uuid } = await t.handle.db.selectFrom('users').select('uuid').where('id', '=', playerId).executeTakeFirstOrThrow();
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-3[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(rcon.commands).toEqual([
      'give Steve minecraft:diamond 48',
      `say Steve купил 48 шт. (заказ ${orderId})`,
      `lp user ${uuid} permission set shop.diamonds`,
    ]);
    expect(rcon.given).toEqual(['Steve 48 minecraft:diamond']);
    expect(await one(orderId)).toMatchObject({
      state: 'done',
      step: 3,
      attempts: 3,
      quantity: 3,
      command: `lp user ${uuid} permission set shop.diamonds`,
    });
    // Without commands of its own, the pieces are split into stacks of at most 64 by the template.
    const { rcon: r2, itemId: i2 } = await setup({}, {}, { pieces: 16 });
    const o2 = await buy(i2, 5);
    await drain();
    expect(r2.commands).toEqual(['give Steve minecraft:diamond 64', 'give Steve minecraft:diamond 16']);
    expect((await rows(o2)).map((d) => d.quantity)).toEqual([4, 1]);
  });

  it('resumes a delivery of several commands at the command it stopped at, never repeating the ones that ran', async () => {
    let refuse = true;
    const lp = (c: string) =>
      refuse ? 'Unknown or incomplete command, see below for error' : `[LP] Set kit.vip to true for steve in context global. (${c.length})`;
    const { rcon, itemId } = await setup(
      { onCommand: (c) => (c.startsWith('lp') ? lp(c) : undefined) },
      {},
      { commands: ['give {player} minecraft:{item} {quantity}', 'lp user {player} permission set kit.vip'] },
    );
    const orderId = await buy(itemId, 1);
    await drain();
    const failed = await one(orderId);
    expect(failed).toMatchObject({ state: 'failed', step: 1, last_error: 'Сервер отклонил команду' });
    refuse = false;
    expect((await action(failed.id, 'resend')).statusCode).toBe(200);
    await drain();
    expect(await one(orderId)).toMatchObject({ state: 'done', step: 2 });
    expect(rcon.commands).toEqual([
      'give Steve minecraft:diamond 1',
      'lp user Steve permission set kit.vip',
      'lp user Steve permission set kit.vip',
    ]);
  });

  it('waits with backoff while the server is down, and delivers once it is back — from a new worker, as after a restart', async () => {
    const { rcon, itemId } = await setup({}, { name: 'Выживание' });
    const port = rcon.port;
    await rcon.stop();
    const orderId = await buy(itemId, 130);
    const before = Date.now();
    await drain();
    let waiting = await rows(orderId);
    expect(waiting.map((d) => d.state)).toEqual(['pending', 'pending', 'pending']);
    for (const d of waiting) {
      expect(d.retries).toBe(1);
      expect(d.waiting).toBe('server_down');
      expect(d.last_error).toMatch(/недоступен: соединение отклонено/);
      expect(Number(d.next_attempt_at)).toBeGreaterThanOrEqual(before + OPTS.intervalMs);
      expect(d.attempts).toBe(0);
    }
    // The player reads why.
    expect((await myOrder(orderId)).deliveries.map((d) => d.waiting_text)).toEqual(
      Array(3).fill('Сервер временно недоступен, выдадим автоматически'),
    );
    // Before the backoff is over nothing is tried; after it, the wait doubles.
    await drain();
    expect((await one(orderId)).retries).toBe(1);
    await drain(LATER);
    waiting = await rows(orderId);
    expect(waiting.every((d) => d.retries === 2 && d.state === 'pending')).toBe(true);

    await rcon.start(port);
    await t.handle.db.updateTable('deliveries').set({ next_attempt_at: Date.now() }).where('source_id', '=', orderId).execute();
    const worker = new DeliveryWorker(t.handle.db, OPTS, t.app.log);
    try {
      await worker.drain();
    } finally {
      await worker.stop();
    }
    expect((await rows(orderId)).map((d) => d.state)).toEqual(['done', 'done', 'done']);
    expect(rcon.commands).toEqual(['give Steve minecraft:diamond 64', 'give Steve minecraft:diamond 64', 'give Steve minecraft:diamond 2']);
    expect((await myOrder(orderId)).deliveries.map((d) => d.waiting_text)).toEqual([null, null, null]);
  });

  it('waits on a wrong RCON password without sending, and delivers once it is fixed', async () => {
    const { rcon, itemId, serverId } = await setup({}, { password: 'wrong' });
    const orderId = await buy(itemId, 1);
    await drain();
    const d = await one(orderId);
    expect(d).toMatchObject({ state: 'pending', waiting: 'server_down' });
    expect(d.last_error).toMatch(/отклонил пароль RCON/);
    expect(rcon.logins).toEqual([{ ok: false }]);
    expect(rcon.commands).toEqual([]);
    await t.handle.db.updateTable('servers').set({ rcon_password: 'rcon-secret' }).where('id', '=', serverId).execute();
    await drain(LATER);
    expect((await one(orderId)).state).toBe('done');
    expect(rcon.commands).toEqual(['give Steve minecraft:diamond 1']);
  });

  it('marks a command without an answer unknown and never resends it on its own; an admin resend does', async () => {
    let answer = false;
    const { rcon, itemId } = await setup({ onCommand: () => (answer ? undefined : { drop: 'after' }) });
    const orderId = await buy(itemId, 1);
    const stats = await drain();
    expect(stats.unknown).toBe(1);
    const d = await one(orderId);
    expect(d).toMatchObject({ state: 'unknown', attempts: 1, command: 'give Steve minecraft:diamond 1' });
    expect(d.last_error).toMatch(/могла выполниться/);
    await drain(LATER);
    await drain(LATER);
    expect(rcon.commands).toHaveLength(1);

    const list = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/admin/deliveries?state=unknown' }));
    expect(list.json().map((x: { id: number }) => x.id)).toContain(d.id);

    answer = true;
    const resend = await action(d.id, 'resend');
    expect(resend.statusCode).toBe(200);
    expect(resend.json()).toMatchObject({ message: 'Доставка поставлена в очередь', delivery: { id: d.id, state: 'pending' } });
    await drain();
    expect(await one(orderId)).toMatchObject({ state: 'done', attempts: 2, reply: 'Gave 1 [Diamond] to Steve' });
    expect(rcon.commands).toHaveLength(2);
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'actor_id'])
      .where('entity', '=', 'delivery')
      .where('entity_id', '=', String(d.id))
      .execute();
    expect(audit).toEqual([{ action: 'delivery.resend', actor_id: adminId }]);
  });

  it('waits for a player who is not in the game, tells them where to go, and delivers when they join', async () => {
    const { rcon, itemId } = await setup({ online: [] }, { name: 'Выживание' });
    const orderId = await buy(itemId, 1);
    await drain();
    expect(await one(orderId)).toMatchObject({
      state: 'pending',
      waiting: 'player_offline',
      reply: 'No player was found',
      retries: 1,
      attempts: 1,
    });
    expect((await one(orderId)).last_error).toMatch(/Игрока нет в игре/);
    expect((await myOrder(orderId)).deliveries[0]!.waiting_text).toBe('Зайдите на сервер «Выживание», чтобы получить покупку');
    const mine = await t.app.inject(asUser(player, { method: 'GET', url: '/api/user/deliveries' }));
    expect(mine.json().deliveries.find((x: { source_id: number }) => x.source_id === orderId)).toMatchObject({
      source: 'shop',
      label: 'Алмаз',
      server_name: 'Выживание',
      state: 'pending',
      waiting: 'player_offline',
      waiting_text: 'Зайдите на сервер «Выживание», чтобы получить покупку',
    });
    rcon.join('Steve');
    await drain(LATER);
    expect(await one(orderId)).toMatchObject({ state: 'done', waiting: null });
    expect(rcon.commands).toHaveLength(2);
    expect((await myOrder(orderId)).deliveries[0]).toMatchObject({ state: 'done', waiting_text: null });
  });

  it('marks a refused command failed; a refund credits the ledger once and returns the stock', async () => {
    const { rcon, itemId } = await setup({ onCommand: () => "Unknown item 'minecraft:diamond'" });
    const stockBefore = Number(
      (await t.handle.db.selectFrom('shop_items').select('count').where('id', '=', itemId).executeTakeFirstOrThrow()).count,
    );
    const balanceBefore = await balanceOf(t, playerId);
    const orderId = await buy(itemId, 3);
    await drain();
    const d = await one(orderId);
    expect(d).toMatchObject({ state: 'failed', reply: "Unknown item 'minecraft:diamond'", last_error: 'Сервер отклонил команду' });
    const failedNotice = await t.handle.db
      .selectFrom('notices')
      .select(['kind', 'body'])
      .where('user_id', '=', playerId)
      .where('kind', '=', 'delivery_failed')
      .orderBy('id', 'desc')
      .executeTakeFirst();
    expect(failedNotice?.body).toContain('Администратор уже видит');
    await drain(LATER);
    expect(rcon.commands).toHaveLength(1);

    const refund = await action(d.id, 'refund');
    expect(refund.statusCode).toBe(200);
    expect(refund.json()).toMatchObject({
      message: 'Деньги возвращены на баланс игрока',
      delivery: { state: 'refunded', amount: 7.5 },
      new_balance: balanceBefore / 100,
    });
    expect(await balanceOf(t, playerId)).toBe(balanceBefore);
    const ledger = await t.handle.db.selectFrom('ledger').selectAll().where('ref', '=', `delivery:${d.id}`).execute();
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ reason: 'refund', author_id: adminId, user_id: playerId });
    expect(Number(ledger[0]!.amount)).toBe(750);
    expect(
      Number((await t.handle.db.selectFrom('shop_items').select('count').where('id', '=', itemId).executeTakeFirstOrThrow()).count),
    ).toBe(stockBefore);

    // Once: a second refund, or ten at once, change nothing.
    const again = await Promise.all(Array.from({ length: 10 }, () => action(d.id, 'refund')));
    for (const a of again) {
      expect(a.statusCode).toBe(409);
      expect(errorOf(a)).toBe('Деньги за эту доставку уже возвращены');
    }
    expect(errorOf(await action(d.id, 'resend'))).toBe('Деньги за эту доставку уже возвращены');
    expect(await balanceOf(t, playerId)).toBe(balanceBefore);
    expect(await findLedgerMismatches(t.handle.db)).toEqual([]);
    expect(await findShopLedgerMismatches(t.handle.db)).toEqual([]);
    expect((await myOrder(orderId)).deliveries[0]!.state).toBe('refunded');
  });

  it('refunds concurrent requests for one delivery exactly once', async () => {
    const { itemId } = await setup({ onCommand: () => 'Unknown item' });
    const orderId = await buy(itemId, 2);
    await drain();
    const d = await one(orderId);
    const balance = await balanceOf(t, playerId);
    const answers = await Promise.all(Array.from({ length: 20 }, () => action(d.id, 'refund')));
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(1);
    expect(await balanceOf(t, playerId)).toBe(balance + 500);
    expect(await t.handle.db.selectFrom('ledger').select('id').where('ref', '=', `delivery:${d.id}`).execute()).toHaveLength(1);
  });

  it('refuses to refund or resend a delivered item, and refunding a waiting one stops it', async () => {
    const { rcon, itemId } = await setup();
    const doneOrder = await buy(itemId, 1);
    await drain();
    const delivered = await one(doneOrder);
    expect(delivered.state).toBe('done');
    expect(errorOf(await action(delivered.id, 'refund'))).toBe('Предмет уже выдан: эту доставку нельзя повторить или вернуть');
    expect(errorOf(await action(delivered.id, 'resend'))).toBe('Предмет уже выдан: эту доставку нельзя повторить или вернуть');
    expect((await action(999_999, 'refund')).statusCode).toBe(404);
    expect((await action(delivered.id, 'refund', player)).statusCode).toBe(403);

    const waitingOrder = await buy(itemId, 1);
    const waiting = await one(waitingOrder);
    expect((await action(waiting.id, 'refund')).statusCode).toBe(200);
    await drain(LATER);
    expect(rcon.commands).toHaveLength(1);
    expect((await one(waitingOrder)).state).toBe('refunded');
  });

  it('after a crash: a command lost mid-way becomes unknown, a claim that never sent is retried', async () => {
    const { rcon, itemId } = await setup();
    const lostOrder = await buy(itemId, 1);
    const claimedOrder = await buy(itemId, 1);
    const long = Date.now() - leaseMs(OPTS) - 1000;
    // What a worker that died leaves behind.
    await t.handle.db
      .updateTable('deliveries')
      .set({ state: 'sent', lock_token: 'dead', locked_until: long, sent_at: long, attempts: 1, command: 'give Steve minecraft:diamond 1' })
      .where('source_id', '=', lostOrder)
      .execute();
    await t.handle.db
      .updateTable('deliveries')
      .set({ lock_token: 'dead', locked_until: long })
      .where('source_id', '=', claimedOrder)
      .execute();
    // A live claim (another instance at work) is left alone.
    const liveOrder = await buy(itemId, 1);
    await t.handle.db
      .updateTable('deliveries')
      .set({ lock_token: 'alive', locked_until: Date.now() + 60_000 })
      .where('source_id', '=', liveOrder)
      .execute();

    await drain();
    expect(await one(lostOrder)).toMatchObject({ state: 'unknown', attempts: 1 });
    expect((await one(lostOrder)).last_error).toMatch(/прервалась/);
    expect((await one(claimedOrder)).state).toBe('done');
    expect((await one(liveOrder)).state).toBe('pending');
    expect(rcon.commands).toEqual(['give Steve minecraft:diamond 1']);
    await t.handle.db.updateTable('deliveries').set({ lock_token: null, locked_until: null }).where('source_id', '=', liveOrder).execute();
    await drain();
    expect((await one(liveOrder)).state).toBe('done');
  });

  it('a restarted instance takes back its earlier life’s claims at once, and leaves other instances’ alone', async () => {
    const { rcon, itemId } = await setup();
    const orders = [];
    for (let i = 0; i < 6; i++) orders.push(await buy(itemId, 1));
    const rows = await t.handle.db.selectFrom('deliveries').select('id').where('source_id', 'in', orders).orderBy('id').execute();
    const ids = rows.map((r) => r.id);
    const lease = Date.now() + leaseMs(OPTS);
    // The dead life of instance A claimed four: two still waiting, two marked 'sent' mid-command.
    const deadLife = new ClaimOwner('instance-a', kind === 'sqlite');
    const dead = deadLife.token();
    await t.handle.db.updateTable('deliveries').set({ lock_token: dead, locked_until: lease }).where('id', 'in', ids.slice(0, 2)).execute();
    await t.handle.db
      .updateTable('deliveries')
      .set({ lock_token: dead, locked_until: lease, state: 'sent', sent_at: Date.now() })
      .where('id', 'in', ids.slice(2, 4))
      .execute();
    // Instance B, alive, holds the other two (on PostgreSQL only: SQLite is one process).
    const other = new ClaimOwner('instance-b').token();
    if (kind === 'pg')
      await t.handle.db.updateTable('deliveries').set({ lock_token: other, locked_until: lease }).where('id', 'in', ids.slice(4)).execute();

    const worker = new DeliveryWorker(t.handle.db, OPTS, t.app.log, new ClaimOwner('instance-a', kind === 'sqlite'));
    const started = Date.now();
    await worker.recover();
    await worker.drain();
    await worker.stop();
    // Long before the dead life's leases would have run out.
    expect(Date.now() - started).toBeLessThan(leaseMs(OPTS) / 2);
    const after = await Promise.all(orders.map(one));
    // Waiting ones delivered at once; 'sent' ones may have run: judged interrupted, never sent again.
    expect(after.slice(0, 2).map((d) => d.state)).toEqual(['done', 'done']);
    expect(after.slice(2, 4).map((d) => d.state)).toEqual(['unknown', 'unknown']);
    expect(after.slice(4).map((d) => d.state)).toEqual(kind === 'pg' ? ['pending', 'pending'] : ['done', 'done']);
    expect(rcon.commands).toHaveLength(kind === 'pg' ? 2 : 4);
    if (kind === 'pg')
      await t.handle.db
        .updateTable('deliveries')
        .set({ lock_token: null, locked_until: null, state: 'refunded' })
        .where('id', 'in', ids.slice(4))
        .execute();
  });

  it('never sends a delivery twice when several workers run at once', async () => {
    const { rcon, itemId } = await setup();
    const orders = [];
    for (let i = 0; i < 40; i++) orders.push(await buy(itemId, 1 + (i % 3)));
    const workers = Array.from({ length: 4 }, () => new DeliveryWorker(t.handle.db, { ...OPTS, batchSize: 5 }, t.app.log));
    await Promise.all(workers.map((w) => w.drain()));
    await Promise.all(workers.map((w) => w.stop()));
    const all = await t.handle.db.selectFrom('deliveries').select(['id', 'state', 'attempts']).where('source_id', 'in', orders).execute();
    expect(all.every((d) => d.state === 'done' && d.attempts === 1)).toBe(true);
    expect(rcon.commands).toHaveLength(40);
    expect(rcon.given).toHaveLength(40);
    expect(rcon.violations).toEqual([]);
  });

  it('a slow or silent server holds back nothing but itself', async () => {
    const silent = await setup({ onCommand: () => null });
    const fast = await setup();
    const stuck = await buy(silent.itemId, 1);
    const quick: number[] = [];
    for (let i = 0; i < 5; i++) quick.push(await buy(fast.itemId, 1));
    const worker = new DeliveryWorker(t.handle.db, { ...OPTS, timeoutMs: 3000 }, t.app.log);
    const started = Date.now();
    await worker.tick();
    await until(async () => (await Promise.all(quick.map(one))).every((d) => d.state === 'done'), 2500);
    // Well before the silent server's deadline.
    expect(Date.now() - started).toBeLessThan(2500);
    expect((await one(stuck)).state).toBe('sent');
    await worker.idle();
    await worker.stop();
    expect((await one(stuck)).state).toBe('unknown');
    expect(fast.rcon.commands).toHaveLength(5);
  });

  it('a connection dropped mid-way makes that one delivery unknown; the rest go out on a new connection', async () => {
    let n = 0;
    const { rcon, itemId } = await setup({ onCommand: () => (++n === 2 ? { drop: 'after' } : undefined) });
    const orders = [];
    for (let i = 0; i < 4; i++) orders.push(await buy(itemId, 1));
    await drain();
    expect((await Promise.all(orders.map(one))).map((d) => d.state)).toEqual(['done', 'unknown', 'done', 'done']);
    expect(rcon.connections).toBe(2);
    expect(rcon.commands).toHaveLength(4);
  });

  it('keeps a long answer of several 4096-character parts', async () => {
    const long = `Gave 1 [Diamond] to Steve; ${'слово '.repeat(1500)}`;
    const { itemId } = await setup({ onCommand: () => long });
    const orderId = await buy(itemId, 1);
    await drain();
    const d = await one(orderId);
    expect(d.state).toBe('done');
    expect(d.reply).toBe(long.slice(0, 4000));
  });

  it('refuses before sending anything when a value would break the command', async () => {
    const { rcon, itemId } = await setup();
    const odd = await seedUser(t, 'Oddball', { balanceKopecks: 10_000 });
    const token = await loginAs(t, 'Oddball');
    const orderId = await buy(itemId, 1, token);
    // A name registration cannot produce (an anonymised, deleted account, say).
    await t.handle.db.updateTable('users').set({ username: 'Odd ball\nop Odd' }).where('id', '=', odd).execute();
    await drain();
    expect(await one(orderId)).toMatchObject({ state: 'failed', attempts: 0 });
    expect((await one(orderId)).last_error).toMatch(/Недопустимое имя игрока/);

    const { rcon: r2, itemId: i2, serverId: s2 } = await setup();
    // Written around the API's checks: the sender refuses it all the same.
    await t.handle.db
      .updateTable('servers')
      .set({ command_template: 'give {player} minecraft:{item} {quantity}\u2028op {player}' })
      .where('id', '=', s2)
      .execute();
    const o2 = await buy(i2, 1);
    await drain();
    expect((await one(o2)).last_error).toMatch(/Шаблон команды: недопустимый символ U\+2028/);
    expect(rcon.commands).toEqual([]);
    expect(r2.commands).toEqual([]);
  });

  it('shows admins every delivery with its state and reply, never an RCON password', async () => {
    const { itemId, serverId } = await setup();
    const orderId = await buy(itemId, 1);
    await drain();
    const res = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/shop/admin/deliveries' }));
    expect(res.statusCode).toBe(200);
    const mine = res.json().find((d: { order_id: number }) => d.order_id === orderId);
    expect(mine).toMatchObject({
      source: 'shop',
      username: 'Steve',
      label: 'Алмаз',
      item_name: 'Алмаз',
      item_id_minecraft: 'diamond',
      quantity: 1,
      amount: 2.5,
      server_id: serverId,
      state: 'done',
      reply: 'Gave 1 [Diamond] to Steve',
      command: 'give Steve minecraft:diamond 1',
      commands: null,
      step: 1,
      steps: 1,
    });
    expect(mine.server_name).toMatch(/^Сервер /);
    expect(res.body).not.toContain('rcon-secret');
    const filtered = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/admin/deliveries?state=done&source=shop&limit=2' }));
    expect(filtered.json()).toHaveLength(2);
    expect(filtered.json().every((d: { state: string }) => d.state === 'done')).toBe(true);
    const bad = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/admin/deliveries?state=lost' }));
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad)).toMatch(/Некорректное состояние доставки/);
    expect((await t.app.inject(asUser(player, { method: 'GET', url: '/api/admin/deliveries' }))).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: '/api/user/deliveries' })).statusCode).toBe(401);
  });

  it('moves a delivery to another server on resend', async () => {
    const { itemId, serverId } = await setup();
    const orderId = await buy(itemId, 1);
    await t.handle.db.deleteFrom('servers').where('id', '=', serverId).execute();
    await drain();
    const d = await one(orderId);
    expect(d).toMatchObject({
      state: 'pending',
      waiting: 'no_server',
      last_error: 'Сервер доставки удалён: выберите другой сервер и выдайте повторно',
    });
    const other = await rconServer();
    const otherId = await addServer(t, { name: 'Новый', rcon_host: '127.0.0.1', rcon_port: other.port, rcon_password: 'rcon-secret' });
    expect((await action(d.id, 'resend', admin, { server_id: 999_999 })).statusCode).toBe(400);
    const moved = await action(d.id, 'resend', admin, { server_id: otherId });
    expect(moved.json().delivery).toMatchObject({ server_id: otherId, server_name: 'Новый', state: 'pending' });
    await drain();
    expect((await one(orderId)).state).toBe('done');
    expect(other.commands).toEqual(['give Steve minecraft:diamond 1']);
  });

  it("takes deliveries of any source through enqueueDelivery: every server with RCON, in the caller's transaction", async () => {
    // As LuckPerms answers its commands.
    const luckPerms = (c: string) => (c.startsWith('lp ') ? `[LP] ${c.split(' ')[2]} now inherits permissions from vip.` : undefined);
    const a = await rconServer({ onCommand: luckPerms });
    const b = await rconServer({ onCommand: luckPerms });
    await t.handle.db.deleteFrom('servers').execute();
    const ids = await t.handle.db.transaction().execute(async (trx) =>
      enqueueDelivery(trx, {
        source: 'privilege_grant',
        sourceId: 7,
        userId: playerId,
        label: 'VIP на 30 дней',
        server: 'all',
        commands: ['lp user {player} parent addtemp {tier} {days}d'],
        params: { tier: 'vip', days: 30 },
      }),
    );
    // No server with RCON yet: one row that waits, and is fanned out once there are some.
    expect(ids).toHaveLength(1);
    await drain();
    expect(await t.handle.db.selectFrom('deliveries').selectAll().where('id', '=', ids[0]!).executeTakeFirstOrThrow()).toMatchObject({
      state: 'pending',
      waiting: 'no_server',
      server_scope: 'all',
    });
    const sa = await addServer(t, { name: 'A', rcon_host: '127.0.0.1', rcon_port: a.port, rcon_password: 'rcon-secret' });
    const sb = await addServer(t, { name: 'B', rcon_host: '127.0.0.1', rcon_port: b.port, rcon_password: 'rcon-secret' });
    await addServer(t, { name: 'Без RCON' });
    await drain(LATER);
    const grants = await t.handle.db
      .selectFrom('deliveries')
      .selectAll()
      .where('source', '=', 'privilege_grant')
      .orderBy('server_id')
      .execute();
    expect(grants.map((g) => [g.server_id, g.state])).toEqual([
      [sa, 'done'],
      [sb, 'done'],
    ]);
    expect(a.commands).toEqual(['lp user Steve parent addtemp vip 30d']);
    expect(b.commands).toEqual(['lp user Steve parent addtemp vip 30d']);

    // A rolled-back transaction leaves nothing behind.
    await expect(
      t.handle.db.transaction().execute(async (trx) => {
        await enqueueDelivery(trx, {
          source: 'ban',
          sourceId: 1,
          userId: playerId,
          label: 'Бан',
          server: [sa, sb],
          commands: ['ban {player}'],
        });
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(await t.handle.db.selectFrom('deliveries').select('id').where('source', '=', 'ban').execute()).toEqual([]);

    // Commands and values that could never be sent are refused at once.
    const refuse = (commands: string[], params = {}) =>
      t.handle.db
        .transaction()
        .execute((trx) =>
          enqueueDelivery(trx, { source: 'kit', sourceId: 1, userId: playerId, label: 'Набор', server: sa, commands, params }),
        );
    await expect(refuse(['give {player} bread 1\nop {player}'])).rejects.toThrow(/недопустимый символ U\+000A/);
    await expect(refuse(['give {player} {what} 1'])).rejects.toThrow(/неизвестная подстановка \{what\}/);
    await expect(refuse(['lp user {player} parent add {tier}'], { tier: 'vip op' })).rejects.toThrow(/Недопустимое значение \{tier\}/);

    // The player sees them among their deliveries, whatever their source.
    const mine = (await t.app.inject(asUser(player, { method: 'GET', url: '/api/user/deliveries' }))).json().deliveries;
    expect(
      mine
        .filter((d: { source: string }) => d.source === 'privilege_grant')
        .map((d: { label: string; state: string; server_name: string }) => [d.label, d.state, d.server_name]),
    ).toEqual([
      ['VIP на 30 дней', 'done', 'B'],
      ['VIP на 30 дней', 'done', 'A'],
    ]);
  });
});

describe.each(dbKinds)('delivery worker inside the app on %s', (kind) => {
  let t: TestApp | undefined;
  const rcon = new VanillaRconServer({ password: 'pw', online: ['Alex'] });
  afterAll(async () => {
    await closeTestApp(t);
    await rcon.stop();
  });

  it('waits for a server to be chosen, then delivers through the only RCON server, started by the app itself', async () => {
    t = await createTestApp(kind, { delivery: { intervalMs: 200, timeoutMs: 2000 } });
    await seedUser(t, 'Owner', { admin: true });
    await seedUser(t, 'Alex', { balanceKopecks: 5000 });
    const admin = await loginAs(t, 'Owner');
    const player = await loginAs(t, 'Alex');
    const created = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/shop/admin/create',
        payload: { name: 'Хлеб', price: 1, count: 10, icon: '/bread.png', item_id_minecraft: 'bread', category: 'Еда' },
      }),
    );
    expect(created.json().server_id).toBeNull();
    const bought = await t.app.inject(
      asUser(player, { method: 'POST', url: '/api/shop/buy', payload: { shop_id: created.json().id, quantity: 2 } }),
    );
    expect(bought.statusCode).toBe(200);
    const row = () => t!.handle.db.selectFrom('deliveries').selectAll().executeTakeFirstOrThrow();
    await until(async () => (await row()).last_error !== null);
    expect(await row()).toMatchObject({ state: 'pending', server_id: null, waiting: 'no_server' });
    expect((await row()).last_error).toMatch(/Не выбран сервер доставки/);

    await rcon.start(0);
    await addServer(t, { name: 'Лобби' });
    const serverId = await addServer(t, { name: 'Выживание', rcon_port: rcon.port, rcon_password: 'pw', rcon_host: '127.0.0.1' });
    await until(async () => (await row()).state === 'done');
    expect(await row()).toMatchObject({ server_id: serverId, reply: 'Gave 2 [Bread] to Alex' });
    expect(rcon.commands).toEqual(['give Alex minecraft:bread 2']);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('deliveries from several instances on PostgreSQL', () => {
  it('three running sites share one queue: every delivery reaches the game exactly once', async () => {
    const pgDb = await createPgDatabase();
    // A few milliseconds a command, so that the backlog outlasts one instance's first claim.
    const rcon = new VanillaRconServer({ password: 'pw', online: ['Alex', 'Steve'], delayMs: 5 });
    await rcon.start(0);
    const instances: Awaited<ReturnType<typeof startInstance>>[] = [];
    try {
      for (let i = 0; i < 3; i++)
        instances.push(await startInstance(pgDb.url, { workers: true, delivery: { intervalMs: 200, timeoutMs: 2000 } }));
      const { db } = instances[0]!.handle;
      const now = Date.now();
      const server = await db
        .insertInto('servers')
        .values({
          name: 'Выживание',
          description: 'x',
          image_url: '',
          ip_address: '127.0.0.1',
          port: 25565,
          max_online: 100,
          online: 0,
          status: 'offline',
          fail_count: 0,
          rcon_host: '127.0.0.1',
          rcon_port: rcon.port,
          rcon_password: 'pw',
          command_template: 'give {player} minecraft:{item}{order:{order}} {quantity}',
          sort_order: 0,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const players = await Promise.all(['Alex', 'Steve'].map((name) => seedUser({ handle: instances[0]!.handle } as TestApp, name)));
      await db.transaction().execute((trx) =>
        enqueueDeliveries(
          trx,
          Array.from({ length: 300 }, (_, i) => ({
            source: 'shop' as const,
            sourceId: null,
            userId: players[i % 2]!,
            label: 'Алмаз',
            server: server.id,
            commands: null,
            params: { item: 'diamond', quantity: 1, order: i + 1 },
            quantity: 1,
          })),
        ),
      );
      // Every instance is woken at once, as purchases on each of them would.
      for (const i of instances) kickDeliveries(i.app.ctx);
      await until(async () => {
        const left = await db
          .selectFrom('deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('state', '!=', 'done')
          .executeTakeFirstOrThrow();
        return Number(left.n) === 0;
      }, 30_000);
      const rows = await db.selectFrom('deliveries').select(['attempts']).execute();
      expect(rows.every((r) => Number(r.attempts) === 1)).toBe(true);
      expect(rcon.commands).toHaveLength(300);
      expect(new Set(rcon.commands).size).toBe(300);
      expect(rcon.given).toHaveLength(300);
      expect(rcon.violations).toEqual([]);
    } finally {
      for (const i of instances) await i.close();
      await rcon.stop();
      await new Promise((r) => setTimeout(r, 250));
      await pgDb.drop();
    }
  });
});
