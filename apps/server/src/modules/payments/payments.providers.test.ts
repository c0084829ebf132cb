import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ShopPrice } from '@kubik/contract';
import { FakeFreeKassa } from '../../../../../testing/payments/freekassa-server.ts';
import { FakeYooKassa } from '../../../../../testing/payments/yookassa-server.ts';
import { FakeYooMoney } from '../../../../../testing/payments/yoomoney-server.ts';
import { paymentsConfig, YOOKASSA_IPS } from '../../test/payments.ts';
import {
  asUser,
  createTestApp,
  dbKinds,
  errorOf,
  loginAs,
  postBrokenJson,
  seedUser,
  startInstance,
  type TestApp,
} from '../../test/test-app.ts';
import { findLedgerMismatches, InsufficientFunds, postLedger } from '../ledger/ledger.service.ts';
import { topupRefunded } from '../users/users.ports.ts';
import { findPaymentLedgerMismatches } from './payments.ledger-check.ts';
import { PAYMENT_SERVER_TEXTS } from './payments.repo.ts';
import { paymentsService } from './payments.service.ts';
import { RefusalCounter } from './payments.providers.ts';
import type { AppContext } from '../../context.ts';

const YOOKASSA_IP = '185.71.76.17';
const FREEKASSA_IP = '168.119.157.136';
const YOOMONEY_IP = '77.75.158.1';

