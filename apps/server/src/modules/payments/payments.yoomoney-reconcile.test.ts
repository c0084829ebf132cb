import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeYooMoney } from '../../../../../testing/payments/yoomoney-server.ts';
import { paymentsConfig } from '../../test/payments.ts';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { findPaymentLedgerMismatches } from './payments.ledger-check.ts';
import { reconcilePayments } from './payments.reconcile.ts';
import { paymentsService } from './payments.service.ts';

const YOOMONEY_IP = '77.75.158.1';

/**
 * ЮMoney reconciliation: with an OAuth token (here the owner's, typed in the admin, over a
 * configuration without one) pending payments are looked up in the wallet's operation history by
 * label, so a payment whose HTTP notification was lost is still credited — once.
 */
describe.each(dbKinds)('ЮMoney reconciliation through operation-history on %s', (kind) => {
  let t: TestApp;
  let ym: FakeYooMoney;
  let admin: string;
  let player: string;
  let playerId: number;
  /** The payment of the first test, paid while no token was set. */
  let lostEarlier = '';

  beforeAll(async () => {
    ym = await new FakeYooMoney().start();
    t = await createTestApp(kind, {
      workers: false,
      secretsKey: 'test-secrets-key-0123456789abcdef0123',
      payments: paymentsConfig(null, null, {
        notifyPerIp: 1000,
        yoomoney: { wallet: ym.wallet, notificationSecret: ym.secret, formUrl: ym.formUrl, apiUrl: ym.apiUrl },
      }),
    });
    await seedUser(t, 'Owner', { admin: true });
    admin = await loginAs(t, 'Owner');
    playerId = await seedUser(t, 'YmPlayer');
    player = await loginAs(t, 'YmPlayer');
    // Every notification is lost unless a test posts it itself.
    ym.notificationUrl = null;
  });
  afterAll(async () => {
    await t?.close();
    await ym?.stop();
  });

  const db = () => t.handle.db;
  const reconcile = () => reconcilePayments(t.app.ctx, paymentsService(t.app.ctx));
  const balance = async () =>
    Number((await db().selectFrom('users').select('balance').where('id', '=', playerId).executeTakeFirstOrThrow()).balance);
  const payment = (id: string) => db().selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const topups = async (id: string) =>
    (await db().selectFrom('ledger').select('id').where('ref', '=', `payment:${id}`).where('reason', '=', 'topup').execute()).length;
  const events = async (id: string) =>
    db().selectFrom('payment_events').select(['kind', 'outcome']).where('payment_id', '=', id).orderBy('id').execute();
  const ledgerClean = async () => {
    expect(await findLedgerMismatches(db())).toEqual([]);
    expect(await findPaymentLedgerMismatches(db())).toEqual([]);
  };
  const setToken = async (token: string | null) => {
    const res = await t.app.inject(
      asUser(admin, { method: 'PUT', url: '/api/admin/payment-providers/yoomoney', payload: { secrets: { oauth_token: token } } }),
    );
    expect(res.statusCode, res.body).toBe(200);
  };
  const notify = (fields: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url: '/api/payments/yoomoney/notify',
      payload: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      remoteAddress: YOOMONEY_IP,
    });
  /** A top-up the player starts; its quickpay form is posted to ЮMoney (not paid yet). */
  async function start(amount: number): Promise<string> {
    const res = await t.app.inject(asUser(player, { method: 'POST', url: '/api/payments', payload: { amount, provider: 'yoomoney' } }));
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json() as { id: string; form: { action: string; fields: Record<string, string> } };
    expect((await fetch(body.form.action, { method: 'POST', body: new URLSearchParams(body.form.fields) })).status).toBe(200);
    return body.id;
  }

  it('without an OAuth token the history is never asked: a paid payment whose notification was lost stays pending', async () => {
    const id = await start(150.5);
    await ym.pay(id);
    expect(ym.notifications).toHaveLength(0);
    const asked = ym.historyRequests.length;
    const pass = await reconcile();
    expect(pass.failed).toBe(0);
    expect(ym.historyRequests.length).toBe(asked);
    expect(await payment(id)).toMatchObject({ status: 'pending' });
    expect(await balance()).toBe(0);
    lostEarlier = id;
  });

  it('with the owner’s token a lost notification is credited by reconciliation, exactly once', async () => {
    await setToken(ym.oauthToken);
    const before = ym.historyRequests.length;
    const first = await reconcile();
    expect(first.failed).toBe(0);
    // Asked as the API wants: incoming operations under the payment's label.
    const req = ym.historyRequests.slice(before).find((r) => r.label === lostEarlier)!;
    expect(req).toMatchObject({ type: 'deposition', label: lostEarlier });
    expect(Number(req.records)).toBeGreaterThanOrEqual(1);
    expect(Number(req.records)).toBeLessThanOrEqual(100);
    const op = ym.operations.find((o) => o.label === lostEarlier)!;
    // 150,50 ₽ asked, 145,98 ₽ reached the wallet (ЮMoney's 3 %): the asked amount is credited.
    expect(op.amount).toBe('145.98');
    expect(await payment(lostEarlier)).toMatchObject({ status: 'succeeded', provider_operation_id: op.operation_id });
    expect(await balance()).toBe(15_050);
    await reconcile();
    expect(await topups(lostEarlier)).toBe(1);
    expect(await balance()).toBe(15_050);
    // The late notification of the same operation changes nothing.
    expect((await notify(ym.notificationFor(op))).statusCode).toBe(200);
    expect(await topups(lostEarlier)).toBe(1);
    expect(await balance()).toBe(15_050);
    await ledgerClean();
  });

  it('reconciliation racing the late genuine notification (and each other) credits once', async () => {
    for (const amount of [100, 333.33, 10]) {
      const id = await start(amount);
      const op = await ym.pay(id);
      const before = await balance();
      const answers = await Promise.all([reconcile(), notify(ym.notificationFor(op)), reconcile(), notify(ym.notificationFor(op))]);
      expect((answers[1] as { statusCode: number }).statusCode).toBe(200);
      expect((answers[3] as { statusCode: number }).statusCode).toBe(200);
      expect(await payment(id)).toMatchObject({ status: 'succeeded', provider_operation_id: op.operation_id });
      expect(await topups(id)).toBe(1);
      expect(await balance()).toBe(before + Math.round(amount * 100));
    }
    await ledgerClean();
  });

  it('an operation still in progress (or refused) leaves the payment pending; once it succeeds it is credited', async () => {
    const id = await start(200);
    const op = ym.record({ label: id, amount: '194.00', status: 'in_progress' });
    const before = await balance();
    await reconcile();
    expect(await payment(id)).toMatchObject({ status: 'pending', provider_status: 'in_progress' });
    op.status = 'refused';
    await reconcile();
    expect(await payment(id)).toMatchObject({ status: 'pending', provider_status: 'refused' });
    expect(await balance()).toBe(before);
    op.status = 'success';
    await reconcile();
    expect(await payment(id)).toMatchObject({ status: 'succeeded', provider_operation_id: op.operation_id });
    expect(await balance()).toBe(before + 20_000);
    await ledgerClean();
  });

  it('money going out under the label, or less than was asked, is not credited', async () => {
    const id = await start(100);
    const before = await balance();
    // The wallet paying 100 ₽ out with the payment's label.
    ym.record({ label: id, amount: '100.00', direction: 'out' });
    await reconcile();
    expect(await payment(id)).toMatchObject({ status: 'pending' });
    // Too little came in: 90 ₽, then 96,99 ₽ (less than 100 ₽ less the 3 % commission).
    ym.record({ label: id, amount: '90.00' });
    await reconcile();
    ym.record({ label: id, amount: '96.99' });
    await reconcile();
    expect(await payment(id)).toMatchObject({ status: 'pending' });
    expect(await balance()).toBe(before);
    expect((await events(id)).some((e) => e.kind === 'fetch' && e.outcome.includes('не зачислено'))).toBe(true);
    // Exactly 100 ₽ less 3 % covers it.
    const enough = ym.record({ label: id, amount: '97.00' });
    await reconcile();
    expect(await payment(id)).toMatchObject({ status: 'succeeded', provider_operation_id: enough.operation_id });
    expect(await balance()).toBe(before + 10_000);
    await ledgerClean();
  });

  it('a refused token (401 invalid_token, 403 insufficient_scope) is recorded on the payment; nothing is credited, nothing crashes', async () => {
    const id = await start(120);
    await ym.pay(id);
    const before = await balance();
    await setToken('revoked-token-0000');
    const pass = await reconcile();
    expect(pass.failed).toBeGreaterThanOrEqual(1);
    expect(await payment(id)).toMatchObject({ status: 'pending' });
    expect(await balance()).toBe(before);
    const afterBad = await events(id);
    expect(afterBad.some((e) => e.kind === 'error' && e.outcome.includes('invalid_token'))).toBe(true);
    // The genuine notification cannot be re-read either: 502 (ЮMoney repeats it), not 500; nothing credited.
    const op = ym.operations.find((o) => o.label === id)!;
    const late = await notify(ym.notificationFor(op));
    expect(late.statusCode).toBe(502);
    expect(late.json()).toMatchObject({ code: 'provider_failed' });
    expect(await payment(id)).toMatchObject({ status: 'pending' });
    expect(await balance()).toBe(before);
    // The owner's «Проверить подключение» says so too.
    const check = await t.app.inject(asUser(admin, { method: 'POST', url: '/api/admin/payment-providers/yoomoney/check' }));
    expect(check.json()).toMatchObject({ ok: false });

    // The right token without the operation-history right: 403.
    await setToken(ym.oauthToken);
    ym.tokenScopes.delete('operation-history');
    try {
      const again = await reconcile();
      expect(again.failed).toBeGreaterThanOrEqual(1);
      expect((await events(id)).some((e) => e.kind === 'error' && e.outcome.includes('operation-history'))).toBe(true);
      expect(await payment(id)).toMatchObject({ status: 'pending' });
    } finally {
      ym.tokenScopes.add('operation-history');
    }
    // The token put right: the payment is found and credited.
    await reconcile();
    expect(await payment(id)).toMatchObject({ status: 'succeeded' });
    expect(await balance()).toBe(before + 12_000);
    await ledgerClean();
  });
});
