import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTBank, signTBank } from '../../../../../testing/payments/tbank-server.ts';
import { FakeYooKassa } from '../../../../../testing/payments/yookassa-server.ts';
import { paymentsConfig, YOOKASSA_IPS } from '../../test/payments.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { findLedgerMismatches, postLedger } from '../ledger/ledger.service.ts';
import { CSV_HEADERS, csvCell } from './payments.admin.ts';
import { findPaymentLedgerMismatches } from './payments.ledger-check.ts';
import { reconcilePayments } from './payments.reconcile.ts';
import { REFUND_LEASE_MS } from './payments.refund.ts';
import { paymentsService } from './payments.service.ts';

const YOOKASSA_IP = '185.71.76.17';

describe.each(dbKinds)('payments, the owner side, on %s', (kind) => {
  let t: TestApp;
  let yoo: FakeYooKassa;
  let tbank: FakeTBank;
  let admin: string;
  let adminId: number;
  const players: Record<string, { id: number; token: string }> = {};

  beforeAll(async () => {
    yoo = await new FakeYooKassa().start();
    tbank = await new FakeTBank().start();
    yoo.receiptsRequired = true;
    t = await createTestApp(kind, {
      workers: false,
      payments: paymentsConfig(yoo, tbank, {
        yookassa: { shopId: yoo.shopId, secretKey: yoo.secretKey, apiUrl: yoo.apiUrl, receipts: true, notifyIps: YOOKASSA_IPS },
      }),
    });
    adminId = await seedUser(t, 'Owner', { admin: true });
    admin = await loginAs(t, 'Owner');
    for (const name of ['Steve', 'Alex', 'Herobrine', 'Notch'])
      players[name] = { id: await seedUser(t, name), token: await loginAs(t, name) };
  });
  afterAll(async () => {
    await t?.close();
    await yoo?.stop();
    await tbank?.stop();
  });

  const db = () => t.handle.db;
  const balance = async (name: string) =>
    Number((await db().selectFrom('users').select('balance').where('id', '=', players[name]!.id).executeTakeFirstOrThrow()).balance);
  const payment = (id: string) => db().selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const get = (token: string | null, url: string) => t.app.inject(asUser(token, { method: 'GET', url }));
  const refund = (id: string, token: string | null = admin) =>
    t.app.inject(asUser(token, { method: 'POST', url: `/api/admin/payments/${id}/refund` }));
  const ledgerClean = async () => {
    expect(await findLedgerMismatches(db())).toEqual([]);
    expect(await findPaymentLedgerMismatches(db())).toEqual([]);
  };

  /** A top-up by `name`, paid at the fake provider and taken from its notification. */
  async function paid(name: string, amount: number, provider: 'yookassa' | 'tbank' = 'yookassa'): Promise<string> {
    const res = await t.app.inject(asUser(players[name]!.token, { method: 'POST', url: '/api/payments', payload: { amount, provider } }));
    expect(res.statusCode, res.body).toBe(201);
    const { id } = res.json<{ id: string }>();
    const row = await payment(id);
    if (provider === 'yookassa') {
      yoo.pay(row.provider_payment_id!);
      const note = yoo.notificationFor(row.provider_payment_id!);
      expect(
        (await t.app.inject({ method: 'POST', url: '/api/payments/yookassa/notify', payload: note, remoteAddress: YOOKASSA_IP }))
          .statusCode,
      ).toBe(200);
    } else {
      const p = tbank.byOrder(id);
      await tbank.pay(p, false);
      expect((await t.app.inject({ method: 'POST', url: '/api/payments/tbank/notify', payload: tbank.notificationFor(p) })).body).toBe(
        'OK',
      );
    }
    expect((await payment(id)).status).toBe('succeeded');
    return id;
  }

  it('is the owner’s: guests get 401 and players 403 on every admin payments route', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const routes: [string, string][] = [
      ['GET', '/api/admin/payments'],
      ['GET', '/api/admin/payments.csv'],
      ['GET', `/api/admin/payments/${id}`],
      ['POST', `/api/admin/payments/${id}/refund`],
      ['GET', '/api/admin/payment-settings'],
      ['PUT', '/api/admin/payment-settings'],
    ];
    for (const [method, url] of routes) {
      const body = method === 'PUT' ? { vat_code: 1, bonus_rules: [] } : undefined;
      const guest = await t.app.inject({ method: method as 'GET', url, ...(body && { payload: body }) });
      expect(guest.statusCode, `${method} ${url}`).toBe(401);
      const player = await t.app.inject(asUser(players.Steve!.token, { method: method as 'GET', url, ...(body && { payload: body }) }));
      expect(player.statusCode, `${method} ${url}`).toBe(403);
      expect(player.json().error).toMatch(/[а-я]/i);
    }
  });

  it('bonus rules the owner sets are credited once, as a separate bonus row, however often the notification comes', async () => {
    const put = await t.app.inject(
      asUser(admin, {
        method: 'PUT',
        url: '/api/admin/payment-settings',
        payload: {
          vat_code: 1,
          bonus_rules: [
            { from: 1000, percent: 10 },
            { from: 5000, percent: 15 },
          ],
        },
      }),
    );
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().value.bonus_rules).toEqual([
      { from: 1000, percent: 10 },
      { from: 5000, percent: 15 },
    ]);
    expect((await get(admin, '/api/payments/options')).json().bonus_rules).toHaveLength(2);
    const bad = await t.app.inject(
      asUser(admin, {
        method: 'PUT',
        url: '/api/admin/payment-settings',
        payload: { vat_code: 1, bonus_rules: [{ from: 1000, percent: 0 }] },
      }),
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json().field).toBe('bonus_rules.0.percent');

    const before = await balance('Steve');
    const res = await t.app.inject(
      asUser(players.Steve!.token, { method: 'POST', url: '/api/payments', payload: { amount: 1500, provider: 'yookassa' } }),
    );
    const { id } = res.json<{ id: string }>();
    const ypid = (await payment(id)).provider_payment_id!;
    yoo.pay(ypid);
    const note = yoo.notificationFor(ypid);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        t.app.inject({ method: 'POST', url: '/api/payments/yookassa/notify', payload: note, remoteAddress: YOOKASSA_IP }),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);
    // Reconciliation later says the same: still once.
    await reconcilePayments(t.app.ctx, paymentsService(t.app.ctx));
    expect(await balance('Steve')).toBe(before + 150_000 + 15_000);
    const rows = await db().selectFrom('ledger').select(['reason', 'amount']).where('ref', '=', `payment:${id}`).orderBy('id').execute();
    expect(rows.map((r) => [r.reason, Number(r.amount)])).toEqual([
      ['topup', 150_000],
      ['bonus', 15_000],
    ]);
    expect(Number((await payment(id)).bonus)).toBe(15_000);
    const audit = await db()
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'settings.update')
      .where('entity_id', '=', 'payments')
      .execute();
    expect(audit).toHaveLength(1);
    await ledgerClean();
  });

  it('refunds once when «Вернуть» is pressed 5 times at once, taking back the bonus too', async () => {
    const id = await paid('Alex', 2000);
    expect(await balance('Alex')).toBe(220_000);
    const refundsBefore = yoo.requests.filter((r) => r.path === '/v3/refunds').length;
    const answers = await Promise.all(Array.from({ length: 5 }, () => refund(id)));
    const codes = answers.map((a) => a.statusCode).sort();
    expect(codes).toEqual([200, 409, 409, 409, 409]);
    const ok = answers.find((a) => a.statusCode === 200)!.json();
    expect(ok.message).toBe('Платёж возвращён');
    expect(ok.payment).toMatchObject({ id, status: 'refunded', username: 'Alex', refund_requested_by: 'Owner' });
    for (const a of answers.filter((x) => x.statusCode === 409))
      expect(['Возврат этого платежа уже выполняется', 'Платёж уже возвращён']).toContain(errorOf(a));
    expect(await balance('Alex')).toBe(0);
    const calls = yoo.requests.filter((r) => r.path === '/v3/refunds').slice(refundsBefore);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers['idempotence-key']).toBe(`${id}:refund:1`);
    expect(calls[0]!.body).toMatchObject({
      payment_id: (await payment(id)).provider_payment_id,
      amount: { value: '2000.00', currency: 'RUB' },
    });
    // A full refund: YooKassa makes its receipt from the payment's own (this shop sends receipts).
    expect(calls[0]!.body).not.toHaveProperty('receipt');
    const row = await payment(id);
    expect(row.status).toBe('refunded');
    expect(row.refunded_at).not.toBeNull();
    const ledger = await db()
      .selectFrom('ledger')
      .select(['reason', 'amount', 'ref'])
      .where('user_id', '=', players.Alex!.id)
      .where('reason', '=', 'topup_refund')
      .execute();
    expect(ledger.map((r) => [r.ref, Number(r.amount)])).toEqual([[`payment:${id}:refund:1`, -220_000]]);
    const audit = await db().selectFrom('audit_log').selectAll().where('entity', '=', 'payment').where('entity_id', '=', id).execute();
    expect(audit.map((a) => a.action)).toEqual(['payment.refund']);
    expect(JSON.parse(audit[0]!.after_json!)).toMatchObject({ status: 'Возвращается', balance: 0, amount: 2000, bonus: 200 });
    expect(audit[0]!.actor_id).toBe(adminId);
    // Pressed again later: refused, nothing moves.
    const again = await refund(id);
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('already_refunded');
    await ledgerClean();
  });

  it('refuses a refund the balance no longer covers, and asks the provider nothing', async () => {
    const id = await paid('Herobrine', 500);
    // The player spent part of it.
    await db()
      .transaction()
      .execute((trx) =>
        postLedger(trx, { userId: players.Herobrine!.id, amount: -10_000, reason: 'adjustment', authorId: null, note: 'покупка' }),
      );
    const calls = yoo.requests.length;
    const detail = (await get(admin, `/api/admin/payments/${id}`)).json();
    // All of it no longer fits; a part still can go back (partial refunds), up to what the balance holds.
    expect(detail.refund_block).toBeNull();
    expect(detail).toMatchObject({ refund_left: 500, refund_max: 400, refund_amount: 500 });
    const res = await refund(id);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'На балансе игрока уже нет этой суммы: вернуть платёж нельзя', code: 'insufficient_funds' });
    expect(yoo.requests.length).toBe(calls);
    expect((await payment(id)).status).toBe('succeeded');
    expect(await balance('Herobrine')).toBe(40_000);
    expect(await db().selectFrom('audit_log').select('id').where('entity_id', '=', id).execute()).toEqual([]);
    await ledgerClean();
  });

  it('puts the money back when the provider refuses, and a later refund still works', async () => {
    const id = await paid('Notch', 300);
    yoo.refundOutcome = 'canceled';
    const res = await refund(id);
    yoo.refundOutcome = 'succeeded';
    expect(res.statusCode).toBe(502);
    expect(res.json().code).toBe('refund_refused');
    expect(errorOf(res)).toMatch(
      /^Платёжная система отказала в возврате \(ЮKassa отменила возврат: rejected_by_payee\)\. Деньги снова на балансе игрока\.$/,
    );
    const row = await payment(id);
    expect(row.status).toBe('succeeded');
    expect(row.refund_error).toContain('ЮKassa отменила возврат');
    expect(await balance('Notch')).toBe(30_000);
    const audit = await db().selectFrom('audit_log').select('action').where('entity_id', '=', id).orderBy('id').execute();
    expect(audit.map((a) => a.action)).toEqual(['payment.refund', 'payment.refund_failed']);
    await ledgerClean();

    // A new attempt has a key of its own (the refused one's answer is cached under the old key).
    const second = await refund(id);
    expect(second.statusCode, second.body).toBe(200);
    expect(yoo.requests.filter((r) => r.path === '/v3/refunds').at(-1)!.headers['idempotence-key']).toBe(`${id}:refund:2`);
    expect((await payment(id)).status).toBe('refunded');
    expect(await balance('Notch')).toBe(0);
    await ledgerClean();
  });

  it('keeps the balance debited when the provider does not answer, and reconciliation finishes the refund once', async () => {
    await db()
      .transaction()
      .execute((trx) => postLedger(trx, { userId: players.Notch!.id, amount: 5_000, reason: 'adjustment', authorId: null, note: 'тест' }));
    const id = await paid('Notch', 100);
    yoo.failNext = { status: 500, count: 1 };
    const res = await refund(id);
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({
      error: 'Платёжная система не ответила. Сумма списана с баланса игрока; возврат будет повторён автоматически.',
      code: 'refund_unknown',
    });
    let row = await payment(id);
    expect(row.status).toBe('refunding');
    expect(row.refund_lease_until).toBeNull();
    expect(await balance('Notch')).toBe(5_000);
    await ledgerClean();

    // Reconciliation asks again with the same key: one refund at the provider.
    const pass = await reconcilePayments(t.app.ctx, paymentsService(t.app.ctx));
    expect(pass.refunds).toBe(1);
    row = await payment(id);
    expect(row.status).toBe('refunded');
    const posts = yoo.requests.filter((r) => r.path === '/v3/refunds' && r.headers['idempotence-key'] === `${id}:refund:1`);
    expect(posts).toHaveLength(2);
    expect([...yoo.refunds.values()].filter((r) => r.payment_id === row.provider_payment_id)).toHaveLength(1);
    expect(await balance('Notch')).toBe(5_000);
    await ledgerClean();
  });

  it('a refund the provider decides later answers 202 and is finished by reconciliation', async () => {
    const id = await paid('Notch', 250);
    yoo.refundOutcome = 'pending';
    const res = await refund(id);
    yoo.refundOutcome = 'succeeded';
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().message).toBe('Возврат отправлен в платёжную систему');
    const row = await payment(id);
    expect(row.status).toBe('refunding');
    expect(row.provider_refund_id).not.toBeNull();
    // Still pending: reconciliation re-reads the refund (GET) and leaves it.
    await reconcilePayments(t.app.ctx, paymentsService(t.app.ctx));
    expect((await payment(id)).status).toBe('refunding');
    expect(yoo.requests.at(-1)!.path).toBe(`/v3/refunds/${row.provider_refund_id}`);
    yoo.settleRefund(row.provider_refund_id!, 'succeeded');
    await reconcilePayments(t.app.ctx, paymentsService(t.app.ctx));
    expect((await payment(id)).status).toBe('refunded');
    await ledgerClean();
  });

  it('YooKassa’s refund.succeeded notification finishes a pending refund (the payment is re-read, not believed)', async () => {
    const id = await paid('Notch', 120);
    yoo.refundOutcome = 'pending';
    expect((await refund(id)).statusCode).toBe(202);
    yoo.refundOutcome = 'succeeded';
    const row = await payment(id);
    const pendingRefund = yoo.refunds.get(row.provider_refund_id!)!;
    // A notification saying «succeeded» while YooKassa's API still says the payment is not refunded changes nothing.
    const early = { type: 'notification', event: 'refund.succeeded', object: { ...pendingRefund, status: 'succeeded' } };
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/payments/yookassa/notify', payload: early, remoteAddress: YOOKASSA_IP })).statusCode,
    ).toBe(200);
    expect((await payment(id)).status).toBe('refunding');
    yoo.settleRefund(row.provider_refund_id!, 'succeeded');
    const note = { type: 'notification', event: 'refund.succeeded', object: yoo.refunds.get(row.provider_refund_id!) };
    const answers = await Promise.all(
      Array.from({ length: 3 }, () =>
        t.app.inject({ method: 'POST', url: '/api/payments/yookassa/notify', payload: note, remoteAddress: YOOKASSA_IP }),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
    const done = await payment(id);
    expect(done.status).toBe('refunded');
    expect(done.refunded_at).not.toBeNull();
    await ledgerClean();
  });

  it('check:ledger reports a second refund debit or a refund row of a payment that does not exist', async () => {
    const id = await paid('Herobrine', 50);
    expect((await refund(id)).statusCode).toBe(200);
    await ledgerClean();
    // A forged second debit of the same attempt cannot be written (unique per attempt) …
    await expect(
      db()
        .transaction()
        .execute((trx) =>
          postLedger(trx, {
            userId: players.Herobrine!.id,
            amount: -5_000,
            reason: 'topup_refund',
            authorId: null,
            ref: `payment:${id}:refund:1`,
          }),
        ),
    ).rejects.toThrow();
    // … and one under a made-up attempt number, or for a payment that does not exist, is reported.
    await db()
      .transaction()
      .execute(async (trx) => {
        await postLedger(trx, { userId: players.Herobrine!.id, amount: 100, reason: 'adjustment', authorId: null });
        await postLedger(trx, {
          userId: players.Herobrine!.id,
          amount: -100,
          reason: 'topup_refund',
          authorId: null,
          ref: `payment:${id}:refund:2`,
        });
      });
    const problems = await findPaymentLedgerMismatches(db());
    expect(problems).toEqual([expect.stringContaining(`payment:${id}:refund:2`)]);
    await db()
      .transaction()
      .execute((trx) =>
        postLedger(trx, {
          userId: players.Herobrine!.id,
          amount: 100,
          reason: 'topup_refund',
          authorId: null,
          ref: `payment:${id}:refund:2:back`,
        }),
      );
    expect(await findPaymentLedgerMismatches(db())).toHaveLength(2);
    // Tidy: the rows are the test's own; remove them so later checks see the real state.
    await db()
      .deleteFrom('ledger')
      .where('ref', 'in', [`payment:${id}:refund:2`, `payment:${id}:refund:2:back`])
      .execute();
    await db()
      .deleteFrom('ledger')
      .where('user_id', '=', players.Herobrine!.id)
      .where('reason', '=', 'adjustment')
      .where('amount', '=', 100)
      .execute();
    await db()
      .updateTable('users')
      .set((eb) => ({ balance: eb('balance', '-', 100) }))
      .where('id', '=', players.Herobrine!.id)
      .execute();
    await ledgerClean();
  });

  it('T-Bank: Cancel refunds once under 5 parallel presses; a Cancel the bank refuses puts the money back', async () => {
    const id = await paid('Steve', 150.5, 'tbank');
    const answers = await Promise.all(Array.from({ length: 5 }, () => refund(id)));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409, 409, 409, 409]);
    const p = tbank.byOrder(id);
    expect(p.Status).toBe('REFUNDED');
    const cancels = tbank.requests.filter(
      (r) => r.path === '/v2/Cancel' && (r.body as { PaymentId: unknown }).PaymentId === String(p.PaymentId),
    );
    expect(cancels).toHaveLength(1);
    // The attempt's key as T-Bank's idempotence key, signed with the rest.
    expect(cancels[0]!.body).toMatchObject({ Amount: 15_050, ExternalRequestId: `${id}:refund:1` });
    expect((cancels[0]!.body as { Token: string }).Token).toBe(signTBank(cancels[0]!.body as Record<string, unknown>, tbank.password));
    expect((await payment(id)).status).toBe('refunded');

    const other = await paid('Steve', 200, 'tbank');
    const before = await balance('Steve');
    tbank.refuseCancel = { code: '8', message: 'Неверный статус транзакции.' };
    const res = await refund(other);
    tbank.refuseCancel = null;
    expect(res.statusCode).toBe(502);
    expect(res.json().code).toBe('refund_refused');
    expect((await payment(other)).status).toBe('succeeded');
    expect(await balance('Steve')).toBe(before);

    // A Cancel repeated with the same ExternalRequestId answers the state and returns nothing twice.
    const repeat = await fetch(`${tbank.apiUrl}/Cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...(cancels[0]!.body as object) }),
    });
    expect(await repeat.json()).toMatchObject({ Success: true, Status: 'REFUNDED', NewAmount: 0 });
    expect(p.refunded).toBe(15_050);

    // The bank silent (503): stays refunding, debited; the next press (GetState first) finishes it.
    tbank.failNext = 1;
    const silent = await refund(other);
    expect(silent.json().code).toBe('refund_unknown');
    expect((await payment(other)).status).toBe('refunding');
    expect(await balance('Steve')).toBe(before - 20_000);
    const done = await refund(other);
    expect(done.statusCode, done.body).toBe(200);
    expect((await payment(other)).status).toBe('refunded');
    expect(await balance('Steve')).toBe(before - 20_000);
    await ledgerClean();
  });

  it('a refund in flight holds its lease: a second press meanwhile is refused', async () => {
    const id = await paid('Alex', 100);
    await db()
      .updateTable('payments')
      .set({ status: 'refunding', refund_attempts: 1, refund_lease_until: Date.now() + REFUND_LEASE_MS })
      .where('id', '=', id)
      .execute();
    await db()
      .transaction()
      .execute((trx) =>
        postLedger(trx, {
          userId: players.Alex!.id,
          amount: -10_000,
          reason: 'topup_refund',
          authorId: adminId,
          ref: `payment:${id}:refund:1`,
        }),
      );
    const res = await refund(id);
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('refund_in_progress');
    await db()
      .updateTable('payments')
      .set({ refund_lease_until: Date.now() - 1 })
      .where('id', '=', id)
      .execute();
    expect((await refund(id)).statusCode).toBe(200);
    await ledgerClean();
  });

  it('lists with filters, pages and totals; one payment shows every event', async () => {
    const all = (await get(admin, '/api/admin/payments')).json();
    expect(all.total).toBeGreaterThanOrEqual(8);
    expect(all.payments[0].created_at).toBeGreaterThanOrEqual(all.payments[1].created_at);
    const count = all.total;
    const page2 = (await get(admin, '/api/admin/payments?page=2&per_page=3')).json();
    expect(page2).toMatchObject({ page: 2, per_page: 3, total: count });
    expect(page2.payments.map((p: { id: string }) => p.id)).toEqual(all.payments.slice(3, 6).map((p: { id: string }) => p.id));

    const rows = await db().selectFrom('payments').selectAll().where('provider_payment_id', 'is not', null).execute();
    const paidRows = rows.filter((r) => ['succeeded', 'refunding', 'refunded'].includes(r.status));
    const refundedRows = rows.filter((r) => ['refunding', 'refunded'].includes(r.status));
    const sum = (rs: typeof rows) => rs.reduce((s, r) => s + Number(r.amount), 0) / 100;
    expect(all.totals).toMatchObject({
      count: rows.length,
      paid: sum(paidRows),
      paid_count: paidRows.length,
      refunded: sum(refundedRows),
      refunded_count: refundedRows.length,
    });
    expect(all.totals.net).toBeCloseTo(sum(paidRows) - sum(refundedRows), 2);

    const refunded = (await get(admin, '/api/admin/payments?status=refunded&provider=tbank')).json();
    expect(refunded.payments.every((p: { status: string; provider: string }) => p.status === 'refunded' && p.provider === 'tbank')).toBe(
      true,
    );
    expect(refunded.total).toBe(rows.filter((r) => r.status === 'refunded' && r.provider === 'tbank').length);
    const steve = (await get(admin, '/api/admin/payments?player=tev')).json();
    expect(steve.total).toBe(rows.filter((r) => r.user_id === players.Steve!.id).length);
    expect(new Set(steve.payments.map((p: { username: string }) => p.username))).toEqual(new Set(['Steve']));
    // A name's «_» is a letter, not a wildcard.
    expect((await get(admin, '/api/admin/payments?player=S_eve')).json().total).toBe(0);
    const future = Date.now() + 3_600_000;
    expect((await get(admin, `/api/admin/payments?from=${future}`)).json().totals).toMatchObject({
      count: 0,
      paid: 0,
      refunded: 0,
      net: 0,
    });
    const today = new Date().toISOString().slice(0, 10);
    expect((await get(admin, `/api/admin/payments?from=${today}&to=${future}`)).json().total).toBe(count);
    for (const bad of ['status=paid', 'provider=paypal', 'from=yesterday', 'from=2026-13-45', 'per_page=500', 'player=%27%3B']) {
      const res = await get(admin, `/api/admin/payments?${bad}`);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().error, bad).toMatch(/[а-я]/i);
    }

    const one = all.payments.find((p: { status: string; provider: string }) => p.status === 'refunded' && p.provider === 'yookassa');
    const detail = (await get(admin, `/api/admin/payments/${one.id}`)).json();
    expect(detail.payment).toEqual(one);
    const kinds = detail.events.map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['create', 'notification', 'fetch', 'refund']));
    expect(detail.events.find((e: { kind: string }) => e.kind === 'notification').ip).toBe(YOOKASSA_IP);
    expect(JSON.parse(detail.events.find((e: { kind: string }) => e.kind === 'refund').body)).toMatchObject({
      status: 'succeeded',
      payment_id: one.provider_payment_id,
    });
    expect(detail.refund_block).toBe('Платёж уже возвращён');
    expect((await get(admin, '/api/admin/payments/00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await get(admin, '/api/admin/payments/nope')).statusCode).toBe(400);
  });

  it('exports the same filter as CSV Excel opens: BOM, Russian headers, «;», roubles with kopecks', async () => {
    const res = await get(admin, '/api/admin/payments.csv?player=Steve&tz=Asia/Novosibirsk');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="payments-\d{4}-\d{2}-\d{2}\.csv"$/);
    const raw = res.rawPayload;
    expect([...raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = raw.subarray(3).toString('utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe(CSV_HEADERS.join(';'));
    const steveRows = await db()
      .selectFrom('payments')
      .selectAll()
      .where('user_id', '=', players.Steve!.id)
      .where('provider_payment_id', 'is not', null)
      .orderBy('created_at')
      .execute();
    expect(lines).toHaveLength(steveRows.length + 1);
    const tbankRow = lines.find((l) => l.includes(steveRows.find((r) => Number(r.amount) === 15_050)!.id))!.split(';');
    expect(tbankRow[3]).toBe('Steve');
    expect(tbankRow[4]).toBe('Т-Банк');
    expect(tbankRow[5]).toBe('150,50');
    expect(tbankRow[7]).toBe('Возвращён');
    expect(tbankRow[0]).toMatch(/^\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}:\d{2}$/);
    const bonusRow = lines.find((l) => l.includes(steveRows.find((r) => Number(r.amount) === 150_000)!.id))!.split(';');
    expect(bonusRow.slice(5, 8)).toEqual(['1500,00', '150,00', 'Оплачен']);
    const bad = await get(admin, '/api/admin/payments.csv?tz=Mars/Olympus');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'Неизвестный часовой пояс', field: 'tz' });
  });

  it('shows the player’s top-ups on the admin user card', async () => {
    const card = (await get(admin, `/api/admin/users/${players.Steve!.id}`)).json();
    const mine = await db()
      .selectFrom('payments')
      .select(['id', 'status'])
      .where('user_id', '=', players.Steve!.id)
      .where('provider_payment_id', 'is not', null)
      .orderBy('created_at', 'desc')
      .execute();
    expect(card.payments.map((p: { id: string }) => p.id)).toEqual(mine.map((p) => p.id));
    expect(card.payments[0]).toEqual({
      id: mine[0]!.id,
      amount: expect.any(Number),
      status: mine[0]!.status,
      provider: expect.any(String),
      created_at: expect.any(String),
    });
    await ledgerClean();
  });
});

describe('a CSV cell', () => {
  it('quotes a cell with a quote, a semicolon or a line break, doubling its quotes, and keeps a formula as text', () => {
    const cells: [string, string][] = [
      ['Steve', 'Steve'],
      ['150,50', '150,50'],
      ['say "hi"', '"say ""hi"""'],
      ['a;b', '"a;b"'],
      ['line\nbreak', '"line\nbreak"'],
      ['cr\rhere', '"cr\rhere"'],
      ['=HYPERLINK("x")', `"'=HYPERLINK(""x"")"`],
      ['-5', "'-5"],
    ];
    expect(cells.map(([value]) => csvCell(value))).toEqual(cells.map(([, cell]) => cell));
  });
});