describe.each(dbKinds)('payment connections, ЮMoney, FreeKassa and partial refunds on %s', (kind) => {
  let t: TestApp;
  let yoo: FakeYooKassa;
  let ym: FakeYooMoney;
  let fk: FakeFreeKassa;
  let admin: string;
  const refunds: { paymentId: string; amount: number; bonus: number }[] = [];

  beforeAll(async () => {
    [yoo, ym, fk] = await Promise.all([new FakeYooKassa().start(), new FakeYooMoney().start(), new FakeFreeKassa().start()]);
    t = await createTestApp(kind, {
      workers: false,
      secretsKey: 'test-secrets-key-0123456789abcdef0123',
      payments: {
        ...paymentsConfig(yoo, null),
        maxPending: 1000,
        notifyPerIp: 1000,
        // The environment names the doubles' addresses: an address typed in the admin may only be
        // the provider's own host or the environment's (lib/provider-address.ts).
        defaults: {
          yookassaNotifyIps: YOOKASSA_IPS,
          freekassaNotifyIps: [FREEKASSA_IP],
          urls: {
            'yoomoney.form_url': ym.formUrl,
            'yoomoney.api_url': ym.apiUrl,
            'freekassa.form_url': fk.formUrl,
            'freekassa.api_url': fk.apiUrl,
          },
        },
      },
    });
    await seedUser(t, 'Owner', { admin: true });
    admin = await loginAs(t, 'Owner');
    topupRefunded.on('payments-test', async (_trx, r) => {
      refunds.push({ paymentId: r.paymentId, amount: r.amount, bonus: r.bonus });
    });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([yoo?.stop(), ym?.stop(), fk?.stop()]);
  });

  const db = () => t.handle.db;
  const as = (token: string | null, method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown) =>
    t.app.inject(asUser(token, { method, url, ...(payload === undefined ? {} : { payload: payload as object }) }));
  const balance = async (id: number) =>
    Number((await db().selectFrom('users').select('balance').where('id', '=', id).executeTakeFirstOrThrow()).balance);
  const payment = (id: string) => db().selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const ledgerClean = async () => {
    expect(await findLedgerMismatches(db())).toEqual([]);
    expect(await findPaymentLedgerMismatches(db())).toEqual([]);
  };
  const form = (provider: string, fields: Record<string, string>, ip: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/payments/${provider}/notify`,
      payload: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      remoteAddress: ip,
    });
  const providersOffered = async (app = t.app) =>
    ((await app.inject({ method: 'GET', url: '/api/payments/options' })).json() as { providers: { id: string }[] }).providers.map(
      (p) => p.id,
    );

  // The addresses are sent as the admin's form sends them: the environment's, so no change.
  async function connectYooMoney(oauth = false) {
    const res = await as(admin, 'PUT', '/api/admin/payment-providers/yoomoney', {
      enabled: true,
      fields: { wallet: ym.wallet, form_url: ym.formUrl, api_url: ym.apiUrl },
      secrets: { notification_secret: ym.secret, oauth_token: oauth ? ym.oauthToken : null },
    });
    expect(res.statusCode, res.body).toBe(200);
  }
  async function connectFreeKassa(apiKey: boolean) {
    const res = await as(admin, 'PUT', '/api/admin/payment-providers/freekassa', {
      enabled: true,
      fields: { merchant_id: fk.merchantId, form_url: fk.formUrl, api_url: fk.apiUrl },
      secrets: { secret1: fk.secret1, secret2: fk.secret2, api_key: apiKey ? fk.apiKey : null },
    });
    expect(res.statusCode, res.body).toBe(200);
  }

  it('connects ЮMoney in the admin: secrets are write-only, sealed, and never in any answer or the audit log', async () => {
    expect(await providersOffered()).toEqual(['yookassa']);
    const before = (await as(admin, 'GET', '/api/admin/payment-providers')).json() as {
      id: string;
      connected: boolean;
      notification_url: string;
    }[];
    expect(before.find((p) => p.id === 'yoomoney')).toMatchObject({
      connected: false,
      notification_url: 'http://kubik.test/api/payments/yoomoney/notify',
    });
    // A player may not see or change it.
    await seedUser(t, 'Nosy');
    const nosy = await loginAs(t, 'Nosy');
    expect((await as(nosy, 'GET', '/api/admin/payment-providers')).statusCode).toBe(403);
    expect((await as(null, 'PUT', '/api/admin/payment-providers/yoomoney', { enabled: true })).statusCode).toBe(401);

    await connectYooMoney();
    const list = await as(admin, 'GET', '/api/admin/payment-providers');
    expect(list.body).not.toContain(ym.secret);
    const mine = (list.json() as { id: string }[]).find((p) => p.id === 'yoomoney');
    expect(mine).toMatchObject({ connected: true, enabled: true, secrets: { notification_secret: 'set', oauth_token: 'unset' } });
    expect(mine).toMatchObject({ fields: { wallet: ym.wallet } });
    // The environment's key shows as such, never its value.
    const yk = (list.json() as { id: string; secrets: object }[]).find((p) => p.id === 'yookassa')!;
    expect(yk.secrets).toEqual({ secret_key: 'env' });
    expect(list.body).not.toContain(yoo.secretKey);
    // Stored sealed; the audit log says what changed, not the value.
    const row = await db().selectFrom('payment_providers').selectAll().where('provider', '=', 'yoomoney').executeTakeFirstOrThrow();
    expect(row.secrets).not.toContain(ym.secret);
    expect(row.secrets).toMatch(/"notification_secret":"v1:/);
    const audit = await db().selectFrom('audit_log').selectAll().where('action', '=', 'payment.provider').execute();
    expect(audit.length).toBeGreaterThan(0);
    expect(JSON.stringify(audit)).not.toContain(ym.secret);
    const auditApi = await as(admin, 'GET', '/api/admin/audit');
    expect(auditApi.body).not.toContain(ym.secret);
    // Unknown keys are refused in Russian, nothing changes.
    const bad = await as(admin, 'PUT', '/api/admin/payment-providers/yoomoney', { secrets: { password: 'x' } });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad)).toContain('Неизвестный ключ');
    expect((await as(admin, 'PUT', '/api/admin/payment-providers/paypal', { enabled: true })).statusCode).toBe(400);
    // «Проверить подключение».
    const check = await as(admin, 'POST', '/api/admin/payment-providers/yoomoney/check');
    expect(check.json()).toMatchObject({ ok: true });
    expect(check.body).not.toContain(ym.secret);
    expect(await providersOffered()).toEqual(['yookassa', 'yoomoney']);
    // Switched off: offered nowhere, its notifications refused.
    await as(admin, 'PUT', '/api/admin/payment-providers/yoomoney', { enabled: false });
    expect(await providersOffered()).toEqual(['yookassa']);
    await connectYooMoney();
  });

  it('ЮMoney: the form and the label, then only a correctly signed notification credits, once, the asked amount', async () => {
    const userId = await seedUser(t, 'YmPayer');
    const token = await loginAs(t, 'YmPayer');
    ym.notificationUrl = null;
    const created = await as(token, 'POST', '/api/payments', { amount: 150.5, provider: 'yoomoney' });
    expect(created.statusCode, created.body).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({ status: 'pending', confirmation_url: null, label: body.id });
    expect(body.form).toEqual({
      action: ym.formUrl,
      method: 'POST',
      fields: {
        receiver: ym.wallet,
        'quickpay-form': 'button',
        paymentType: 'AC',
        sum: '150.50',
        label: body.id,
        successURL: `http://kubik.test/profile?payment=${body.id}`,
      },
    });
    // The player posts the form; ЮMoney takes its 3 %.
    const page = await fetch(ym.formUrl, { method: 'POST', body: new URLSearchParams(body.form.fields) });
    expect(page.status).toBe(200);
    const op = await ym.pay(body.id);
    expect(op.amount).toBe('145.98');
    const good = ym.notificationFor(op);

    const refusalsBefore = await db().selectFrom('payment_refusals').selectAll().where('provider', '=', 'yoomoney').execute();
    const eventsBefore = Number(
      (
        await db()
          .selectFrom('payment_events')
          .select((eb) => eb.fn.max('id').as('id'))
          .executeTakeFirst()
      )?.id ?? 0,
    );
    // Forged: wrong secret; short: a field missing; codepro and unaccepted transfers.
    const forged = ym.notificationFor(op, { sha1_hash: ym.sign(good, 'guess') });
    const short = { ...good };
    delete (short as Record<string, string>).datetime;
    for (const [fields, reason] of [
      [forged, 'bad_token'],
      [{ ...good, amount: '1000.00' }, 'bad_token'],
      [short, 'malformed'],
      // Other transfers to the same label (one transfer is either protected or not): authentic, refused for what they say.
      [ym.notificationFor({ ...op, operation_id: '555000111' }, { codepro: 'true' }), 'codepro'],
      [ym.notificationFor({ ...op, operation_id: '555000222' }, { unaccepted: 'true' }), 'unaccepted'],
    ] as const) {
      const res = await form('yoomoney', fields, YOOMONEY_IP);
      expect(res.statusCode, reason).toBe(403);
    }
    expect((await payment(body.id)).status).toBe('pending');
    expect(await balance(userId)).toBe(0);
    // Counted in memory, written at most every 10 s and before the owner's summary is read.
    await paymentsService(t.app.ctx).registry.refusals.flush();
    const refusals = await db().selectFrom('payment_refusals').selectAll().where('provider', '=', 'yoomoney').execute();
    const count = (rows: typeof refusals, r: string) => Number(rows.find((x) => x.reason === r)?.count ?? 0);
    expect(count(refusals, 'bad_token') - count(refusalsBefore, 'bad_token')).toBe(2);
    expect(count(refusals, 'codepro') - count(refusalsBefore, 'codepro')).toBe(1);
    // Refusals leave nothing of their bodies; the two authentic ones mark their transfers judged, with a body-less event.
    const added = await db().selectFrom('payment_events').select(['body', 'outcome']).where('id', '>', eventsBefore).execute();
    expect(added.map((e) => e.body)).toEqual([null, null]);
    expect(added.map((e) => e.outcome.split(' ')[1])).toEqual(['555000111', '555000222']);

    // The real one, twice (ЮMoney repeats): credited once, the 150,50 ₽ asked — 145,98 ₽ reached the wallet, 3 % less.
    for (let i = 0; i < 2; i++) expect((await form('yoomoney', good, YOOMONEY_IP)).statusCode).toBe(200);
    expect(await payment(body.id)).toMatchObject({ status: 'succeeded', provider_operation_id: op.operation_id });
    expect(await balance(userId)).toBe(15_050);

    // The same operation_id under another label credits nothing more.
    const second = (await as(token, 'POST', '/api/payments', { amount: 150.5, provider: 'yoomoney' })).json();
    expect((await form('yoomoney', ym.notificationFor({ ...op, label: second.id }), YOOMONEY_IP)).statusCode).toBe(200);
    expect((await payment(second.id)).status).toBe('pending');
    // Short-paid (less reached the wallet than the asked sum less 3 %): not credited.
    const op2 = { ...op, operation_id: '777000111', label: second.id, sum: '100.00', amount: '97.00' };
    expect((await form('yoomoney', ym.notificationFor(op2), YOOMONEY_IP)).statusCode).toBe(200);
    expect((await payment(second.id)).status).toBe('pending');
    expect(await balance(userId)).toBe(15_050);
    // «Протестировать» in the wallet: answered 200, counted for the owner.
    expect((await form('yoomoney', ym.testNotification(), YOOMONEY_IP)).statusCode).toBe(200);
    const list = (await as(admin, 'GET', '/api/admin/payment-providers')).json() as { id: string; refusals: { reason: string }[] }[];
    expect(list.find((p) => p.id === 'yoomoney')!.refusals.map((r) => r.reason)).toContain('test');
    // ЮMoney has no refund API: the owner is told so.
    const detail = (await as(admin, 'GET', `/api/admin/payments/${body.id}`)).json();
    expect(detail.refund_block).toContain('не возвращает деньги через сайт');
    const refused = await as(admin, 'POST', `/api/admin/payments/${body.id}/refund`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('refund_not_supported');
    await ledgerClean();
  });

  it('FreeKassa: only its addresses and a correct SIGN; the order is re-read through its API; answered YES once', async () => {
    await connectFreeKassa(true);
    const userId = await seedUser(t, 'FkPayer');
    const token = await loginAs(t, 'FkPayer');
    const created = (await as(token, 'POST', '/api/payments', { amount: 250, provider: 'freekassa' })).json();
    const url = new URL(created.confirmation_url);
    expect(url.origin + url.pathname).toBe(fk.formUrl);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ m: fk.merchantId, oa: '250.00', o: created.id, currency: 'RUB' });
    // The form is accepted by FreeKassa (its signature s checks out).
    expect((await fetch(url)).status).toBe(200);
    const order = fk.orders.get(created.id)!;
    const good = fk.notificationFor(order);

    // From elsewhere, forged, short, another shop: refused, nothing credited.
    expect((await form('freekassa', good, '203.0.113.5')).statusCode).toBe(403);
    expect((await form('freekassa', fk.notificationFor(order, { SIGN: 'f'.repeat(32) }), FREEKASSA_IP)).statusCode).toBe(403);
    expect((await form('freekassa', { MERCHANT_ID: fk.merchantId, AMOUNT: '250.00' }, FREEKASSA_IP)).statusCode).toBe(403);
    expect((await form('freekassa', fk.notificationFor(order, { MERCHANT_ID: '999' }), FREEKASSA_IP)).statusCode).toBe(403);
    // Correctly signed (a leaked secret word) while FreeKassa's API says the order is not paid: YES, nothing credited.
    const lying = await form('freekassa', good, FREEKASSA_IP);
    expect(lying.body).toBe('YES');
    expect((await payment(created.id)).status).toBe('pending');
    expect(await balance(userId)).toBe(0);

    order.status = 1;
    for (let i = 0; i < 3; i++) expect((await form('freekassa', good, FREEKASSA_IP)).body).toBe('YES');
    expect(await payment(created.id)).toMatchObject({ status: 'succeeded', provider_status: 'fk:1' });
    expect(await balance(userId)).toBe(25_000);
    expect((await as(admin, 'POST', '/api/admin/payment-providers/freekassa/check')).json()).toMatchObject({ ok: true });
    await ledgerClean();
  });

  it('a flood of forged notifications stays bounded: counted per reason, and each address is limited', async () => {
    const rowsBefore = (await db().selectFrom('payment_refusals').select('reason').execute()).length;
    const eventsBefore = (await db().selectFrom('payment_events').select('id').execute()).length;
    const big = { type: 'notification', event: 'payment.succeeded', object: { id: 'x', junk: 'x'.repeat(20_000) } };
    const answers = await Promise.all(
      Array.from({ length: 300 }, () =>
        t.app.inject({ method: 'POST', url: '/api/payments/yookassa/notify', payload: big, remoteAddress: '198.51.100.7' }),
      ),
    );
    expect(answers.every((a) => a.statusCode === 403)).toBe(true);
    // One more summary row at most; no bodies kept.
    expect((await db().selectFrom('payment_refusals').select('reason').execute()).length).toBeLessThanOrEqual(rowsBefore + 1);
    expect((await db().selectFrom('payment_events').select('id').execute()).length).toBe(eventsBefore);
    const summary = (await as(admin, 'GET', '/api/admin/payment-providers')).json() as {
      id: string;
      refusals: { reason: string; count: number; last_ip: string }[];
    }[];
    const yk = summary.find((p) => p.id === 'yookassa')!.refusals.find((r) => r.reason === 'foreign_ip')!;
    expect(yk.count).toBeGreaterThanOrEqual(300);
    expect(yk.last_ip).toBe('198.51.100.7');
  });

  it('counts refusals in memory: a flush waits for earlier writes, a failed write keeps its counts, the latest sender wins', async () => {
    const rows = () => db().selectFrom('payment_refusals').selectAll().where('provider', '=', 'counter-test').execute();
    // The counter's own context: its database swapped for one that fails, then back.
    const broken = {
      insertInto: () => {
        throw new Error('database away');
      },
    };
    const ctx = { db: db() } as { db: unknown };
    const counter = new RefusalCounter(ctx as AppContext);
    for (let i = 1; i <= 5; i++) expect(counter.add('counter-test', 'bad_token', `192.0.2.${i}`)).toBeUndefined();
    // Two flushes at once: the second resolves only when the first one's rows are stored.
    const first = counter.flush();
    await counter.flush();
    expect(await rows()).toMatchObject([{ reason: 'bad_token', count: 5, last_ip: '192.0.2.5' }]);
    await first;

    ctx.db = broken;
    counter.add('counter-test', 'bad_token', '192.0.2.6');
    counter.add('counter-test', 'bad_token', '192.0.2.7');
    await counter.flush();
    expect(Number((await rows())[0]!.count)).toBe(5);
    ctx.db = db();
    await counter.flush();
    expect(await rows()).toMatchObject([{ count: 7, last_ip: '192.0.2.7' }]);

    // Another instance's older tally adds its count but keeps the later time and sender.
    const other = new RefusalCounter({ db: db() } as unknown as AppContext);
    const lastAt = Number((await rows())[0]!.last_at);
    vi.setSystemTime(lastAt - 60_000);
    other.add('counter-test', 'bad_token', '198.51.100.99');
    vi.useRealTimers();
    await other.flush();
    expect(await rows()).toMatchObject([{ count: 8, last_ip: '192.0.2.7', last_at: lastAt }]);

    // Stopping: what is counted is written, and every later refusal before it is answered.
    await counter.close();
    await counter.add('counter-test', 'bad_token', '192.0.2.8');
    expect(await rows()).toMatchObject([{ count: 9, last_ip: '192.0.2.8' }]);
  });

  it('caps the unpaid payments a player has waiting, in Russian', async () => {
    const capped = await createTestApp(kind, { workers: false, payments: { ...paymentsConfig(yoo, null), maxPending: 3 } });
    try {
      await seedUser(capped, 'Hasty');
      const token = await loginAs(capped, 'Hasty');
      const make = () =>
        capped.app.inject(asUser(token, { method: 'POST', url: '/api/payments', payload: { amount: 100, provider: 'yookassa' } }));
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push((await make()).statusCode);
      expect(codes).toEqual([201, 201, 201, 429]);
      const res = await make();
      expect(res.json()).toEqual({
        error: 'У вас уже 3 неоплаченных платежа. Оплатите один из них или подождите: неоплаченный платёж отменяется сам через сутки.',
        code: 'too_many_pending',
      });
      expect(PAYMENT_SERVER_TEXTS.tooManyPending(1)).toBe(
        'У вас уже 1 неоплаченный платёж. Оплатите его или подождите: неоплаченный платёж отменяется сам через сутки.',
      );
      expect(PAYMENT_SERVER_TEXTS.tooManyPending(5)).toMatch(/^У вас уже 5 неоплаченных платежей\. Оплатите один из них /);
      // Notifications from one address are limited too (every callback route): an IPv6 sender by
      // its /64, refused before the body is read, and every refusal counted in the summary.
      const limited = await createTestApp(kind, { workers: false, payments: { ...paymentsConfig(yoo, null), notifyPerIp: 5 } });
      try {
        const statuses = [];
        for (let i = 1; i <= 7; i++)
          statuses.push(
            (
              await limited.app.inject({
                method: 'POST',
                url: '/api/payments/yoomoney/notify',
                payload: {},
                remoteAddress: `2001:db8:5:9::${i}`,
              })
            ).statusCode,
          );
        expect(statuses.slice(0, 5).every((s) => s !== 429)).toBe(true);
        expect(statuses.slice(5)).toEqual([429, 429]);
        const broken = await postBrokenJson(limited, '/api/payments/yoomoney/notify', '2001:db8:5:9:aaaa::1');
        expect(broken.statusCode).toBe(429);
        expect(Number(broken.headers['retry-after'])).toBeGreaterThan(0);
        // Another network is not affected.
        expect(
          (
            await limited.app.inject({
              method: 'POST',
              url: '/api/payments/yoomoney/notify',
              payload: {},
              remoteAddress: '2001:db8:5:a::1',
            })
          ).statusCode,
        ).not.toBe(429);
        // A sender outside YooKassa's addresses is refused from memory, in YooKassa's shape, before
        // its body is read or its address's limit counted: ten forgeries from one address, none a 429.
        const foreign = [];
        for (let i = 0; i < 9; i++)
          foreign.push(
            await limited.app.inject({
              method: 'POST',
              url: '/api/payments/yookassa/notify',
              payload: { type: 'notification', event: 'payment.succeeded', object: { id: 'forged' } },
              remoteAddress: '203.0.113.66',
            }),
          );
        foreign.push(await postBrokenJson(limited, '/api/payments/yookassa/notify', '203.0.113.66'));
        expect(foreign.map((r) => r.statusCode)).toEqual(Array(10).fill(403));
        // From YooKassa's own address the body is read (and a broken one refused as such).
        expect((await postBrokenJson(limited, '/api/payments/yookassa/notify', '185.71.76.7')).statusCode).toBe(400);
        // Every refusal is in the summary once the site stops (written in batches, not per request).
        await limited.app.close();
        const summary = (provider: string, reason: string) =>
          limited.handle.db
            .selectFrom('payment_refusals')
            .select(['count', 'last_ip'])
            .where('provider', '=', provider)
            .where('reason', '=', reason)
            .executeTakeFirst();
        expect(await summary('yoomoney', 'rate_limited')).toMatchObject({ count: 3, last_ip: '2001:db8:5:9:aaaa::1' });
        expect(await summary('yookassa', 'foreign_ip')).toMatchObject({ count: 10, last_ip: '203.0.113.66' });
      } finally {
        await limited.close();
      }
    } finally {
      await capped.close();
    }
  });

  it('refuses amounts that round to zero kopecks everywhere, with a clear error', async () => {
    const userId = await seedUser(t, 'Tiny');
    const token = await loginAs(t, 'Tiny');
    for (const amount of [1e-9, 0.004]) {
      const change = await as(admin, 'POST', `/api/admin/users/${userId}/balance`, { amount, comment: 'копейка' });
      expect(change.statusCode, String(amount)).toBe(400);
      expect(errorOf(change)).toContain('Сумма меньше копейки');
      expect((await as(admin, 'PUT', `/api/user/${userId}`, { balance: amount })).statusCode).toBe(400);
      const topup = await as(token, 'POST', '/api/payments', { amount, provider: 'yookassa' });
      expect(topup.statusCode).toBe(400);
      expect(errorOf(topup)).toContain('Сумма меньше копейки');
      expect(ShopPrice.safeParse(amount).success).toBe(false);
    }
    expect(ShopPrice.safeParse(0).success).toBe(true);
    const rows = await db().selectFrom('ledger').select('amount').where('user_id', '=', userId).execute();
    expect(rows).toEqual([]);
    const badRefund = await as(admin, 'POST', `/api/admin/payments/00000000-0000-0000-0000-000000000000/refund`, { amount: 1e-9 });
    expect(badRefund.statusCode).toBe(400);
    expect(errorOf(badRefund)).toContain('Сумма меньше копейки');
    // A promo code's fixed discount and its minimum, a tier's sale price: refused, nothing stored.
    const promos = (await db().selectFrom('promo_codes').select('id').execute()).length;
    for (const body of [
      { code: 'TINY1', kind: 'fixed', value: 1e-9 },
      { code: 'TINY2', kind: 'fixed', value: 0.004 },
      { code: 'TINY3', kind: 'percent', value: 10, min_total: 0.004 },
    ]) {
      const promo = await as(admin, 'POST', '/api/admin/promo-codes', body);
      expect(promo.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorOf(promo)).toContain('Сумма меньше копейки');
    }
    expect((await db().selectFrom('promo_codes').select('id').execute()).length).toBe(promos);
    const tier = { title: 'Мини', content: 'Почти даром', amount: 10, currency: 'RUB', sale_amount: 0.004 };
    const sale = await as(admin, 'POST', '/api/donate/add', tier);
    expect(sale.statusCode).toBe(400);
    expect(errorOf(sale)).toContain('Сумма меньше копейки');
    expect((await as(admin, 'POST', '/api/donate/add', { ...tier, sale_amount: 0 })).statusCode).toBe(201);
  });

  it('partial refunds: several per payment, each with its bonus share, up to what is left; safe against purchases racing', async () => {
    await as(admin, 'PUT', '/api/admin/payment-settings', { vat_code: 1, bonus_rules: [{ from: 500, percent: 10 }] });
    // Receipts switched on in the admin: YooKassa then wants a receipt with each payment and with each part refunded.
    yoo.receiptsRequired = true;
    expect((await as(admin, 'PUT', '/api/admin/payment-providers/yookassa', { receipts: true })).statusCode).toBe(200);
    const userId = await seedUser(t, 'Refundee');
    const token = await loginAs(t, 'Refundee');
    const { id } = (await as(token, 'POST', '/api/payments', { amount: 1000, provider: 'yookassa' })).json();
    const ypid = (await payment(id)).provider_payment_id!;
    yoo.pay(ypid);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/payments/yookassa/notify',
          payload: yoo.notificationFor(ypid),
          remoteAddress: YOOKASSA_IP,
        })
      ).statusCode,
    ).toBe(200);
    expect(await balance(userId)).toBe(110_000);

    // 300 ₽ to the card takes its 30 ₽ of the bonus from the balance.
    let detail = (await as(admin, 'GET', `/api/admin/payments/${id}`)).json();
    expect(detail).toMatchObject({ refund_left: 1000, bonus_left: 100, refund_max: 1000, refund_amount: 1100 });
    const first = await as(admin, 'POST', `/api/admin/payments/${id}/refund`, { amount: 300 });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().payment).toMatchObject({ status: 'succeeded', refunded_amount: 300 });
    expect(await balance(userId)).toBe(77_000);
    expect(refunds.at(-1)).toEqual({ paymentId: id, amount: 30_000, bonus: 3_000 });
    const yooRefund = yoo.requests.filter((r) => r.path === '/v3/refunds').at(-1)!.body as {
      amount: { value: string };
      receipt: { items: { amount: { value: string } }[] };
    };
    expect(yooRefund.amount.value).toBe('300.00');
    expect(yooRefund.receipt.items[0]!.amount.value).toBe('300.00');

    // More than is left: refused, nothing changes.
    const tooMuch = await as(admin, 'POST', `/api/admin/payments/${id}/refund`, { amount: 700.01 });
    expect(tooMuch.statusCode).toBe(409);
    expect(tooMuch.json().code).toBe('refund_too_large');

    // The player spends while the owner refunds the rest (700 ₽ + 70 ₽ of bonus = all 770 ₽ on the balance):
    // one of them wins, the balance never goes below zero.
    const purchase = db()
      .transaction()
      .execute((trx) => postLedger(trx, { userId, amount: -50_000, reason: 'adjustment', authorId: null, note: 'покупка' }))
      .then(
        () => 'bought',
        (err) => (err instanceof InsufficientFunds ? 'no funds' : Promise.reject(err)),
      );
    const [bought, refund] = await Promise.all([purchase, as(admin, 'POST', `/api/admin/payments/${id}/refund`)]);
    const after = await balance(userId);
    expect(after).toBeGreaterThanOrEqual(0);
    if (bought === 'bought') {
      expect(refund.statusCode).toBe(409);
      expect(after).toBe(27_000);
      detail = (await as(admin, 'GET', `/api/admin/payments/${id}`)).json();
      // What the balance still covers can go back: 270 ₽ = 245,46 ₽ to the card + its bonus share.
      expect(detail.refund_max).toBeGreaterThan(0);
      const part = await as(admin, 'POST', `/api/admin/payments/${id}/refund`, { amount: detail.refund_max });
      expect(part.statusCode, part.body).toBe(200);
      expect(await balance(userId)).toBeGreaterThanOrEqual(0);
      expect((await payment(id)).status).toBe('succeeded');
    } else {
      expect(refund.statusCode, refund.body).toBe(200);
      expect(after).toBe(0);
      expect(await payment(id)).toMatchObject({ status: 'refunded', refunded_amount: 100_000, bonus_refunded: 10_000 });
    }
    yoo.receiptsRequired = false;
    await as(admin, 'PUT', '/api/admin/payment-providers/yookassa', { receipts: false });
    await ledgerClean();
  });

  it.runIf(kind === 'pg')('a provider switched on one instance is offered by another at once, without a restart', async () => {
    const other = await startInstance(t.app.ctx.config.databaseUrl!, {
      secretsKey: 'test-secrets-key-0123456789abcdef0123',
      payments: t.app.ctx.config.payments,
    });
    try {
      expect(await providersOffered(other.app)).toContain('yoomoney');
      await as(admin, 'PUT', '/api/admin/payment-providers/yoomoney', { enabled: false });
      const deadline = Date.now() + 15_000;
      while ((await providersOffered(other.app)).includes('yoomoney') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(await providersOffered(other.app)).not.toContain('yoomoney');
      await connectYooMoney();
      while (!(await providersOffered(other.app)).includes('yoomoney') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(await providersOffered(other.app)).toContain('yoomoney');
    } finally {
      await other.close();
    }
  });
});
