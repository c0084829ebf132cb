import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTBank, signTBank } from '../../../../../testing/payments/tbank-server.ts';
import { FakeYooKassa } from '../../../../../testing/payments/yookassa-server.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { findPaymentLedgerMismatches } from './payments.ledger-check.ts';
import { SiteSettingsDoc } from '../site/site.settings.ts';
import { reconcilePayments } from './payments.reconcile.ts';
import { PAYMENT_EXPIRY_MS, paymentsService } from './payments.service.ts';
import { paymentsConfig } from '../../test/payments.ts';

const YOOKASSA_IP = '185.71.76.17';
const FOREIGN_IP = '203.0.113.9';

describe.each(dbKinds)('payments on %s', (kind) => {
  let t: TestApp;
  let yoo: FakeYooKassa;
  let tbank: FakeTBank;
  let player: string;
  let playerId: number;
  beforeAll(async () => {
    yoo = await new FakeYooKassa().start();
    tbank = await new FakeTBank().start();
    yoo.receiptsRequired = true;
    t = await createTestApp(kind, {
      workers: false,
      payments: paymentsConfig(yoo, tbank, {
        yookassa: {
          shopId: yoo.shopId,
          secretKey: yoo.secretKey,
          apiUrl: yoo.apiUrl,
          receipts: true,
          notifyIps: ['185.71.76.0/27', '2a02:5180::/32'],
        },
      }),
    });
    playerId = await seedUser(t, 'Payer');
    player = await loginAs(t, 'Payer');
  });
  afterAll(async () => {
    await t?.close();
    await yoo?.stop();
    await tbank?.stop();
  });

  const balance = async () =>
    Number((await t.handle.db.selectFrom('users').select('balance').where('id', '=', playerId).executeTakeFirstOrThrow()).balance);
  const payment = (id: string) => t.handle.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const create = (amount: unknown, provider: unknown = 'yookassa', token: string | null = player) =>
    t.app.inject(asUser(token, { method: 'POST', url: '/api/payments', payload: { amount, provider } as object }));
  const yooNotify = (body: unknown, ip = YOOKASSA_IP, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/api/payments/yookassa/notify', payload: body as object, remoteAddress: ip, headers });
  const tbankNotify = (body: unknown) =>
    t.app.inject({ method: 'POST', url: '/api/payments/tbank/notify', payload: body as object, remoteAddress: '91.194.226.1' });
  const ledgerClean = async () => {
    expect(await findLedgerMismatches(t.handle.db)).toEqual([]);
    expect(await findPaymentLedgerMismatches(t.handle.db)).toEqual([]);
  };

  it('offers only the configured providers and the bounds', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/payments/options' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      providers: [
        { id: 'yookassa', name: 'ЮKassa' },
        { id: 'tbank', name: 'Т-Банк' },
      ],
      min: 10,
      max: 100000,
    });
  });

  it('refuses guests, amounts outside the bounds or with more than two decimals, and unknown providers', async () => {
    expect((await create(150.5, 'yookassa', null)).statusCode).toBe(401);
    for (const [amount, text] of [
      [9.99, 'Минимальная сумма пополнения — 10\u00a0₽'],
      [100000.01, 'Максимальная сумма пополнения — 100\u00a0000\u00a0₽'],
      [150.505, 'Введите сумму в рублях, не больше двух знаков после запятой'],
      ['150', 'Введите сумму в рублях, не больше двух знаков после запятой'],
    ] as const) {
      const res = await create(amount);
      expect(res.statusCode, String(amount)).toBe(400);
      // Schema refusals name the field after the text, as everywhere on the site.
      expect(errorOf(res).startsWith(text), errorOf(res)).toBe(true);
      expect(res.json().field).toBe('amount');
    }
    const res = await create(100, 'paypal');
    expect(res.statusCode).toBe(400);
    expect(res.json().field).toBe('provider');
    expect(await t.handle.db.selectFrom('payments').select('id').execute()).toEqual([]);
  });

  it('creates a YooKassa payment the way the API wants it and answers 201 {id, status, confirmation_url}', async () => {
    const res = await create(150.5);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['confirmation_url', 'form', 'id', 'label', 'status']);
    expect(body.status).toBe('pending');
    const call = yoo.requests.at(-1)!;
    expect(call.headers['idempotence-key']).toBe(body.id);
    expect(call.headers.authorization).toBe(`Basic ${Buffer.from(`${yoo.shopId}:${yoo.secretKey}`).toString('base64')}`);
    expect(call.body).toMatchObject({
      amount: { value: '150.50', currency: 'RUB' },
      capture: true,
      confirmation: { type: 'redirect', return_url: `http://kubik.test/profile?payment=${body.id}` },
      metadata: { payment_id: body.id },
      receipt: {
        customer: { email: 'payer@example.com' },
        items: [
          {
            // A top-up is an advance: the balance buys goods later (their receipt is the completion one).
            description: 'Пополнение баланса (аванс)',
            amount: { value: '150.50', currency: 'RUB' },
            vat_code: 1,
            payment_mode: 'full_prepayment',
            payment_subject: 'payment',
          },
        ],
      },
    });
    const row = await payment(body.id);
    expect(body.confirmation_url).toBe(yoo.payments.get(row.provider_payment_id!)!.confirmation!.confirmation_url);
    expect(Number(row.amount)).toBe(15050);
  });

  it('names the site in the payment description as the owner set it, not as the environment did', async () => {
    const { name } = await t.app.ctx.settings.get(SiteSettingsDoc);
    await t.app.ctx.settings.set(SiteSettingsDoc, { name: 'Остров Кубов' }, { actorId: null });
    try {
      expect((await create(100)).statusCode).toBe(201);
      expect((yoo.requests.at(-1)!.body as { description: string }).description).toMatch(/ \(Остров Кубов\)$/);
    } finally {
      await t.app.ctx.settings.set(SiteSettingsDoc, { name }, { actorId: null });
    }
  });

  it('credits a paid YooKassa payment once when its notification comes 5 times at once', async () => {
    const before = await balance();
    const { id } = (await create(150.5)).json();
    const ypid = (await payment(id)).provider_payment_id!;
    yoo.pay(ypid);
    const note = yoo.notificationFor(ypid);
    const answers = await Promise.all(Array.from({ length: 5 }, () => yooNotify(note)));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(await balance()).toBe(before + 15050);
    const row = await payment(id);
    expect(row.status).toBe('succeeded');
    expect(row.paid_at).not.toBeNull();
    const rows = await t.handle.db.selectFrom('ledger').selectAll().where('ref', '=', `payment:${id}`).execute();
    expect(rows.map((r) => [r.reason, Number(r.amount)])).toEqual([['topup', 15050]]);
    // The player sees it.
    const mine = await t.app.inject(asUser(player, { method: 'GET', url: '/api/payments' }));
    expect(mine.json()[0]).toEqual({
      id,
      provider: 'yookassa',
      amount: 150.5,
      status: 'succeeded',
      created_at: expect.any(Number),
      paid_at: expect.any(Number),
      bonus: 0,
    });
    const one = await t.app.inject(asUser(player, { method: 'GET', url: `/api/payments/${id}` }));
    expect(one.json()).toMatchObject({ id, status: 'succeeded', amount: 150.5 });
    // …and once in the bell.
    const bell = (await t.app.inject(asUser(player, { method: 'GET', url: '/api/user/notifications' }))).json();
    expect(bell.items.filter((n: { data: { payment_id?: string } | null }) => n.data?.payment_id === id)).toEqual([
      expect.objectContaining({ kind: 'topup', title: 'Баланс пополнен на 150,50\u00a0₽', body: null }),
    ]);
    await ledgerClean();
  });

  it('credits nothing on a forged notification (the API says pending) or one from a foreign address', async () => {
    const before = await balance();
    const { id } = (await create(500)).json();
    const ypid = (await payment(id)).provider_payment_id!;
    const forged = yoo.notificationFor(ypid);
    forged.event = 'payment.succeeded';
    forged.object = { ...forged.object, status: 'succeeded', paid: true };
    expect((await yooNotify(forged)).statusCode).toBe(200);
    expect((await payment(id)).status).toBe('pending');

    yoo.pay(ypid);
    const real = yoo.notificationFor(ypid);
    const foreign = await yooNotify(real, FOREIGN_IP);
    expect(foreign.statusCode).toBe(403);
    // Without TRUST_PROXY a forwarded address is not believed.
    expect((await yooNotify(real, FOREIGN_IP, { 'x-forwarded-for': YOOKASSA_IP })).statusCode).toBe(403);
    expect((await payment(id)).status).toBe('pending');
    expect(await balance()).toBe(before);
    // Refusals are counted per reason, not stored whole.
    expect(await t.handle.db.selectFrom('payment_events').selectAll().where('ip', '=', FOREIGN_IP).execute()).toEqual([]);
    // Counted in memory, written at most every 10 s and before the owner's summary is read.
    await paymentsService(t.app.ctx).registry.refusals.flush();
    const refused = await t.handle.db.selectFrom('payment_refusals').selectAll().where('provider', '=', 'yookassa').execute();
    expect(refused).toMatchObject([{ reason: 'foreign_ip', last_ip: FOREIGN_IP }]);
    expect(Number(refused[0]!.count)).toBeGreaterThanOrEqual(2);

    // YooKassa's IPv6 range is accepted too.
    expect((await yooNotify(real, '2a02:5180::1')).statusCode).toBe(200);
    expect(await balance()).toBe(before + 50000);
    await ledgerClean();
  });

  it('credits nothing for a canceled payment', async () => {
    const before = await balance();
    const { id } = (await create(200)).json();
    const ypid = (await payment(id)).provider_payment_id!;
    yoo.cancel(ypid);
    expect((await yooNotify(yoo.notificationFor(ypid))).statusCode).toBe(200);
    const row = await payment(id);
    expect(row.status).toBe('canceled');
    expect(row.canceled_at).not.toBeNull();
    expect(await balance()).toBe(before);
    // A canceled payment never comes back, whatever is said later.
    await paymentsService(t.app.ctx).apply(row, {
      status: 'succeeded',
      providerStatus: 'succeeded',
      amountKopecks: 20000,
      orderId: id,
      raw: {},
    });
    expect((await payment(id)).status).toBe('canceled');
    expect(await balance()).toBe(before);
    await ledgerClean();
  });

  it('T-Bank: Init with a valid Token; a notification repeated 5 times at once credits once, answered OK', async () => {
    const before = await balance();
    const res = await create(150.5, 'tbank');
    expect(res.statusCode, res.body).toBe(201);
    const { id, confirmation_url } = res.json();
    const init = tbank.requests.find((r) => r.path === '/v2/Init' && (r.body as { OrderId: string }).OrderId === id)!.body as Record<
      string,
      unknown
    >;
    expect(init).toMatchObject({
      TerminalKey: tbank.terminalKey,
      Amount: 15050,
      OrderId: id,
      NotificationURL: 'http://kubik.test/api/payments/tbank/notify',
      SuccessURL: `http://kubik.test/profile?payment=${id}`,
    });
    expect(init.Token).toBe(signTBank(init, tbank.password));
    const p = tbank.byOrder(id);
    expect(confirmation_url).toBe(`${tbank.url}/new/${p.code}`);
    await tbank.pay(p, false);
    const note = tbank.notificationFor(p);
    const answers = await Promise.all(Array.from({ length: 5 }, () => tbankNotify(note)));
    for (const a of answers) {
      expect(a.statusCode).toBe(200);
      expect(a.body).toBe('OK');
    }
    expect(await balance()).toBe(before + 15050);
    expect((await payment(id)).status).toBe('succeeded');
    await ledgerClean();
  });

  it('T-Bank: a notification with a wrong Token, or saying CONFIRMED while GetState says NEW, credits nothing', async () => {
    const before = await balance();
    const { id } = (await create(300, 'tbank')).json();
    const p = tbank.byOrder(id);
    const lying = { ...tbank.notificationFor(p), Status: 'CONFIRMED' };
    const badToken = await tbankNotify(lying);
    expect(badToken.statusCode).toBe(403);
    expect(badToken.body).not.toBe('OK');
    // Correctly signed (as if the password leaked) but the bank says the payment is not paid.
    const signed = { ...lying, Token: signTBank(lying, tbank.password) };
    expect((await tbankNotify(signed)).body).toBe('OK');
    expect((await payment(id)).status).toBe('pending');
    expect(await balance()).toBe(before);
    await tbank.reject(p, false);
    expect((await tbankNotify(tbank.notificationFor(p))).body).toBe('OK');
    expect((await payment(id)).status).toBe('canceled');
    expect(await balance()).toBe(before);
    await ledgerClean();
  });

  it('reconciliation finds a lost notification and cancels what stayed unpaid for 24 hours', async () => {
    const before = await balance();
    const paid = (await create(1000)).json().id;
    const tpaid = (await create(250, 'tbank')).json().id;
    const unpaid = (await create(700)).json().id;
    yoo.pay((await payment(paid)).provider_payment_id!);
    await tbank.pay(tbank.byOrder(tpaid), false);
    const first = await reconcilePayments(t.app.ctx, paymentsService(t.app.ctx));
    expect(first.failed).toBe(0);
    expect((await payment(paid)).status).toBe('succeeded');
    expect((await payment(tpaid)).status).toBe('succeeded');
    expect((await payment(unpaid)).status).toBe('pending');
    expect(await balance()).toBe(before + 100000 + 25000);
    const later = await reconcilePayments(t.app.ctx, paymentsService(t.app.ctx), Date.now() + PAYMENT_EXPIRY_MS + 1000);
    expect(later.expired).toBeGreaterThanOrEqual(1);
    expect((await payment(unpaid)).status).toBe('canceled');
    const events = await t.handle.db
      .selectFrom('payment_events')
      .select(['kind', 'outcome'])
      .where('payment_id', '=', unpaid)
      .orderBy('id')
      .execute();
    expect(events.map((e) => e.kind)).toEqual(expect.arrayContaining(['create', 'fetch', 'expire']));
    expect(await balance()).toBe(before + 125000);
    await ledgerClean();
  });

  it('a provider that fails answers 502 in Russian and leaves no pending payment behind', async () => {
    yoo.failNext = { status: 500, count: 1 };
    const res = await create(100);
    expect(res.statusCode).toBe(502);
    expect(errorOf(res)).toBe('Платёжная система не ответила. Попробуйте ещё раз через минуту.');
    const row = await t.handle.db.selectFrom('payments').selectAll().orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    expect(row.status).toBe('canceled');
  });
});

