import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TestRconServer, type TestRconOptions } from '../../lib/rcon/test-server.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { drainDeliveries, DeliveryWorker, leaseMs, type DeliveryOptions } from './delivery.worker.ts';
import { findShopLedgerMismatches } from './shop.service.ts';
import { addServer, balanceOf, closeTestApp } from './shop.test-helpers.ts';

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
  const rcons: TestRconServer[] = [];

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

  const drain = (now?: () => number) => drainDeliveries(t.handle.db, OPTS, t.app.log, () => false, now);

  /** A running test RCON server, its servers row and an item delivered there. */
  async function setup(options: Partial<TestRconOptions> = {}, server: { command_template?: string; password?: string } = {}) {
    const rcon = new TestRconServer({ password: 'rcon-secret', ...options });
    rcons.push(rcon);
    await rcon.start(0);
    const serverId = await addServer(t, { name: `Сервер ${rcon.port}`, rcon_host: '127.0.0.1', rcon_port: rcon.port, rcon_password: server.password ?? 'rcon-secret', command_template: server.command_template ?? null });
    const res = await t.app.inject(asUser(admin, { method: 'POST', url: '/api/shop/admin/create', payload: { name: 'Алмаз', price: 2.5, count: 1000, icon: '/i.png', item_id_minecraft: 'diamond', server_id: serverId } }));
    expect(res.statusCode, res.body).toBe(201);
    return { rcon, serverId, itemId: res.json<{ id: number }>().id };
  }
  const buy = async (itemId: number, quantity: number, token = player) => {
    const res = await t.app.inject(asUser(token, { method: 'POST', url: '/api/shop/buy', payload: { shop_id: itemId, quantity } }));
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ order_id: number; new_balance: number }>().order_id;
  };
  const rows = (orderId: number) => t.handle.db.selectFrom('shop_deliveries').selectAll().where('order_id', '=', orderId).orderBy('id').execute();
  const one = async (orderId: number) => (await rows(orderId))[0]!;
  const action = (id: number, what: 'resend' | 'refund', token = admin) => t.app.inject(asUser(token, { method: 'POST', url: `/api/shop/admin/deliveries/${id}/${what}` }));

  it('delivers a purchase: one command per stack, in order, the reply kept, the player sees it done', async () => {
    const { rcon, itemId } = await setup();
    const orderId = await buy(itemId, 130);
    const stats = await drain();
    expect(stats.done).toBe(3);
    expect(rcon.commands).toEqual(['give Steve minecraft:diamond 64', 'give Steve minecraft:diamond 64', 'give Steve minecraft:diamond 2']);
    const done = await rows(orderId);
    expect(done.map((d) => d.state)).toEqual(['done', 'done', 'done']);
    expect(done[2]).toMatchObject({ command: 'give Steve minecraft:diamond 2', reply: 'Gave 2 [minecraft:diamond] to Steve', attempts: 1, last_error: null });
    expect(done[2]!.done_at).not.toBeNull();
    // Nothing is sent twice.
    await drain(LATER);
    expect(rcon.commands).toHaveLength(3);

    const orders = (await t.app.inject(asUser(player, { method: 'GET', url: '/api/shop/orders' }))).json();
    expect(orders.find((o: { id: number }) => o.id === orderId).deliveries.map((d: { state: string }) => d.state)).toEqual(['done', 'done', 'done']);
  });

  it('fills a custom template, with the order number', async () => {
    const { rcon, itemId } = await setup({ handler: () => 'ok' }, { command_template: 'kit give {player} {item} {quantity} order-{order}' });
    const orderId = await buy(itemId, 1);
    await drain();
    expect(rcon.commands).toEqual([`kit give Steve diamond 1 order-${orderId}`]);
  });

  it('waits with backoff while the server is down, and delivers once it is back — from a new worker, as after a restart', async () => {
    const { rcon, itemId } = await setup();
    const port = rcon.port;
    await rcon.stop();
    const orderId = await buy(itemId, 130);
    const before = Date.now();
    await drain();
    let waiting = await rows(orderId);
    expect(waiting.map((d) => d.state)).toEqual(['pending', 'pending', 'pending']);
    for (const d of waiting) {
      expect(d.retries).toBe(1);
      expect(d.last_error).toMatch(/недоступен: соединение отклонено/);
      expect(Number(d.next_attempt_at)).toBeGreaterThanOrEqual(before + OPTS.intervalMs);
      expect(d.attempts).toBe(0);
    }
    // Before the backoff is over nothing is tried; after it, the wait doubles.
    await drain();
    expect((await one(orderId)).retries).toBe(1);
    await drain(LATER);
    waiting = await rows(orderId);
    expect(waiting.every((d) => d.retries === 2 && d.state === 'pending')).toBe(true);

    await rcon.start(port);
    await t.handle.db.updateTable('shop_deliveries').set({ next_attempt_at: Date.now() }).where('order_id', '=', orderId).execute();
    const worker = new DeliveryWorker(t.handle.db, OPTS, t.app.log);
    worker.start();
    try {
      await until(async () => (await rows(orderId)).every((d) => d.state === 'done'));
    } finally {
      await worker.stop();
    }
    expect(rcon.commands).toEqual(['give Steve minecraft:diamond 64', 'give Steve minecraft:diamond 64', 'give Steve minecraft:diamond 2']);
  });

  it('waits on a wrong RCON password without sending, and delivers once it is fixed', async () => {
    const { rcon, itemId, serverId } = await setup({}, { password: 'wrong' });
    const orderId = await buy(itemId, 1);
    await drain();
    const d = await one(orderId);
    expect(d.state).toBe('pending');
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
    const { rcon, itemId } = await setup({ handler: (c) => (answer ? `Gave: ${c}` : null) });
    const orderId = await buy(itemId, 1);
    const stats = await drain();
    expect(stats.unknown).toBe(1);
    const d = await one(orderId);
    expect(d).toMatchObject({ state: 'unknown', attempts: 1, command: 'give Steve minecraft:diamond 1' });
    expect(d.last_error).toMatch(/могла выполниться/);
    await drain(LATER);
    await drain(LATER);
    expect(rcon.commands).toHaveLength(1);

    const list = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/shop/admin/deliveries?state=unknown' }));
    expect(list.json().map((x: { id: number }) => x.id)).toContain(d.id);

    answer = true;
    const resend = await action(d.id, 'resend');
    expect(resend.statusCode).toBe(200);
    expect(resend.json()).toMatchObject({ message: 'Доставка поставлена в очередь', delivery: { id: d.id, state: 'pending' } });
    await drain();
    expect(await one(orderId)).toMatchObject({ state: 'done', attempts: 2, reply: 'Gave: give Steve minecraft:diamond 1' });
    expect(rcon.commands).toHaveLength(2);
    const audit = await t.handle.db.selectFrom('audit_log').select(['action', 'actor_id']).where('entity', '=', 'shop_delivery').where('entity_id', '=', String(d.id)).execute();
    expect(audit).toEqual([{ action: 'shop.delivery.resend', actor_id: adminId }]);
  });

  it('waits for a player who is not in the game, keeping the reply, and delivers when they are', async () => {
    let online = false;
    const { rcon, itemId } = await setup({ handler: (c) => (online ? `Gave 1 [Diamond] to Steve (${c})` : 'No player was found') });
    const orderId = await buy(itemId, 1);
    await drain();
    expect(await one(orderId)).toMatchObject({ state: 'pending', reply: 'No player was found', retries: 1, attempts: 1 });
    expect((await one(orderId)).last_error).toMatch(/Игрока нет в игре/);
    online = true;
    await drain(LATER);
    expect((await one(orderId)).state).toBe('done');
    expect(rcon.commands).toHaveLength(2);
  });

  it('marks a refused command failed; a refund credits the ledger once and returns the stock', async () => {
    const { rcon, itemId } = await setup({ handler: () => 'Unknown item: minecraft:diamond' });
    const stockBefore = Number((await t.handle.db.selectFrom('shop_items').select('count').where('id', '=', itemId).executeTakeFirstOrThrow()).count);
    const balanceBefore = await balanceOf(t, playerId);
    const orderId = await buy(itemId, 3);
    await drain();
    const d = await one(orderId);
    expect(d).toMatchObject({ state: 'failed', reply: 'Unknown item: minecraft:diamond', last_error: 'Сервер отклонил команду' });
    await drain(LATER);
    expect(rcon.commands).toHaveLength(1);

    const refund = await action(d.id, 'refund');
    expect(refund.statusCode).toBe(200);
    expect(refund.json()).toMatchObject({ message: 'Деньги возвращены на баланс игрока', delivery: { state: 'refunded', amount: 7.5 }, new_balance: balanceBefore / 100 });
    expect(await balanceOf(t, playerId)).toBe(balanceBefore);
    const ledger = await t.handle.db.selectFrom('ledger').selectAll().where('ref', '=', `delivery:${d.id}`).execute();
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ reason: 'refund', author_id: adminId, user_id: playerId });
    expect(Number(ledger[0]!.amount)).toBe(750);
    expect(Number((await t.handle.db.selectFrom('shop_items').select('count').where('id', '=', itemId).executeTakeFirstOrThrow()).count)).toBe(stockBefore);

    // Once: a second refund, or a thousand at once, change nothing.
    const again = await Promise.all(Array.from({ length: 10 }, () => action(d.id, 'refund')));
    for (const a of again) {
      expect(a.statusCode).toBe(409);
      expect(errorOf(a)).toBe('Деньги за эту доставку уже возвращены');
    }
    expect(errorOf(await action(d.id, 'resend'))).toBe('Деньги за эту доставку уже возвращены');
    expect(await balanceOf(t, playerId)).toBe(balanceBefore);
    expect(await findLedgerMismatches(t.handle.db)).toEqual([]);
    expect(await findShopLedgerMismatches(t.handle.db)).toEqual([]);
    const orders = (await t.app.inject(asUser(player, { method: 'GET', url: '/api/shop/orders' }))).json();
    expect(orders.find((o: { id: number }) => o.id === orderId).deliveries[0].state).toBe('refunded');
  });

  it('refunds concurrent requests for one delivery exactly once', async () => {
    const { itemId } = await setup({ handler: () => 'Unknown item' });
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
    await t.handle.db.updateTable('shop_deliveries').set({ state: 'sent', lock_token: 'dead', locked_until: long, sent_at: long, attempts: 1, command: 'give Steve minecraft:diamond 1' }).where('order_id', '=', lostOrder).execute();
    await t.handle.db.updateTable('shop_deliveries').set({ lock_token: 'dead', locked_until: long }).where('order_id', '=', claimedOrder).execute();
    // A live claim (another instance at work) is left alone.
    const liveOrder = await buy(itemId, 1);
    await t.handle.db.updateTable('shop_deliveries').set({ lock_token: 'alive', locked_until: Date.now() + 60_000 }).where('order_id', '=', liveOrder).execute();

    await drain();
    expect(await one(lostOrder)).toMatchObject({ state: 'unknown', attempts: 1 });
    expect((await one(lostOrder)).last_error).toMatch(/прервалась/);
    expect((await one(claimedOrder)).state).toBe('done');
    expect((await one(liveOrder)).state).toBe('pending');
    expect(rcon.commands).toEqual(['give Steve minecraft:diamond 1']);
    await t.handle.db.updateTable('shop_deliveries').set({ lock_token: null, locked_until: null }).where('order_id', '=', liveOrder).execute();
    await drain();
    expect((await one(liveOrder)).state).toBe('done');
  });

  it('never sends a delivery twice when several workers run at once', async () => {
    const { rcon, itemId } = await setup();
    const orders = [];
    for (let i = 0; i < 12; i++) orders.push(await buy(itemId, 1 + (i % 3)));
    await Promise.all([drain(), drain(), drain(), drain()]);
    const all = await t.handle.db.selectFrom('shop_deliveries').select(['id', 'state', 'attempts']).where('order_id', 'in', orders).execute();
    expect(all.every((d) => d.state === 'done' && d.attempts === 1)).toBe(true);
    expect(rcon.commands).toHaveLength(12);
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
    await t.handle.db.updateTable('servers').set({ command_template: 'give {player} minecraft:{item} {quantity}\nop {player}' }).where('id', '=', s2).execute();
    const o2 = await buy(i2, 1);
    await drain();
    expect((await one(o2)).last_error).toMatch(/Шаблон команды/);
    expect(rcon.commands).toEqual([]);
    expect(r2.commands).toEqual([]);
  });

  it('shows admins every delivery with its state and reply, never an RCON password', async () => {
    const { itemId } = await setup();
    const orderId = await buy(itemId, 1);
    await drain();
    const res = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/shop/admin/deliveries' }));
    expect(res.statusCode).toBe(200);
    const mine = res.json().find((d: { order_id: number }) => d.order_id === orderId);
    expect(mine).toMatchObject({ username: 'Steve', item_name: 'Алмаз', item_id_minecraft: 'diamond', quantity: 1, amount: 2.5, state: 'done', reply: 'Gave 1 [minecraft:diamond] to Steve', command: 'give Steve minecraft:diamond 1' });
    expect(mine.server_name).toMatch(/^Сервер /);
    expect(res.body).not.toContain('rcon-secret');
    const filtered = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/shop/admin/deliveries?state=done&limit=2' }));
    expect(filtered.json()).toHaveLength(2);
    expect(filtered.json().every((d: { state: string }) => d.state === 'done')).toBe(true);
    const bad = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/shop/admin/deliveries?state=lost' }));
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad)).toMatch(/Некорректное состояние доставки/);
    expect((await t.app.inject(asUser(player, { method: 'GET', url: '/api/shop/admin/deliveries' }))).statusCode).toBe(403);
  });
});

