import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeYooKassa } from '../../../../../testing/payments/yookassa-server.ts';
import { receiptsSite, type Call } from '../../test/receipts.ts';
import { dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { findLedgerMismatches, postLedger } from '../ledger/ledger.service.ts';
import { findPaymentLedgerMismatches } from './payments.ledger-check.ts';
import { paymentsService } from './payments.service.ts';
import { moneyLots } from './receipts.repo.ts';
import { sendReceipts } from './receipts.service.ts';

const YOOKASSA_IP = '185.71.76.17';

/**
 * Which money gets which receipt: an advance row written with the credit, a completion reversed
 * when the goods' money goes back to the balance, and a payment for goods (a subscription's
 * period) kept out of the top-ups' FIFO and of the top-ups' side effects.
 */
describe.each(dbKinds)('receipt rules through YooKassa on %s', (kind) => {
  let t: TestApp;
  let call: Call;
  let yoo: FakeYooKassa;
  let owner: string;
  let itemId: number;
  let tierId: number;

  beforeAll(async () => {
    yoo = await new FakeYooKassa().start();
    yoo.receiptsRequired = true;
    ({ t, call, owner, itemId } = await receiptsSite(kind, { yookassa: yoo }));
    const tier = await call(owner, 'POST', '/api/donate/add', {
      title: 'VIP',
      content: 'Каждый месяц',
      amount: 199,
      currency: '₽',
      subscription: true,
      grant_commands: ['lp user {player} parent addtemp vip {days}d'],
    });
    expect(tier.statusCode, tier.body).toBe(201);
    tierId = tier.json().id;
  });
  afterAll(async () => {
    await t?.close();
    await yoo?.stop();
  });

  const db = () => t.handle.db;
  const receipts = (userId: number) => db().selectFrom('receipts').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  const spends = (userId: number) =>
    db().selectFrom('balance_spends').select(['payment_id', 'amount', 'ref']).where('user_id', '=', userId).orderBy('id').execute();
  const send = async () => sendReceipts(t.app.ctx, await paymentsService(t.app.ctx).adapters(), Date.now() + 3_600_000);
  const ypid = async (id: string) =>
    (await db().selectFrom('payments').select('provider_payment_id').where('id', '=', id).executeTakeFirstOrThrow()).provider_payment_id!;
  const sentReceipts = () => yoo.requests.filter((r) => r.path === '/v3/receipts');
  const ledgerClean = async () => {
    expect(await findLedgerMismatches(db())).toEqual([]);
    expect(await findPaymentLedgerMismatches(db())).toEqual([]);
  };

  async function player(name: string): Promise<{ token: string; id: number }> {
    const id = await seedUser(t, name);
    return { id, token: await loginAs(t, name) };
  }
  async function notifyPaid(paymentId: string): Promise<void> {
    const p = await ypid(paymentId);
    yoo.pay(p);
    const n = await t.app.inject({
      method: 'POST',
      url: '/api/payments/yookassa/notify',
      payload: yoo.notificationFor(p) as object,
      remoteAddress: YOOKASSA_IP,
    });
    expect(n.statusCode).toBe(200);
  }
  async function topUp(token: string, rub: number): Promise<string> {
    const res = await call(token, 'POST', '/api/payments', { amount: rub, provider: 'yookassa' });
    expect(res.statusCode, res.body).toBe(201);
    await notifyPaid(res.json().id);
    return res.json().id as string;
  }
  async function buy(token: string, quantity: number): Promise<number> {
    const res = await call(token, 'POST', '/api/shop/buy', { shop_id: itemId, quantity });
    expect(res.statusCode, res.body).toBe(200);
    return (await db().selectFrom('shop_orders').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow()).id;
  }
  const deliveryOf = async (orderId: number) =>
    (
      await db()
        .selectFrom('deliveries')
        .select('id')
        .where('source', '=', 'shop')
        .where('source_id', '=', orderId)
        .executeTakeFirstOrThrow()
    ).id;
  const refund = (deliveryId: number) => call(owner, 'POST', `/api/shop/admin/deliveries/${deliveryId}/refund`);

  it('the advance row is written by the crediting transaction, as the receipt went with the payment', async () => {
    const p = await player('Advance');
    const res = await call(p.token, 'POST', '/api/payments', { amount: 300, provider: 'yookassa' });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id as string;
    // Nothing is paid yet: no receipt row, only what went with the payment.
    expect(await receipts(p.id)).toEqual([]);
    const kept = await db().selectFrom('payments').select(['receipt', 'purpose']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(kept.purpose).toBe('topup');
    expect(JSON.parse(kept.receipt!)).toEqual({
      email: 'advance@example.com',
      lines: [
        {
          description: 'Пополнение баланса (аванс)',
          amountKopecks: 30000,
          vatCode: 1,
          paymentMode: 'full_prepayment',
          paymentSubject: 'payment',
        },
      ],
    });
    // The owner changes the VAT rate before the player pays: the row says what was sent.
    expect((await call(owner, 'PUT', '/api/admin/fiscal', { vat_code: 11 })).statusCode).toBe(200);
    await notifyPaid(id);
    expect((await call(owner, 'PUT', '/api/admin/fiscal', { vat_code: 1 })).statusCode).toBe(200);
    const rows = await receipts(p.id);
    expect(rows.map((r) => [r.payment_id, r.kind, r.state, Number(r.amount), r.idempotence_key])).toEqual([
      [id, 'advance', 'succeeded', 30000, id],
    ]);
    expect(JSON.parse(rows[0]!.lines)[0].vatCode).toBe(1);
    // A second notification credits nothing and writes no second row.
    await notifyPaid(id);
    expect(await receipts(p.id)).toHaveLength(1);
    // A payment never paid leaves no receipt row.
    const unpaid = await call(p.token, 'POST', '/api/payments', { amount: 100, provider: 'yookassa' });
    expect(unpaid.statusCode).toBe(201);
    expect(await receipts(p.id)).toHaveLength(1);
  });

  it('a purchase refunded to the balance reverses its completion receipt and gives the top-up back, never twice', async () => {
    const p = await player('Returner');
    const a = await topUp(p.token, 500);
    const order = await buy(p.token, 3);
    expect(await send()).toMatchObject({ failed: 0 });
    expect(yoo.offsetOf(await ypid(a))).toBe(30000);
    const before = sentReceipts().length;

    const d = await deliveryOf(order);
    const back = await refund(d);
    expect(back.statusCode, back.body).toBe(200);
    expect((await spends(p.id)).map((s) => [s.payment_id, Number(s.amount), s.ref])).toEqual([
      [a, 30000, `order:${order}`],
      [a, -30000, `order:${order}`],
    ]);
    const settlement = (await receipts(p.id)).find((r) => r.kind === 'settlement')!;
    const reversal = (await receipts(p.id)).find((r) => r.kind === 'settle_refund')!;
    expect(reversal).toMatchObject({ payment_id: a, state: 'pending', parent_id: settlement.id, ref: `delivery:${d}` });
    expect(Number(reversal.amount)).toBe(30000);

    expect(await send()).toMatchObject({ sent: 1, failed: 0 });
    const sent = sentReceipts().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toMatchObject({
      type: 'refund',
      payment_id: await ypid(a),
      customer: { email: 'returner@example.com' },
      tax_system_code: 2,
      items: [{ description: 'Алмаз × 3', amount: { value: '300.00', currency: 'RUB' }, vat_code: 1, payment_mode: 'full_payment' }],
      settlements: [{ type: 'prepayment', amount: { value: '300.00', currency: 'RUB' } }],
    });
    expect((await receipts(p.id)).find((r) => r.id === reversal.id)!.state).toBe('succeeded');
    // YooKassa's advance is whole again.
    expect(yoo.offsetOf(await ypid(a))).toBe(0);

    // A second refund of the same delivery is refused and reverses nothing.
    expect((await refund(d)).statusCode).toBeGreaterThanOrEqual(400);
    expect((await receipts(p.id)).filter((r) => r.kind === 'settle_refund')).toHaveLength(1);

    // The money spends again on goods: their completion receipts offset the same advance, to its end.
    await buy(p.token, 5);
    expect(await send()).toMatchObject({ sent: 1, failed: 0 });
    expect(yoo.offsetOf(await ypid(a))).toBe(50000);
    const kinds = (await receipts(p.id)).map((r) => [r.kind, Number(r.amount), r.state]);
    expect(kinds).toEqual([
      ['advance', 50000, 'succeeded'],
      ['settlement', 30000, 'succeeded'],
      ['settle_refund', 30000, 'succeeded'],
      ['settlement', 50000, 'succeeded'],
    ]);
    // Nothing left to refund to the card: all of it was spent on goods handed over.
    expect((await call(owner, 'POST', `/api/admin/payments/${a}/refund`, {})).statusCode).toBe(409);
    await ledgerClean();
  });

  it('money of a spending comes back free part first; a reversal waits for its completion, and one never registered is canceled', async () => {
    const p = await player('Mixed');
    await db()
      .transaction()
      .execute((trx) =>
        postLedger(trx, {
          userId: p.id,
          amount: 10000,
          reason: 'adjustment',
          authorId: null,
          ref: 'gift:mixed',
          note: 'Подарок администратора',
        }),
      );
    const a = await topUp(p.token, 100);
    // 200 ₽: 100 ₽ of the top-up (paid money first), 100 ₽ of the bonus.
    const order = await buy(p.token, 2);
    expect((await spends(p.id)).map((s) => [s.payment_id, Number(s.amount)])).toEqual([[a, 10000]]);
    const { balanceReturned } = await import('../users/users.ports.ts');
    const back = (amount: number, returnedBefore: number) =>
      db()
        .transaction()
        .execute((trx) =>
          balanceReturned.run(trx, {
            userId: p.id,
            amount,
            spentRef: `order:${order}`,
            spent: 20000,
            returnedBefore,
            ref: `test:${returnedBefore}`,
          }),
        );
    // The first 100 ₽ back are the bonus: the completion stands.
    await back(10000, 0);
    expect((await receipts(p.id)).filter((r) => r.kind === 'settle_refund')).toEqual([]);
    // The next 50 ₽ are money: half of the completion is reversed. Its completion is not sent yet:
    // the reversal waits.
    yoo.receiptOutcome = 'canceled';
    await back(5000, 10000);
    const reversal = (await receipts(p.id)).find((r) => r.kind === 'settle_refund')!;
    expect(Number(reversal.amount)).toBe(5000);
    await send();
    const settlement = (await receipts(p.id)).find((r) => r.kind === 'settlement')!;
    expect(settlement.state).toBe('canceled');
    // Its completion was refused: nothing to reverse at the register, until the owner sends that one again.
    await send();
    expect((await receipts(p.id)).find((r) => r.id === reversal.id)).toMatchObject({ state: 'canceled' });
    expect(
      sentReceipts().filter(
        (r) => (r.body as { type?: string }).type === 'refund' && r.headers['idempotence-key'] === reversal.idempotence_key,
      ),
    ).toEqual([]);
    yoo.receiptOutcome = 'succeeded';
    const again = await call(owner, 'POST', `/api/admin/receipts/${settlement.id}/resend`);
    expect(again.statusCode, again.body).toBe(200);
    expect((await receipts(p.id)).find((r) => r.id === reversal.id)).toMatchObject({
      state: 'pending',
      idempotence_key: `${reversal.idempotence_key}-r1`,
    });
    await send();
    await send();
    expect((await receipts(p.id)).filter((r) => r.kind !== 'advance').map((r) => [r.kind, Number(r.amount), r.state])).toEqual([
      ['settlement', 10000, 'succeeded'],
      ['settle_refund', 5000, 'succeeded'],
    ]);
    expect(yoo.offsetOf(await ypid(a))).toBe(5000);
    // The top-up holds 50 ₽ again.
    expect((await moneyLots(db(), p.id)).map((l) => [l.id, l.left])).toEqual([[a, 5000]]);
  });

  it("a subscription's payment carries its own «полный расчёт», stays out of the top-ups' FIFO and is no top-up", async () => {
    const inviter = await player('SubInviter');
    const p = await player('SubPayer');
    await db().insertInto('referrals').values({ inviter_id: inviter.id, invited_id: p.id, created_at: Date.now() }).execute();
    const rules = await call(owner, 'PUT', '/api/admin/referral-settings', {
      share_percent: 10,
      share_days: 30,
      bonus_amount: 0,
      bonus_min_topup: 0,
      hold_days: 0,
    });
    expect(rules.statusCode, rules.body).toBe(200);

    const sub = await call(p.token, 'POST', `/api/donate/${tierId}/subscribe`, { provider: 'yookassa' });
    expect(sub.statusCode, sub.body).toBe(201);
    const subPayment = sub.json().payment_id as string;
    const made = yoo.requests.filter((r) => r.path === '/v3/payments').at(-1)!.body as { receipt: unknown };
    expect(made.receipt).toMatchObject({
      tax_system_code: 2,
      items: [{ amount: { value: '199.00' }, vat_code: 1, payment_mode: 'full_payment', payment_subject: 'service' }],
    });
    await notifyPaid(subPayment);
    const row = await db()
      .selectFrom('payments')
      .select(['status', 'purpose', 'bonus'])
      .where('id', '=', subPayment)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'succeeded', purpose: 'goods' });
    // No advance row, no spending parts: its receipt went with it.
    expect(await receipts(p.id)).toEqual([]);
    expect(await spends(p.id)).toEqual([]);
    expect(await moneyLots(db(), p.id)).toEqual([]);
    // No referral share and no «Баланс пополнен» for it.
    expect(await db().selectFrom('referral_rewards').select('id').where('payment_id', '=', subPayment).execute()).toEqual([]);
    const notices = await db().selectFrom('notices').select(['kind', 'title']).where('user_id', '=', p.id).execute();
    expect(notices.map((n) => n.kind)).toEqual(['subscription']);

    // A bonus, then a top-up: spending the top-up gets its completion, spending the bonus none.
    await db()
      .transaction()
      .execute((trx) =>
        postLedger(trx, {
          userId: p.id,
          amount: 10000,
          reason: 'adjustment',
          authorId: null,
          ref: 'gift:sub',
          note: 'Подарок администратора',
        }),
      );
    const c = await topUp(p.token, 100);
    await buy(p.token, 1);
    await buy(p.token, 1);
    expect((await spends(p.id)).map((s) => [s.payment_id, Number(s.amount)])).toEqual([[c, 10000]]);
    const settlements = (await receipts(p.id)).filter((r) => r.kind === 'settlement');
    expect(settlements.map((r) => [r.payment_id, Number(r.amount)])).toEqual([[c, 10000]]);
    await send();
    expect(yoo.offsetOf(await ypid(c))).toBe(10000);
    expect(yoo.offsetOf(await ypid(subPayment))).toBe(0);

    // The top-up is one: its referral share and its notice.
    expect(
      (await db().selectFrom('referral_rewards').select(['payment_id', 'amount']).where('invited_id', '=', p.id).execute()).map((r) => [
        r.payment_id,
        Number(r.amount),
      ]),
    ).toEqual([[c, 1000]]);
    expect(
      (await db().selectFrom('notices').select('kind').where('user_id', '=', p.id).execute()).filter((n) => n.kind === 'topup'),
    ).toHaveLength(1);

    // Money of the period back on the balance is refunded in part with the goods' line, not an advance's.
    await db()
      .transaction()
      .execute((trx) =>
        postLedger(trx, {
          userId: p.id,
          amount: 5000,
          reason: 'adjustment',
          authorId: null,
          ref: 'gift:sub2',
          note: 'Подарок администратора',
        }),
      );
    const part = await call(owner, 'POST', `/api/admin/payments/${subPayment}/refund`, { amount: 50 });
    expect(part.statusCode, part.body).toBe(200);
    const refundBody = yoo.requests.filter((r) => r.path === '/v3/refunds').at(-1)!.body;
    expect(refundBody).toMatchObject({
      amount: { value: '50.00' },
      receipt: {
        tax_system_code: 2,
        items: [
          { description: 'Подписка VIP на 1 мес.', amount: { value: '50.00' }, payment_mode: 'full_payment', payment_subject: 'service' },
        ],
      },
    });
    await ledgerClean();
  });

  it("a guest's order carries its goods' «полный расчёт» inside the payment, with the item's VAT rate and subject", async () => {
    expect((await call(owner, 'PUT', '/api/admin/settings', { guest_purchases: true })).statusCode).toBe(200);
    const fiscal = await call(owner, 'PUT', `/api/admin/fiscal/items/shop_item/${itemId}`, { vat_code: 11, payment_subject: 'commodity' });
    expect(fiscal.statusCode, fiscal.body).toBe(200);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/shop/guest-orders',
      payload: { nickname: 'GuestKid', email: 'parent@example.com', shop_id: itemId, quantity: 2, provider: 'yookassa' },
      remoteAddress: '203.0.113.9',
    });
    expect(res.statusCode, res.body).toBe(201);
    const made = yoo.requests.filter((r) => r.path === '/v3/payments').at(-1)!.body as { receipt: unknown };
    expect(made.receipt).toEqual({
      customer: { email: 'parent@example.com' },
      items: [
        {
          description: 'Алмаз × 2 для GuestKid',
          quantity: '1.00',
          amount: { value: '200.00', currency: 'RUB' },
          vat_code: 11,
          payment_mode: 'full_payment',
          payment_subject: 'commodity',
        },
      ],
      tax_system_code: 2,
    });
  });
});