describe('payments without providers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { workers: false });
    await seedUser(t, 'Nobody');
  });
  afterAll(async () => t?.close());

  it('offers no provider and refuses to create a payment', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/payments/options' })).json().providers).toEqual([]);
    const res = await t.app.inject(
      asUser(await loginAs(t, 'Nobody'), { method: 'POST', url: '/api/payments', payload: { amount: 100, provider: 'yookassa' } }),
    );
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toBe('Этот способ оплаты не подключён');
    expect((await t.app.inject({ method: 'POST', url: '/api/payments/tbank/notify', payload: { a: 1 } })).statusCode).toBe(404);
  });
});

describe('payments behind a proxy (TRUST_PROXY)', () => {
  let t: TestApp;
  let yoo: FakeYooKassa;
  beforeAll(async () => {
    yoo = await new FakeYooKassa().start();
    t = await createTestApp('sqlite', { workers: false, trustProxy: true, payments: paymentsConfig(yoo, null) });
    await seedUser(t, 'Proxied');
  });
  afterAll(async () => {
    await t?.close();
    await yoo?.stop();
  });

  it('takes the caller address from X-Forwarded-For', async () => {
    const token = await loginAs(t, 'Proxied');
    const { id } = (
      await t.app.inject(asUser(token, { method: 'POST', url: '/api/payments', payload: { amount: 100, provider: 'yookassa' } }))
    ).json();
    const ypid = (await t.handle.db.selectFrom('payments').select('provider_payment_id').where('id', '=', id).executeTakeFirstOrThrow())
      .provider_payment_id!;
    yoo.pay(ypid);
    const note = yoo.notificationFor(ypid);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/payments/yookassa/notify',
          payload: note,
          remoteAddress: '127.0.0.1',
          headers: { 'x-forwarded-for': FOREIGN_IP },
        })
      ).statusCode,
    ).toBe(403);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/payments/yookassa/notify',
          payload: note,
          remoteAddress: '127.0.0.1',
          headers: { 'x-forwarded-for': '77.75.156.11' },
        })
      ).statusCode,
    ).toBe(200);
    expect((await t.handle.db.selectFrom('payments').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status).toBe(
      'succeeded',
    );
  });
});
