import type { AdminDashboard } from '@kubik/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { dashboard, orderTitle } from './dashboard.service.ts';

const at = (iso: string) => Date.parse(iso);
/** 12:00 in Moscow on 23 November 2026; Moscow's 23rd runs from 22 Nov 21:00 UTC to 23 Nov 21:00 UTC. */
const NOW = at('2026-11-23T09:00:00Z');
const MSK_TODAY = at('2026-11-22T21:00:00Z');
/** The first of the 30 days: 25 October in Moscow. */
const MSK_FIRST = at('2026-10-24T21:00:00Z');

describe('an order as the overview names it', () => {
  it('tells the pieces once: from the name when it says them, else after it', () => {
    expect(orderTitle('Алмаз', 1, 16)).toBe('Алмаз ×16');
    expect(orderTitle('Алмаз', 2, 16)).toBe('Алмаз ×32');
    expect(orderTitle('Алмазы ×16', 1, 16)).toBe('Алмазы ×16');
    expect(orderTitle('Алмазы x16', 3, 16)).toBe('Алмазы x16 (3 шт.)');
    expect(orderTitle('Меч', 1, 1)).toBe('Меч');
    expect(orderTitle('Меч', 2, 1)).toBe('Меч ×2');
    expect(orderTitle('Набор ×16', 1, 8)).toBe('Набор ×16 ×8');
  });
});

