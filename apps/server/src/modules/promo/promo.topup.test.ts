import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeYooKassa } from '../../../../../testing/payments/yookassa-server.ts';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, startInstance, type TestApp } from '../../test/test-app.ts';
import { paymentsConfig } from '../../test/payments.ts';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { findPaymentLedgerMismatches } from '../payments/payments.ledger-check.ts';

// Issue 23: a 'topup_bonus' promo code on the top-up form adds its percent when the payment is credited.
describe.each(dbKinds)('top-up promo codes on %s', (kind) => {
  let t: TestApp;
  let yoo: FakeYooKassa;
  let admin: string;
  let player: string;
  let playerId: number;

  beforeAll(async () => {
    yoo = await new FakeYooKassa().start();
    t = await createTestApp(kind, { workers: false, payments: paymentsConfig(yoo, null) });
    await seedUser(t, 'Admin', { admin: true });
    playerId = await seedUser(t, 'Payer');
    admin = await loginAs(t, 'Admin');
    player = await loginAs(t, 'Payer');
  });
  afterAll(async () => {
    await t?.close();
    await yoo?.stop();
  });

  const balance = async () =>
    Number((await t.handle.db.selectFrom('users').select('balance').where('id', '=', playerId).executeTakeFirstOrThrow()).balance);
  const pay = (payload: object) => t.app.inject(asUser(player, { method: 'POST', url: '/api/payments', payload }));
  const credit = async (id: string) => {
    const row = await t.handle.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    yoo.pay(row.provider_payment_id!);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/payments/yookassa/notify',
      payload: yoo.notificationFor(row.provider_payment_id!) as object,
      remoteAddress: '185.71.76.17',
    });
    expect(res.statusCode).toBe(200);
  };

  it('adds the code’s percent once, refuses shop codes and codes used up by the player', async () => {
    const code = await t.app.inject(
      asUser(admin, { method: 'POST', url: '/api/admin/promo-codes', payload: { code: 'Bonus15', kind: 'topup_bonus', value: 15 } }),
    );
    expect(code.statusCode, code.body).toBe(201);
    const shopCode = await t.app.inject(
      asUser(admin, { method: 'POST', url: '/api/admin/promo-codes', payload: { code: 'SHOP5', kind: 'percent', value: 5 } }),
    );
    expect(shopCode.statusCode).toBe(201);

    const refused = await pay({ amount: 100, provider: 'yookassa', promo_code: 'shop5' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'promo_not_applicable', field: 'promo_code' });
    expect((await pay({ amount: 100, provider: 'yookassa', promo_code: 'nope' })).json()).toMatchObject({ code: 'promo_not_found' });

    const before = await balance();
    const created = await pay({ amount: 200, provider: 'yookassa', promo_code: 'bonus15' });
    expect(created.statusCode, created.body).toBe(201);
    await credit(created.json<{ id: string }>().id);
    expect(await balance()).toBe(before + 20_000 + 3_000);
    const row = await t.handle.db
      .selectFrom('payments')
      .select('bonus')
      .where('id', '=', created.json<{ id: string }>().id)
      .executeTakeFirstOrThrow();
    expect(Number(row.bonus)).toBe(3_000);
    expect(await findLedgerMismatches(t.handle.db)).toEqual([]);
    expect(await findPaymentLedgerMismatches(t.handle.db)).toEqual([]);

    // Once per player (per_player 1): a second top-up with it is refused before anything is made.
    expect((await pay({ amount: 100, provider: 'yookassa', promo_code: 'BONUS15' })).json()).toMatchObject({ code: 'promo_used' });
    const list = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/admin/promo-codes' }));
    expect(
      list.json<{ code: string; uses: number; revenue: number; discount_total: number }[]>().find((c) => c.code === 'Bonus15'),
    ).toMatchObject({
      uses: 1,
      revenue: 200,
      discount_total: 30,
    });
  });

  it('gives a per_player 1 code once when five of its payments are credited at once (across two instances on PostgreSQL)', async () => {
    const code = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/admin/promo-codes',
        payload: { code: 'TOPUP50', kind: 'topup_bonus', value: 50, per_player: 1 },
      }),
    );
    expect(code.statusCode, code.body).toBe(201);
    const promoId = code.json<{ id: number }>().id;
    const racerId = await seedUser(t, 'Racer');
    const racer = await loginAs(t, 'Racer');

    // Nothing is used until the money arrives, so all five are accepted.
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject(
        asUser(racer, { method: 'POST', url: '/api/payments', payload: { amount: 100, provider: 'yookassa', promo_code: 'TOPUP50' } }),
      );
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json<{ id: string }>().id);
    }
    for (const id of ids) {
      const row = await t.handle.db.selectFrom('payments').select('provider_payment_id').where('id', '=', id).executeTakeFirstOrThrow();
      yoo.pay(row.provider_payment_id!);
    }

    // The return pages of all five at once, each asked of both instances: each re-reads its payment
    // from YooKassa and credits it.
    const other = kind === 'pg' ? await startInstance(t.app.ctx.config.databaseUrl!, { payments: t.app.ctx.config.payments }) : null;
    try {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 === 1 && other ? other.app : t.app).inject(asUser(racer, { method: 'GET', url: `/api/payments/${ids[i % 5]}` })),
        ),
      );
      for (const a of answers) expect(a.statusCode, a.body).toBe(200);
    } finally {
      await other?.close();
    }

    const payments = await t.handle.db.selectFrom('payments').select(['status', 'bonus']).where('id', 'in', ids).execute();
    expect(payments.map((p) => p.status)).toEqual(Array(5).fill('succeeded'));
    expect(payments.map((p) => Number(p.bonus)).sort((a, b) => b - a)).toEqual([5_000, 0, 0, 0, 0]);
    const uses = await t.handle.db.selectFrom('promo_uses').select(['user_id', 'discount']).where('promo_id', '=', promoId).execute();
    expect(uses.map((u) => [Number(u.user_id), Number(u.discount)])).toEqual([[racerId, 5_000]]);
    const promo = await t.handle.db.selectFrom('promo_codes').select('uses').where('id', '=', promoId).executeTakeFirstOrThrow();
    expect(Number(promo.uses)).toBe(1);
    const racerBalance = await t.handle.db.selectFrom('users').select('balance').where('id', '=', racerId).executeTakeFirstOrThrow();
    expect(Number(racerBalance.balance)).toBe(55_000);
    const bonusRows = await t.handle.db
      .selectFrom('ledger')
      .select('amount')
      .where('user_id', '=', racerId)
      .where('reason', '=', 'bonus')
      .execute();
    expect(bonusRows.map((r) => Number(r.amount))).toEqual([5_000]);
    expect(await findLedgerMismatches(t.handle.db)).toEqual([]);
    expect(await findPaymentLedgerMismatches(t.handle.db)).toEqual([]);
  });
});
