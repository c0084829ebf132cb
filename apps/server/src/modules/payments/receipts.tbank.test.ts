import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTBank } from '../../../../../testing/payments/tbank-server.ts';
import { receiptsSite, type Call } from '../../test/receipts.ts';
import { dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { paymentsService } from './payments.service.ts';
import { sendReceipts } from './receipts.service.ts';

describe.each(dbKinds)('54-ФЗ receipts through T-Bank on %s', (kind) => {
  let t: TestApp;
  let call: Call;
  let tbank: FakeTBank;
  let owner: string;
  let player: string;
  let itemId: number;

  beforeAll(async () => {
    tbank = await new FakeTBank().start();
    tbank.receiptsRequired = true;
    ({ t, call, owner, itemId } = await receiptsSite(kind, { tbank }));
    await seedUser(t, 'Buyer');
    player = await loginAs(t, 'Buyer');
  });
  afterAll(async () => {
    await t?.close();
    await tbank?.stop();
  });

  it('Init carries the advance Receipt (Taxation, Items with Tax, PaymentMethod, PaymentObject); spending closes it with SendClosingReceipt', async () => {
    const res = await call(player, 'POST', '/api/payments', { amount: 300, provider: 'tbank' });
    expect(res.statusCode, res.body).toBe(201);
    const init = tbank.requests.find((r) => r.path === '/v2/Init')!;
    expect(init.body).toMatchObject({
      Amount: 30000,
      Receipt: {
        Email: 'buyer@example.com',
        Taxation: 'osn',
        Items: [
          {
            Name: 'Пополнение баланса (аванс)',
            Price: 30000,
            Quantity: 1,
            Amount: 30000,
            Tax: 'vat22',
            PaymentMethod: 'full_prepayment',
            PaymentObject: 'payment',
          },
        ],
      },
    });
    const p = tbank.byOrder(res.json().id);
    await tbank.pay(p, false);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/payments/tbank/notify',
          payload: tbank.notificationFor(p),
          remoteAddress: '91.194.226.1',
        })
      ).body,
    ).toBe('OK');

    expect((await call(player, 'POST', '/api/shop/buy', { shop_id: itemId, quantity: 2 })).statusCode).toBe(200);
    expect(await sendReceipts(t.app.ctx, await paymentsService(t.app.ctx).adapters())).toMatchObject({ sent: 1, failed: 0 });
    const closing = tbank.requests.find((r) => r.path === '/cashbox/SendClosingReceipt')!;
    expect(closing.body).toMatchObject({
      PaymentId: String(p.PaymentId),
      Receipt: {
        Taxation: 'osn',
        Items: [{ Name: 'Алмаз × 2', Amount: 20000, Tax: 'vat22', PaymentMethod: 'full_payment', PaymentObject: 'service' }],
      },
    });
    expect(p.closings).toHaveLength(1);
    const rows = await t.handle.db.selectFrom('receipts').select(['kind', 'state']).orderBy('id').execute();
    expect(rows).toEqual([
      { kind: 'advance', state: 'succeeded' },
      { kind: 'settlement', state: 'succeeded' },
    ]);
  });

  it('the double refuses a closing receipt above the advance and an unknown payment subject', async () => {
    const adapter = (await paymentsService(t.app.ctx).adapters()).tbank!;
    const p = [...tbank.payments.values()][0]!;
    const line = { description: 'Алмаз', amountKopecks: 20000, vatCode: 11, paymentMode: 'full_payment', paymentSubject: 'service' };
    await expect(
      adapter.sendReceipt!({
        key: 'k',
        type: 'payment',
        providerPaymentId: String(p.PaymentId),
        email: 'b@example.com',
        lines: [line],
        settlement: 'prepayment',
        taxSystemCode: 1,
      }),
    ).rejects.toThrow(/больше внесённой предоплаты/);
    await expect(
      adapter.sendReceipt!({
        key: 'k',
        type: 'payment',
        providerPaymentId: String(p.PaymentId),
        email: 'b@example.com',
        lines: [{ ...line, amountKopecks: 100, paymentSubject: 'gift' }],
        settlement: 'prepayment',
        taxSystemCode: 1,
      }),
    ).rejects.toThrow(/PaymentObject: неверный признак предмета расчёта/);
  });

  it("a subscription's Init (the first payment and each charge) carries the period's «полный расчёт», not an advance", async () => {
    const tier = await call(owner, 'POST', '/api/donate/add', {
      title: 'VIP',
      content: 'Каждый месяц',
      amount: 199,
      currency: '₽',
      subscription: true,
      grant_commands: ['lp user {player} parent addtemp vip {days}d'],
    });
    expect(tier.statusCode, tier.body).toBe(201);
    const sub = await call(player, 'POST', `/api/donate/${tier.json().id}/subscribe`, { provider: 'tbank' });
    expect(sub.statusCode, sub.body).toBe(201);
    const init = tbank.requests.filter((r) => r.path === '/v2/Init').at(-1)!;
    expect(init.body).toMatchObject({
      Amount: 19900,
      Recurrent: 'Y',
      Receipt: {
        Email: 'buyer@example.com',
        Taxation: 'osn',
        Items: [
          {
            Name: 'Подписка VIP на 1 мес.',
            Amount: 19900,
            Tax: 'vat22',
            PaymentMethod: 'full_payment',
            PaymentObject: 'service',
          },
        ],
      },
    });
  });
});