describe.each(dbKinds)('admin dashboard on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let player: string;
  let miner: number;
  beforeAll(async () => {
    t = await createTestApp(kind);
    const db = t.handle.db;
    await seedUser(t, 'DashChief', { admin: true });
    miner = await seedUser(t, 'DashMiner');
    const late = await seedUser(t, 'DashLate');
    const night = await seedUser(t, 'DashNight');
    const early = await seedUser(t, 'DashEarly');
    admin = await loginAs(t, 'DashChief');
    player = await loginAs(t, 'DashMiner');
    // Registrations: two on the 23rd in Moscow (one at its first millisecond), one at the last millisecond of the 22nd.
    await db
      .updateTable('users')
      .set({ created_at: at('2026-01-01T00:00:00Z') })
      .where('username', 'in', ['DashChief', 'DashMiner'])
      .execute();
    await db.updateTable('users').set({ created_at: MSK_TODAY }).where('id', '=', early).execute();
    await db
      .updateTable('users')
      .set({ created_at: at('2026-11-23T08:59:00Z') })
      .where('id', '=', late)
      .execute();
    await db
      .updateTable('users')
      .set({ created_at: MSK_TODAY - 1 })
      .where('id', '=', night)
      .execute();

    let n = 0;
    const payment = (amount: number, status: string, paidAt: number | null, createdAt = paidAt ?? NOW) =>
      db
        .insertInto('payments')
        .values({
          id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
          user_id: miner,
          provider: 'yookassa',
          amount,
          bonus: 0,
          status,
          created_at: createdAt,
          updated_at: createdAt,
          paid_at: paidAt,
        })
        .execute();
    await payment(10_000, 'succeeded', MSK_TODAY); // today, the first millisecond
    await payment(5_000, 'succeeded', at('2026-11-22T22:30:00Z')); // 01:30 on the 23rd in Moscow, still the 22nd in UTC
    await payment(2_550, 'succeeded', MSK_TODAY - 1); // 23:59:59.999 on the 22nd
    await payment(99_999, 'pending', null, NOW - 60_000);
    await payment(77_700, 'canceled', null, NOW - 120_000);
    await payment(700, 'succeeded', MSK_FIRST); // the first day of the window
    await payment(800, 'succeeded', MSK_FIRST - 1); // just before it

    const ledger = (amount: number, reason: string, createdAt: number) =>
      db
        .insertInto('ledger')
        .values({ user_id: miner, amount, reason, author_id: null, ref: null, note: null, created_at: createdAt })
        .execute();
    await ledger(-1_250, 'purchase', at('2026-11-22T21:10:00Z'));
    await ledger(-350, 'purchase', at('2026-11-22T20:50:00Z'));
    await ledger(350, 'refund', at('2026-11-23T06:00:00Z'));
    await ledger(100_000, 'adjustment', at('2026-11-23T06:00:00Z'));
    await ledger(10_000, 'topup', MSK_TODAY);

    const server = (name: string, status: string, online: number, max: number) =>
      db
        .insertInto('servers')
        .values({
          name,
          description: '',
          image_url: '',
          ip_address: '127.0.0.1',
          port: 25565,
          max_online: max,
          online,
          status,
          version: null,
          motd: null,
          fail_count: 0,
          last_checked_at: NOW,
          checking_until: null,
          rcon_host: null,
          rcon_port: null,
          rcon_password: null,
          command_template: null,
          sort_order: 0,
          favicon: null,
          last_error: null,
          created_at: NOW,
          updated_at: NOW,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
    const s1 = (await server('Выживание', 'online', 12, 100)).id;
    const s2 = (await server('Мини-игры', 'offline', 5, 50)).id;
    const history = (serverId: number, when: number, online: number | null) =>
      db.insertInto('server_online_history').values({ server_id: serverId, at: when, online }).execute();
    // 24 h: 20 + 15 in one check period two hours ago beats 30 alone an hour before that.
    await history(s1, at('2026-11-23T07:00:00Z'), 20);
    await history(s2, at('2026-11-23T07:00:10Z'), 15);
    await history(s1, at('2026-11-23T06:00:00Z'), 30);
    await history(s2, at('2026-11-23T06:00:05Z'), null);
    // 30 days: hourly peaks of 50 and 10 in one hour five days ago; 500 forty days ago is outside.
    await history(s1, at('2026-11-18T09:00:00Z'), 50);
    await history(s2, at('2026-11-18T09:30:00Z'), 10);
    await history(s1, at('2026-10-14T09:00:00Z'), 500);

    const delivery = (state: string, createdAt: number, label: string, lastError: string | null = null) =>
      db
        .insertInto('deliveries')
        .values({
          source: 'shop',
          source_id: null,
          user_id: miner,
          label,
          server_id: s1,
          server_scope: 'server',
          commands: null,
          params: '{}',
          step: 0,
          quantity: 1,
          state,
          waiting: state === 'pending' ? 'player_offline' : null,
          attempts: 1,
          retries: 0,
          next_attempt_at: createdAt,
          lock_token: null,
          locked_until: null,
          command: null,
          reply: null,
          last_error: lastError,
          sent_at: null,
          done_at: null,
          refunded_at: null,
          created_at: createdAt,
          updated_at: createdAt,
        })
        .execute();
    await delivery('failed', NOW - 3_600_000, 'Алмаз', 'Unknown item');
    await delivery('unknown', NOW - 7_200_000, 'Золото');
    await delivery('pending', NOW - 20 * 60_000, 'Изумруд');
    await delivery('pending', NOW - 5 * 60_000, 'Железо');
    await delivery('done', NOW - 60_000, 'Уголь');

    const item = await db
      .insertInto('shop_items')
      .values({
        name: 'Алмаз',
        description: '',
        icon: '/i.png',
        category: 'Предметы',
        item_id_minecraft: 'diamond',
        status: 'Продаётся',
        price: 1_250,
        count: 10,
        server_id: s1,
        commands: null,
        pieces: 16,
        created_at: NOW,
        updated_at: NOW,
        deleted_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('shop_orders')
      .values({
        user_id: miner,
        item_id: item.id,
        item_name: 'Алмаз',
        item_id_minecraft: 'diamond',
        price: 1_250,
        quantity: 1,
        total: 1_250,
        pieces: 16,
        created_at: at('2026-11-22T21:10:00Z'),
      })
      .execute();
    const privilege = await db
      .insertInto('privileges')
      .values({
        user_id: miner,
        tier_id: 1,
        tier_title: 'VIP',
        starts_at: NOW,
        expires_at: NOW + 86_400_000 * 90,
        ended_at: null,
        end_reason: null,
        reminded_at: null,
        granted_by: null,
        created_at: NOW,
        updated_at: NOW,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('privilege_purchases')
      .values({
        privilege_id: privilege.id,
        user_id: miner,
        tier_id: 1,
        months: 3,
        price: 89_700,
        credit: 0,
        total: 89_700,
        replaced_id: null,
        created_at: at('2026-11-23T08:00:00Z'),
      })
      .execute();
  });
  afterAll(async () => {
    await t?.close();
  });

  const day = (d: AdminDashboard, date: string) => d.days.find((x) => x.date === date)!;

  it('sums each day in Moscow time: a row at 00:00 belongs to the new day, one at 23:59:59.999 to the old', async () => {
    const d = await dashboard(t.app.ctx, NOW);
    expect(d.time_zone).toBe('Europe/Moscow');
    expect(d.days).toHaveLength(30);
    expect(d.days[0]!.date).toBe('2026-10-25');
    expect(d.days[29]!.date).toBe('2026-11-23');
    expect(day(d, '2026-11-23')).toEqual({ date: '2026-11-23', topups: 150, purchases: 12.5, refunds: 3.5, registrations: 2 });
    expect(day(d, '2026-11-22')).toEqual({ date: '2026-11-22', topups: 25.5, purchases: 3.5, refunds: 0, registrations: 1 });
    expect(day(d, '2026-10-25')).toMatchObject({ topups: 7 });
    // Pending, canceled and the payment before the window are not revenue; bonuses and adjustments are not purchases.
    expect(d.totals).toEqual({ topups: 182.5, purchases: 16, refunds: 3.5, registrations: 3 });
    expect(d.days.filter((x) => x.topups > 0).map((x) => x.date)).toEqual(['2026-10-25', '2026-11-22', '2026-11-23']);
  });

  it('splits the same rows by the configured zone (UTC here)', async () => {
    const d = await dashboard({ ...t.app.ctx, config: { ...t.app.ctx.config, timeZone: 'UTC' } }, NOW);
    expect(d.time_zone).toBe('UTC');
    // In UTC everything before 24:00 UTC of the 22nd is the 22nd: 100 + 50 + 25.50.
    expect(day(d, '2026-11-22')).toMatchObject({ topups: 175.5, purchases: 16, registrations: 2 });
    expect(day(d, '2026-11-23')).toMatchObject({ topups: 0, purchases: 0, refunds: 3.5, registrations: 1 });
  });

  it('reports online now and the peaks over all servers', async () => {
    const { online } = await dashboard(t.app.ctx, NOW);
    expect(online).toEqual({
      now: 12,
      max: 100,
      servers_online: 1,
      servers_total: 2,
      peak_24h: 35,
      peak_24h_at: '2026-11-23T07:00:00.000Z',
      peak_30d: 60,
      peak_30d_at: '2026-11-18T09:00:00.000Z',
    });
  });

  it('lists what failed apart from what waits and why, and the latest orders and payments', async () => {
    const d = await dashboard(t.app.ctx, NOW);
    expect({ failed: d.deliveries.failed, unknown: d.deliveries.unknown, waiting: d.deliveries.waiting }).toEqual({
      failed: 1,
      unknown: 1,
      waiting: 1,
    });
    // Every delivery not given yet is counted by its reason, however fresh (not only those over 15 minutes).
    expect(d.deliveries.pending).toEqual({ total: 2, sending: 0, server_down: 0, no_server: 0, player_offline: 2, queued: 0 });
    expect(d.deliveries.items.map((x) => [x.label, x.reason])).toEqual([
      ['Золото', 'unknown'],
      ['Алмаз', 'failed'],
    ]);
    expect(d.deliveries.waiting_items.map((x) => [x.label, x.reason, x.waiting])).toEqual([
      ['Изумруд', 'waiting', 'player_offline'],
      ['Железо', 'waiting', 'player_offline'],
    ]);
    expect(d.deliveries.items[1]).toMatchObject({
      username: 'DashMiner',
      server: 'Выживание',
      last_error: 'Unknown item',
      state: 'failed',
    });
    expect(d.latest_orders).toEqual([
      expect.objectContaining({ kind: 'privilege', username: 'DashMiner', title: 'VIP на 3 мес.', total: 897 }),
      expect.objectContaining({ kind: 'shop', username: 'DashMiner', title: 'Алмаз ×16', total: 12.5 }),
    ]);
    expect(d.latest_payments).toHaveLength(7);
    expect(d.latest_payments[0]).toMatchObject({ username: 'DashMiner', provider: 'yookassa' });
    expect(d.latest_payments.map((p) => p.amount)).toContain(25.5);
  });

  it('answers administrators only, over HTTP', async () => {
    const res = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/admin/dashboard' }));
    expect(res.statusCode).toBe(200);
    const body = res.json<AdminDashboard>();
    expect(body.days).toHaveLength(30);
    expect(body.online.now).toBe(12);
    const guest = await t.app.inject({ method: 'GET', url: '/api/admin/dashboard' });
    expect(guest.statusCode).toBe(401);
    expect(errorOf(guest)).toBe('Войдите в аккаунт');
    const mere = await t.app.inject(asUser(player, { method: 'GET', url: '/api/admin/dashboard' }));
    expect(mere.statusCode).toBe(403);
    expect(errorOf(mere)).toBe('Доступно только администраторам');
  });
});
