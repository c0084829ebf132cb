import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeYooKassa } from '../../../../../testing/payments/yookassa-server.ts';
import { receiptsSite, type Call } from '../../test/receipts.ts';
import { dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { findLedgerMismatches, postLedger } from '../ledger/ledger.service.ts';
import { ProviderError } from '../../lib/payments/index.ts';
import { paymentsService } from './payments.service.ts';
import { sendReceipts } from './receipts.service.ts';

const YOOKASSA_IP = '185.71.76.17';

describe.each(dbKinds)('54-ФЗ receipts through YooKassa on %s', (kind) => {
  let t: TestApp;
  let call: Call;
  let yoo: FakeYooKassa;
  let owner: string;
  let player: string;
  let playerId: number;
  let itemId: number;

  beforeAll(async () => {
    yoo = await new FakeYooKassa().start();
    yoo.receiptsRequired = true;
    ({ t, call, owner, itemId } = await receiptsSite(kind, { yookassa: yoo }));
    playerId = await seedUser(t, 'Buyer');
    player = await loginAs(t, 'Buyer');
  });
  afterAll(async () => {
    await t?.close();
    await yoo?.stop();
  });

  const receipts = (paymentId?: string) => {
    let q = t.handle.db.selectFrom('receipts').selectAll().orderBy('id');
    if (paymentId) q = q.where('payment_id', '=', paymentId);
    return q.execute();
  };
  const send = async (now = Date.now()) => sendReceipts(t.app.ctx, await paymentsService(t.app.ctx).adapters(), now);
  const buy = async (quantity: number) => {
    const res = await call(player, 'POST', '/api/shop/buy', { shop_id: itemId, quantity });
    expect(res.statusCode, res.body).toBe(200);
  };

  /** Tops up and pays through the double: the payment is credited on YooKassa's notification. */
  async function topUp(rub: number): Promise<string> {
    const res = await call(player, 'POST', '/api/payments', { amount: rub, provider: 'yookassa' });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id as string;
    const row = await t.handle.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    yoo.pay(row.provider_payment_id!);
    const n = await t.app.inject({
      method: 'POST',
      url: '/api/payments/yookassa/notify',
      payload: yoo.notificationFor(row.provider_payment_id!) as object,
      remoteAddress: YOOKASSA_IP,
    });
    expect(n.statusCode).toBe(200);
    return id;
  }
  const ypid = async (id: string) =>
    (await t.handle.db.selectFrom('payments').select('provider_payment_id').where('id', '=', id).executeTakeFirstOrThrow())
      .provider_payment_id!;

  let a = '';
  let b = '';

  it('a top-up carries its advance receipt (full_prepayment, payment subject «payment») and keeps its row', async () => {
    a = await topUp(500);
    const call = yoo.requests.filter((r) => r.path === '/v3/payments').at(-1)!;
    expect(call.body).toMatchObject({
      receipt: {
        customer: { email: 'buyer@example.com' },
        tax_system_code: 2,
        items: [
          {
            description: 'Пополнение баланса (аванс)',
            quantity: '1.00',
            amount: { value: '500.00', currency: 'RUB' },
            vat_code: 1,
            payment_mode: 'full_prepayment',
            payment_subject: 'payment',
          },
        ],
      },
    });
    b = await topUp(300);
    const rows = await receipts();
    expect(rows.map((r) => [r.payment_id, r.kind, r.state, Number(r.amount)])).toEqual([
      [a, 'advance', 'succeeded', 50000],
      [b, 'advance', 'succeeded', 30000],
    ]);
  });

  it('three purchases over two top-ups: completion receipts FIFO by top-up, offsetting each advance', async () => {
    await buy(3); // 300 ₽ of A
    await buy(3); // 200 ₽ of A, 100 ₽ of B
    await buy(1); // 100 ₽ of B
    const settle = (await receipts()).filter((r) => r.kind === 'settlement');
    expect(settle.map((r) => [r.payment_id, Number(r.amount), r.state])).toEqual([
      [a, 30000, 'pending'],
      [a, 20000, 'pending'],
      [b, 10000, 'pending'],
      [b, 10000, 'pending'],
    ]);
    expect(await send()).toMatchObject({ sent: 4, failed: 0 });
    const sent = yoo.requests.filter((r) => r.path === '/v3/receipts');
    expect(sent).toHaveLength(4);
    expect(sent[1]!.body).toMatchObject({
      type: 'payment',
      payment_id: await ypid(a),
      send: true,
      customer: { email: 'buyer@example.com' },
      tax_system_code: 2,
      items: [
        {
          description: 'Алмаз × 3',
          amount: { value: '200.00', currency: 'RUB' },
          vat_code: 1,
          payment_mode: 'full_payment',
          payment_subject: 'service',
        },
      ],
      settlements: [{ type: 'prepayment', amount: { value: '200.00', currency: 'RUB' } }],
    });
    expect(new Set(sent.map((r) => r.headers['idempotence-key'])).size).toBe(4);
    expect(yoo.offsetOf(await ypid(a))).toBe(50000);
    expect(yoo.offsetOf(await ypid(b))).toBe(20000);
    expect((await receipts()).filter((r) => r.kind === 'settlement').every((r) => r.state === 'succeeded')).toBe(true);
    // A second pass sends nothing again.
    expect(await send()).toMatchObject({ sent: 0 });
  });

  it('a refund after a partial spend returns only what was not spent, with its refund receipt', async () => {
    const tooMuch = await call(owner, 'POST', `/api/admin/payments/${b}/refund`, { amount: 200 });
    expect(tooMuch.statusCode).toBe(409);
    expect(tooMuch.json()).toMatchObject({ code: 'refund_too_large', field: 'amount' });
    const spentAll = await call(owner, 'POST', `/api/admin/payments/${a}/refund`, {});
    expect(spentAll.statusCode).toBe(409);
    expect(spentAll.json().error).toMatch(/уже потрачено/);
    const ok = await call(owner, 'POST', `/api/admin/payments/${b}/refund`, {});
    expect(ok.statusCode, ok.body).toBe(200);
    const refund = yoo.requests.filter((r) => r.path === '/v3/refunds').at(-1)!;
    expect(refund.body).toMatchObject({
      amount: { value: '100.00' },
      receipt: { items: [{ amount: { value: '100.00' }, payment_mode: 'full_prepayment', payment_subject: 'payment' }] },
    });
    const rows = (await receipts(b)).filter((r) => r.kind === 'refund');
    expect(rows.map((r) => [Number(r.amount), r.state])).toEqual([[10000, 'succeeded']]);
    expect(await findLedgerMismatches(t.handle.db)).toEqual([]);
  });

  it('a purchase paid with free money (a bonus, an admin credit) gets no completion receipt', async () => {
    await t.handle.db
      .transaction()
      .execute((trx) =>
        postLedger(trx, { userId: playerId, amount: 10000, reason: 'bonus', authorId: null, ref: 'gift:test', note: 'Бонус' }),
      );
    const before = (await receipts()).length;
    await buy(1);
    expect((await receipts()).length).toBe(before);
    expect(await t.handle.db.selectFrom('balance_spends').select('id').where('ref', 'like', 'order:%').execute()).toHaveLength(4);
  });

  it('provider errors are retried with the same key; a refusal is canceled with its reason and can be resent', async () => {
    const c = await topUp(100);
    await buy(1);
    const [row] = (await receipts(c)).filter((r) => r.kind === 'settlement');
    yoo.failNext = { status: 500, count: 1 };
    expect(await send()).toMatchObject({ sent: 0, failed: 1 });
    let now = (await receipts(c)).find((r) => r.id === row!.id)!;
    expect(now).toMatchObject({ state: 'pending', attempts: 1 });
    expect(now.reason).toMatch(/500/);
    // Not before its backoff.
    expect(await send()).toMatchObject({ sent: 0, failed: 0 });
    expect(await send(Date.now() + 3_600_000)).toMatchObject({ sent: 1 });
    now = (await receipts(c)).find((r) => r.id === row!.id)!;
    expect(now.state).toBe('succeeded');
    const keys = yoo.requests.filter((r) => r.path === '/v3/receipts').map((r) => r.headers['idempotence-key']);
    expect(keys.filter((k) => k === row!.idempotence_key)).toHaveLength(2);

    // The register refuses the next one: canceled with the reason; the owner sends it again.
    const d = await topUp(100);
    await buy(1);
    yoo.receiptOutcome = 'canceled';
    await send();
    const [refused] = (await receipts(d)).filter((r) => r.kind === 'settlement');
    expect(refused).toMatchObject({ state: 'canceled', reason: 'receipt_registration_failed' });
    const list = await call(owner, 'GET', '/api/admin/receipts?state=canceled');
    expect(list.statusCode).toBe(200);
    expect(list.json().items.map((r: { id: number }) => r.id)).toEqual([refused!.id]);
    expect(list.json().items[0]).toMatchObject({
      kind_text: 'Полный расчёт (зачёт аванса)',
      state_text: 'Не зарегистрирован',
      amount: 100,
    });
    expect((await call(player, 'POST', `/api/admin/receipts/${refused!.id}/resend`)).statusCode).toBe(403);
    expect((await call(owner, 'POST', `/api/admin/receipts/${row!.id}/resend`)).statusCode).toBe(409);
    yoo.receiptOutcome = 'succeeded';
    const again = await call(owner, 'POST', `/api/admin/receipts/${refused!.id}/resend`);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ state: 'pending', idempotence_key: `${refused!.idempotence_key}-r1` });
    await send();
    expect((await receipts(d)).find((r) => r.id === refused!.id)!.state).toBe('succeeded');

    // The payment card's receipts.
    const card = await call(owner, 'GET', `/api/admin/payments/${d}/receipts`);
    expect(
      card
        .json()
        .items.map((r: { kind: string }) => r.kind)
        .sort(),
    ).toEqual(['advance', 'settlement']);
  });

  it('the double refuses what YooKassa refuses: a completion above what was prepaid, wrong VAT codes and sums', async () => {
    const adapter = (await paymentsService(t.app.ctx).adapters()).yookassa!;
    const line = { description: 'Алмаз', amountKopecks: 100, vatCode: 1, paymentMode: 'full_payment', paymentSubject: 'service' };
    const req = {
      key: 'x-1',
      type: 'payment' as const,
      providerPaymentId: await ypid(a),
      email: 'buyer@example.com',
      lines: [line],
      settlement: 'prepayment' as const,
      taxSystemCode: 2,
    };
    // A is wholly offset already.
    await expect(adapter.sendReceipt!(req)).rejects.toThrow(/Prepayment settlement exceeds the amount prepaid/);
    const err = await adapter.sendReceipt!({ ...req, key: 'x-2', lines: [{ ...line, vatCode: 13 }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).definitive).toBe(true);
    expect((err as ProviderError).message).toMatch(/Invalid vat_code/);
    await expect(adapter.sendReceipt!({ ...req, key: 'x-3', lines: [{ ...line, paymentSubject: 'gift' }] })).rejects.toThrow(
      /payment_subject/,
    );
    // 22 % (vat_code 11) is known.
    const c = (await t.handle.db.selectFrom('payments').select('id').orderBy('created_at').execute()).at(-1)!.id;
    await topUp(50);
    const last = (await t.handle.db.selectFrom('payments').select('id').orderBy('created_at', 'desc').executeTakeFirstOrThrow()).id;
    expect(c).not.toBe(last);
    const ok = await adapter.sendReceipt!({ ...req, key: 'x-4', providerPaymentId: await ypid(last), lines: [{ ...line, vatCode: 11 }] });
    expect(ok.status).toBe('succeeded');
  });

  it('once the owner publishes the offer, paying needs the consents (a new version asks again), each stored', async () => {
    const pay = (consents?: string[]) =>
      call(player, 'POST', '/api/payments', { amount: 100, provider: 'yookassa', ...(consents ? { consents } : {}) });
    const offer = (await call(owner, 'GET', '/api/admin/legal/offer')).json().template;
    expect((await call(owner, 'PUT', '/api/admin/legal/offer', offer)).statusCode).toBe(200);
    const refused = await pay();
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'consent_required', field: 'consents' });
    expect(refused.json().error).toMatch(/оферты/);
    const noAge = await pay(['offer']);
    expect(noAge.json().error).toMatch(/18 лет/);
    expect((await pay(['offer', 'age'])).statusCode).toBe(201);
    expect((await pay()).statusCode).toBe(201);
    expect((await call(owner, 'PUT', '/api/admin/legal/offer', { title: 'Оферта', body: 'Редакция 2' })).statusCode).toBe(200);
    expect((await pay()).json().code).toBe('consent_required');
    expect((await pay(['offer'])).statusCode).toBe(201);
    const stored = await t.handle.db
      .selectFrom('legal_consents')
      .select(['kind', 'version', 'source'])
      .where('user_id', '=', playerId)
      .orderBy('id')
      .execute();
    expect(stored.map((c) => [c.kind, Number(c.version), c.source])).toEqual([
      ['offer', 1, 'payment'],
      ['age', 1, 'payment'],
      ['offer', 2, 'payment'],
    ]);
  });

  it('a самозанятый through YooKassa: receipts without VAT (income registered in «Мой налог» by YooKassa), no completion receipts', async () => {
    const se = await call(owner, 'PUT', '/api/admin/fiscal', { legal_form: 'self_employed', ogrn: '' });
    expect(se.statusCode, se.body).toBe(200);
    yoo.selfEmployed = true;
    const id = await topUp(200);
    const made = yoo.requests.filter((r) => r.path === '/v3/payments').at(-1)!.body as { receipt: { items: Record<string, unknown>[] } };
    expect(made.receipt).toEqual({
      customer: { email: 'buyer@example.com' },
      items: [{ description: 'Пополнение баланса', quantity: '1.00', amount: { value: '200.00', currency: 'RUB' } }],
    });
    // 50 ₽ are left of the earlier top-up (spent first, FIFO), the other 50 ₽ come from this one.
    await buy(1);
    expect((await receipts(id)).map((r) => r.kind)).toEqual(['advance']);
    expect(
      (await t.handle.db.selectFrom('balance_spends').select('amount').where('payment_id', '=', id).execute()).map((r) => Number(r.amount)),
    ).toEqual([5000]);
    // A refund of the rest annuls that much of the income; its receipt again without VAT.
    const refund = await call(owner, 'POST', `/api/admin/payments/${id}/refund`, {});
    expect(refund.statusCode, refund.body).toBe(200);
    const sentRefund = yoo.requests.filter((r) => r.path === '/v3/refunds').at(-1)!.body as {
      receipt: { items: Record<string, unknown>[] };
    };
    expect(sentRefund.receipt.items).toEqual([
      { description: 'Пополнение баланса', quantity: '1.00', amount: { value: '150.00', currency: 'RUB' } },
    ]);
    yoo.selfEmployed = false;
  });

  it('an account from the game without an e-mail is asked for one before a payment with a receipt', async () => {
    const id = await seedUser(t, 'No_Mail');
    await t.handle.db
      .updateTable('users')
      .set({ email: 'no_mail@authme.invalid', email_lower: 'no_mail@authme.invalid' })
      .where('id', '=', id)
      .execute();
    const token = await loginAs(t, 'No_Mail');
    const before = await t.handle.db.selectFrom('payments').select('id').execute();
    const res = await call(token, 'POST', '/api/payments', { amount: 100, provider: 'yookassa', consents: ['offer', 'age'] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'receipt_email_required', field: 'email' });
    expect(res.json().error).toMatch(/почту/);
    expect(await t.handle.db.selectFrom('payments').select('id').execute()).toHaveLength(before.length);
  });
});
