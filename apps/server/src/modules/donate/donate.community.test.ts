import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { moscowMonth } from './donate.community.ts';

describe.each(dbKinds)('donation goal on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let alice: number;
  let hiddenBob: number;

  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
    await seedUser(t, 'GoalOwner', { admin: true });
    admin = await loginAs(t, 'GoalOwner');
    alice = await seedUser(t, 'Alice');
    hiddenBob = await seedUser(t, 'Bob');
    await t.handle.db.insertInto('player_profiles').values({ user_id: hiddenBob, hidden: 1, last_seen_at: null }).execute();
    const now = Date.now();
    const pay = (userId: number, amount: number, paidAt: number, refunded = 0) =>
      t.handle.db
        .insertInto('payments')
        .values({
          id: randomUUID(),
          user_id: userId,
          provider: 'yookassa',
          amount,
          status: 'succeeded',
          provider_payment_id: randomUUID(),
          provider_status: 'succeeded',
          confirmation_url: null,
          promo_id: null,
          created_at: paidAt,
          updated_at: paidAt,
          paid_at: paidAt,
          canceled_at: null,
          refunded_at: null,
          refund_requested_by: null,
          refund_lease_until: null,
          provider_refund_id: null,
          refund_error: null,
          checked_at: null,
          refund_now: null,
          refund_bonus_now: null,
          provider_operation_id: null,
          payer_ip: null,
          payer_device: null,
          refunded_amount: refunded,
        })
        .execute();
    await pay(alice, 50_000, now);
    await pay(alice, 20_000, now, 5_000);
    await pay(hiddenBob, 100_000, now);
    // Last month's money does not count toward this month's goal.
    await pay(alice, 900_000, moscowMonth(now).from - 1000);
    const item = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/shop/admin/create',
        payload: { name: 'Алмаз', price: 10, count: 100, icon: 'https://example.com/icons/diamond.png' },
      }),
    );
    expect(item.statusCode, item.body).toBe(201);
    for (const [userId, name, at] of [
      [alice, 'Алмаз', now - 2000],
      [hiddenBob, 'Изумруд', now - 1000],
    ] as const)
      await t.handle.db
        .insertInto('shop_orders')
        .values({
          user_id: userId,
          item_id: item.json().id,
          item_name: name,
          item_id_minecraft: 'minecraft:diamond',
          price: 1000,
          quantity: 2,
          total: 2000,
          created_at: at,
          paid_by: null,
        })
        .execute();
  });
  afterAll(async () => {
    await t?.close();
  });

  const goal = async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/donate/goal' });
    expect(res.statusCode).toBe(200);
    return res.json();
  };

  it('shows the month collected, the latest purchases and the top, leaving out who hid their profile', async () => {
    const g = await goal();
    expect(g).toMatchObject({ goal: 0, collected: 1650, percent: 0, month: moscowMonth(Date.now()).month });
    expect(g.latest).toEqual([{ nickname: 'Alice', item: 'Алмаз × 2', amount: null, at: expect.any(Number) }]);
    expect(g.top).toEqual([{ nickname: 'Alice', amount: null }]);
  });

  it('the owner sets the goal in roubles and whether amounts show; a bad goal is refused beside the field', async () => {
    const bad = await t.app.inject(asUser(admin, { method: 'PUT', url: '/api/admin/settings', payload: { donation_goal: -5 } }));
    expect(bad.statusCode).toBe(400);
    expect(bad.json().field).toBe('donation_goal');
    const put = await t.app.inject(
      asUser(admin, {
        method: 'PUT',
        url: '/api/admin/settings',
        payload: { donation_goal: 5000, show_purchase_amounts: true, guest_purchases: true },
      }),
    );
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().value).toMatchObject({ donation_goal: 5000, show_purchase_amounts: true, guest_purchases: true });
    const g = await goal();
    expect(g).toMatchObject({ goal: 5000, collected: 1650, percent: 33 });
    expect(g.latest[0]).toMatchObject({ nickname: 'Alice', amount: 20 });
    expect(g.top).toEqual([{ nickname: 'Alice', amount: 650 }]);
    // Guest purchases are off until the owner turns them on.
    const off = await t.app.inject(asUser(admin, { method: 'PUT', url: '/api/admin/settings', payload: { guest_purchases: null } }));
    expect(off.json().value.guest_purchases).toBe(false);
  });
});