describe.each(dbKinds)('delivery worker inside the app on %s', (kind) => {
  let t: TestApp | undefined;
  const rcon = new TestRconServer({ password: 'pw' });
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
    const created = await t.app.inject(asUser(admin, { method: 'POST', url: '/api/shop/admin/create', payload: { name: 'Хлеб', price: 1, count: 10, icon: '/bread.png', item_id_minecraft: 'bread', category: 'Еда' } }));
    expect(created.json().server_id).toBeNull();
    const bought = await t.app.inject(asUser(player, { method: 'POST', url: '/api/shop/buy', payload: { shop_id: created.json().id, quantity: 2 } }));
    expect(bought.statusCode).toBe(200);
    const row = () => t!.handle.db.selectFrom('shop_deliveries').selectAll().executeTakeFirstOrThrow();
    await until(async () => (await row()).last_error !== null);
    expect(await row()).toMatchObject({ state: 'pending', server_id: null });
    expect((await row()).last_error).toMatch(/Не выбран сервер доставки/);

    await rcon.start(0);
    await addServer(t, { name: 'Лобби' });
    const serverId = await addServer(t, { name: 'Выживание', rcon_port: rcon.port, rcon_password: 'pw', rcon_host: '127.0.0.1' });
    await until(async () => (await row()).state === 'done');
    expect(await row()).toMatchObject({ server_id: serverId, reply: 'Gave 2 [minecraft:bread] to Alex' });
    expect(rcon.commands).toEqual(['give Alex minecraft:bread 2']);
  });
});
