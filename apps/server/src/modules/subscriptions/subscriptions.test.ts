import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTBank } from '../../../../../testing/payments/tbank-server.ts';
import { FakeYooKassa } from '../../../../../testing/payments/yookassa-server.ts';
import { paymentsConfig } from '../../test/payments.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { findPaymentLedgerMismatches } from '../payments/payments.ledger-check.ts';
import { PaymentSettings } from '../payments/payments.settings.ts';
import { GRACE_MS, subscriptionPass, UNKNOWN_RETRY_MS } from './subscriptions.clock.ts';

const YOOKASSA_IP = '185.71.76.17';
const DAY = 86_400_000;

interface Sub {
  id: string;
  tier_id: number;
  state: string;
  next_charge_at: string | null;
  paid_until: string | null;
  card: string | null;
  amount: number;
}

describe.each(dbKinds)('subscriptions on %s', (kind) => {
  let t: TestApp;
  let yoo: FakeYooKassa;
  let tbank: FakeTBank;
  let admin: string;
  let tierId: number;
  let plainTierId: number;

  beforeAll(async () => {
    yoo = await new FakeYooKassa().start();
    tbank = await new FakeTBank().start();
    t = await createTestApp(kind, { workers: false, payments: paymentsConfig(yoo, tbank) });
    await seedUser(t, 'SubAdmin', { admin: true });
    admin = await loginAs(t, 'SubAdmin');
    const tier = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/donate/add',
        payload: {
          title: 'VIP',
          content: 'Каждый месяц',
          amount: 199,
          currency: '₽',
          subscription: true,
          grant_commands: ['lp user {player} parent addtemp vip {days}d'],
        },
      }),
    );
    expect(tier.statusCode, tier.body).toBe(201);
    expect(tier.json()).toMatchObject({ subscription: true, subscription_months: 1 });
    tierId = tier.json().id;
    const plain = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/donate/add',
        payload: { title: 'Премиум', content: 'Разово', amount: 499, currency: '₽' },
      }),
    );
    plainTierId = plain.json().id;
    expect(plain.json().subscription).toBe(false);
    // The owner's top-up bonus: it must not reach a subscription's payments.
    await t.app.ctx.settings.set(PaymentSettings, { bonus_rules: [{ from: 100, percent: 10 }] }, { actorId: null });
  });
  afterAll(async () => {
    await t?.close();
    await yoo?.stop();
    await tbank?.stop();
  });

  const db = () => t.handle.db;
  const subscribe = (token: string, id: number, provider: unknown = 'yookassa') =>
    t.app.inject(asUser(token, { method: 'POST', url: `/api/donate/${id}/subscribe`, payload: { provider } as object }));
  const mine = async (token: string) => {
    const res = await t.app.inject(asUser(token, { method: 'GET', url: '/api/user/subscriptions' }));
    expect(res.statusCode).toBe(200);
    return res.json<Sub[]>();
  };
  const row = (id: string) => db().selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const yooNotify = (body: unknown) =>
    t.app.inject({ method: 'POST', url: '/api/payments/yookassa/notify', payload: body as object, remoteAddress: YOOKASSA_IP });
  const tbankNotify = (body: unknown) =>
    t.app.inject({ method: 'POST', url: '/api/payments/tbank/notify', payload: body as object, remoteAddress: '91.194.226.1' });
  const privilegeOf = (userId: number) =>
    db().selectFrom('privileges').selectAll().where('user_id', '=', userId).where('ended_at', 'is', null).executeTakeFirst();
  const ledgerClean = async () => {
    expect(await findLedgerMismatches(db())).toEqual([]);
    expect(await findPaymentLedgerMismatches(db())).toEqual([]);
  };
  /** Charges of saved cards YooKassa was asked for: all, or of one subscription's card. */
  const charges = (methodId?: string | null) =>
    yoo.requests.filter((r) => {
      const m = r.path === '/v3/payments' ? (r.body as { payment_method_id?: string }).payment_method_id : undefined;
      return m !== undefined && (methodId === undefined || m === methodId);
    });
  const balanceOf = async (userId: number) =>
    Number((await db().selectFrom('users').select('balance').where('id', '=', userId).executeTakeFirstOrThrow()).balance);

  /** A player subscribed through YooKassa, first payment paid and notified. */
  async function activeYoo(name: string): Promise<{ token: string; userId: number; sub: Sub }> {
    const userId = await seedUser(t, name);
    const token = await loginAs(t, name);
    const res = await subscribe(token, tierId);
    expect(res.statusCode, res.body).toBe(201);
    const payment = await db().selectFrom('payments').selectAll().where('id', '=', res.json().payment_id).executeTakeFirstOrThrow();
    yoo.pay(payment.provider_payment_id!);
    expect((await yooNotify(yoo.notificationFor(payment.provider_payment_id!))).statusCode).toBe(200);
    const sub = (await mine(token)).find((s) => s.id === res.json().id)!;
    return { token, userId, sub };
  }

  it('refuses a tier not offered by subscription, a provider without recurring payments and guests, beside the field', async () => {
    await seedUser(t, 'Refused');
    const token = await loginAs(t, 'Refused');
    const notOffered = await subscribe(token, plainTierId);
    expect(notOffered.statusCode).toBe(400);
    expect(notOffered.json()).toMatchObject({ code: 'not_offered', field: 'tier_id', error: 'Этот донат не продаётся по подписке' });
    const badProvider = await subscribe(token, tierId, 'yoomoney');
    expect(badProvider.statusCode).toBe(400);
    expect(badProvider.json().field).toBe('provider');
    expect(errorOf(badProvider)).toMatch(/^Выберите способ оплаты, который поддерживает подписку/);
    expect((await subscribe(token, 999_999)).statusCode).toBe(404);
    expect(
      (await t.app.inject({ method: 'POST', url: `/api/donate/${tierId}/subscribe`, payload: { provider: 'yookassa' } })).statusCode,
    ).toBe(401);
    expect(await db().selectFrom('subscriptions').select('id').execute()).toEqual([]);
  });

  it('the owner turns subscription on and off per tier with PUT', async () => {
    const put = (subscription: boolean, months = 1) =>
      t.app.inject(
        asUser(admin, {
          method: 'PUT',
          url: `/api/donate/${plainTierId}`,
          payload: { title: 'Премиум', content: 'Разово', amount: 499, currency: '₽', subscription, subscription_months: months },
        }),
      );
    const on = await put(true, 3);
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json()).toMatchObject({ subscription: true, subscription_months: 3 });
    const bad = await put(true, 13);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().field).toBe('subscription_months');
    expect((await put(false)).json().subscription).toBe(false);
  });

  it('a double click makes one subscription and one payment; YooKassa is asked to save the card', async () => {
    const userId = await seedUser(t, 'Clicker');
    const token = await loginAs(t, 'Clicker');
    const [a, b] = await Promise.all([subscribe(token, tierId), subscribe(token, tierId)]);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(a.json().id).toBe(b.json().id);
    const subs = await db().selectFrom('subscriptions').selectAll().where('user_id', '=', userId).execute();
    expect(subs).toHaveLength(1);
    const payments = await db().selectFrom('payments').selectAll().where('user_id', '=', userId).execute();
    expect(payments).toHaveLength(1);
    const first = yoo.requests.filter((r) => (r.body as { metadata?: { payment_id?: string } }).metadata?.payment_id === payments[0]!.id);
    expect(first).toHaveLength(1);
    expect(first[0]!.body).toMatchObject({ save_payment_method: true, capture: true, amount: { value: '199.00', currency: 'RUB' } });
    const again = await subscribe(token, tierId);
    expect(again.json().confirmation_url).toBe(yoo.payments.get(payments[0]!.provider_payment_id!)!.confirmation!.confirmation_url);
    expect((await mine(token)).map((s) => s.state)).toEqual(['pending']);
  });

  it('the first payment activates it, grants the period once through the ledger and the delivery queue, however often it is notified', async () => {
    const { userId, token, sub } = await activeYoo('FirstPay');
    expect(sub).toMatchObject({ tier_id: tierId, state: 'active', card: '4477', amount: 199 });
    expect(new Date(sub.next_charge_at!).toISOString()).toBe(sub.next_charge_at);
    const privilege = (await privilegeOf(userId))!;
    expect(Number(privilege.expires_at) - Date.now()).toBeGreaterThan(29 * DAY);
    expect(Date.parse(sub.next_charge_at!)).toBe(Number(privilege.expires_at) - DAY);
    const grants = await db().selectFrom('deliveries').selectAll().where('user_id', '=', userId).execute();
    expect(grants.length).toBeGreaterThan(0);
    // The notification again, five times at once: nothing moves.
    const r = await row(sub.id);
    const charge = await db()
      .selectFrom('subscription_charges')
      .selectAll()
      .where('subscription_id', '=', sub.id)
      .executeTakeFirstOrThrow();
    const ypid = (
      await db().selectFrom('payments').select('provider_payment_id').where('id', '=', charge.payment_id).executeTakeFirstOrThrow()
    ).provider_payment_id!;
    await Promise.all(Array.from({ length: 5 }, () => yooNotify(yoo.notificationFor(ypid))));
    expect(Number((await privilegeOf(userId))!.expires_at)).toBe(Number(privilege.expires_at));
    expect((await row(sub.id)).periods).toBe(r.periods);
    const ledger = await db().selectFrom('ledger').select(['reason', 'amount']).where('user_id', '=', userId).orderBy('id').execute();
    expect(ledger.map((l) => [l.reason, Number(l.amount)])).toEqual([
      ['topup', 19900],
      ['purchase', -19900],
    ]);
    expect(await balanceOf(userId)).toBe(0);
    await ledgerClean();
    // A second subscription to the same tier is refused while this one lives.
    const twice = await subscribe(token, tierId);
    expect(twice.statusCode).toBe(409);
    expect(twice.json().code).toBe('already_subscribed');
  });

  it('the clock reminds once before the charge, charges the saved card with a key per period, and a replayed notification changes nothing', async () => {
    const { userId, sub } = await activeYoo('Renewer');
    const due = Date.parse(sub.next_charge_at!);
    const mailBefore = await db().selectFrom('mail_outbox').selectAll().execute();
    expect((await subscriptionPass(t.app.ctx, due - 2 * DAY)).reminded).toBeGreaterThanOrEqual(1);
    await subscriptionPass(t.app.ctx, due - 2 * DAY + 60_000);
    const letters = (await db().selectFrom('mail_outbox').selectAll().execute()).filter(
      (l) => !mailBefore.some((m) => m.id === l.id) && l.to_address === 'renewer@example.com',
    );
    expect(letters).toHaveLength(1);
    expect(letters[0]!.subject).toMatch(/^Скоро списание по подписке VIP/);
    expect(letters[0]!.text_body).toContain('199');
    expect(letters[0]!.text_body).toContain('4477');
    expect(letters[0]!.text_body).toContain('«Отменить подписку»');
    const notice = await db().selectFrom('notices').selectAll().where('user_id', '=', userId).where('kind', '=', 'subscription').execute();
    expect(notice.some((n) => n.title.startsWith('Скоро списание'))).toBe(true);

    const method = (await row(sub.id)).method_id;
    const before = charges(method).length;
    const expires = Number((await privilegeOf(userId))!.expires_at);
    await subscriptionPass(t.app.ctx, due + 1000);
    expect(charges(method).length).toBe(before + 1);
    const call = charges(method).at(-1)!;
    const r = await row(sub.id);
    expect(call.body).toMatchObject({ payment_method_id: r.method_id, amount: { value: '199.00' } });
    const period2 = await db()
      .selectFrom('subscription_charges')
      .selectAll()
      .where('subscription_id', '=', sub.id)
      .where('period', '=', 2)
      .executeTakeFirstOrThrow();
    expect(call.headers['idempotence-key']).toBe(period2.payment_id);
    expect(period2.status).toBe('paid');
    expect(r.periods).toBe(2);
    expect(Number((await privilegeOf(userId))!.expires_at)).toBe(expires + 30 * DAY);
    // The same pass again, and the charge's notification twice and then an old one: nothing moves.
    await subscriptionPass(t.app.ctx, due + 2000);
    expect(charges(method).length).toBe(before + 1);
    const ypid = (
      await db().selectFrom('payments').select('provider_payment_id').where('id', '=', period2.payment_id).executeTakeFirstOrThrow()
    ).provider_payment_id!;
    await yooNotify(yoo.notificationFor(ypid));
    await yooNotify(yoo.notificationFor(ypid));
    expect(Number((await privilegeOf(userId))!.expires_at)).toBe(expires + 30 * DAY);
    expect((await row(sub.id)).periods).toBe(2);
    expect(await balanceOf(userId)).toBe(0);
    await ledgerClean();
  });

  it('a declined charge goes past due, retries on the schedule and ends after the grace period; the privilege runs to its end', async () => {
    const { userId, token, sub } = await activeYoo('Broke');
    const r = await row(sub.id);
    yoo.setCardOutcome(r.method_id!, 'insufficient_funds');
    const due = Date.parse(sub.next_charge_at!);
    const before = charges(r.method_id).length;
    await subscriptionPass(t.app.ctx, due);
    let now = await row(sub.id);
    expect(now.state).toBe('past_due');
    expect(Number(now.next_charge_at)).toBe(due + DAY);
    expect((await mine(token))[0]!.state).toBe('past_due');
    const fail = await db().selectFrom('notices').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(fail.body).toContain('на карте не хватило денег');
    // Nothing before the retry is due.
    await subscriptionPass(t.app.ctx, due + DAY - 1000);
    expect(charges(r.method_id).length).toBe(before + 1);
    yoo.setCardOutcome(r.method_id!, 'card_expired');
    for (const d of [1, 3, 5]) await subscriptionPass(t.app.ctx, due + d * DAY);
    expect(charges(r.method_id).length).toBe(before + 4);
    now = await row(sub.id);
    expect(now.failures).toBe(4);
    expect(now.next_charge_at).toBeNull();
    const privilege = (await privilegeOf(userId))!;
    expect(privilege.ended_at).toBeNull();
    await subscriptionPass(t.app.ctx, due + GRACE_MS);
    now = await row(sub.id);
    expect(now.state).toBe('ended');
    expect(now.live_key).toBeNull();
    expect(charges(r.method_id).length).toBe(before + 4);
    // Each failed payment is canceled, none credited.
    const failed = await db()
      .selectFrom('subscription_charges')
      .selectAll()
      .where('subscription_id', '=', sub.id)
      .where('period', '=', 2)
      .execute();
    expect(failed.map((c) => c.status)).toEqual(['failed', 'failed', 'failed', 'failed']);
    expect(await balanceOf(userId)).toBe(0);
    await ledgerClean();
  });

  it('3-D Secure asked on a recurring charge counts as failed and credits nothing', async () => {
    const { userId, sub } = await activeYoo('Secure');
    const r = await row(sub.id);
    yoo.setCardOutcome(r.method_id!, '3ds');
    await subscriptionPass(t.app.ctx, Date.parse(sub.next_charge_at!));
    expect(charges(r.method_id)).toHaveLength(1);
    expect((await row(sub.id)).state).toBe('past_due');
    const c = await db()
      .selectFrom('subscription_charges')
      .selectAll()
      .where('subscription_id', '=', sub.id)
      .where('period', '=', 2)
      .executeTakeFirstOrThrow();
    expect(c.failure).toBe('банк потребовал подтверждения 3-D Secure');
    expect(await balanceOf(userId)).toBe(0);
  });

  it('cancelling keeps what was paid and is never charged again', async () => {
    const { userId, token, sub } = await activeYoo('Leaver');
    const expires = Number((await privilegeOf(userId))!.expires_at);
    const res = await t.app.inject(asUser(token, { method: 'DELETE', url: `/api/user/subscriptions/${sub.id}` }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ state: 'canceled', next_charge_at: null });
    const method = (await row(sub.id)).method_id;
    for (const d of [0, 30, 60, 365]) await subscriptionPass(t.app.ctx, Date.parse(sub.next_charge_at!) + d * DAY);
    expect(charges(method)).toEqual([]);
    expect(Number((await privilegeOf(userId))!.expires_at)).toBe(expires);
    // Someone else's subscription is not found; a repeat changes nothing.
    await seedUser(t, 'Stranger');
    const stranger = await loginAs(t, 'Stranger');
    expect((await t.app.inject(asUser(stranger, { method: 'DELETE', url: `/api/user/subscriptions/${sub.id}` }))).statusCode).toBe(404);
    expect((await t.app.inject(asUser(token, { method: 'DELETE', url: `/api/user/subscriptions/${sub.id}` }))).json().state).toBe(
      'canceled',
    );
    expect((await t.app.inject(asUser(token, { method: 'DELETE', url: '/api/user/subscriptions/nope' }))).statusCode).toBe(400);
  });

  it('under a race of cancel and charge a canceled subscription is charged at most by a charge that started first, and never after', async () => {
    for (let i = 0; i < 4; i++) {
      const { token, sub } = await activeYoo(`Racer${i}`);
      const due = Date.parse(sub.next_charge_at!);
      const method = (await row(sub.id)).method_id;
      const [cancel] = await Promise.all([
        t.app.inject(asUser(token, { method: 'DELETE', url: `/api/user/subscriptions/${sub.id}` })),
        subscriptionPass(t.app.ctx, due + 1000),
      ]);
      expect(cancel.statusCode).toBe(200);
      const r = await row(sub.id);
      expect(r.state).toBe('canceled');
      expect(charges(method).length).toBeLessThanOrEqual(1);
      const afterRace = charges(method).length;
      for (const d of [1, 30, 60]) await subscriptionPass(t.app.ctx, due + d * DAY);
      expect(charges(method).length).toBe(afterRace);
    }
    await ledgerClean();
  });

  it('T-Bank: Init with Recurrent and CustomerKey, the RebillId from the notification, Charge with it; an expired card goes past due', async () => {
    const userId = await seedUser(t, 'TbankSub');
    const token = await loginAs(t, 'TbankSub');
    const res = await subscribe(token, tierId, 'tbank');
    expect(res.statusCode, res.body).toBe(201);
    const init = tbank.requests.filter((r) => r.path === '/v2/Init').at(-1)!;
    expect(init.body).toMatchObject({ Recurrent: 'Y', CustomerKey: `kubik-user-${userId}`, Amount: 19900 });
    const p = tbank.byOrder(res.json().payment_id);
    await tbank.pay(p, false);
    expect((await tbankNotify(tbank.notificationFor(p))).body).toBe('OK');
    const [sub] = await mine(token);
    expect(sub).toMatchObject({ state: 'active', card: '0777' });
    expect((await row(sub!.id)).method_id).toBe(p.rebillId);
    // The next period: Init, then Charge with the RebillId.
    await subscriptionPass(t.app.ctx, Date.parse(sub!.next_charge_at!));
    const charge = tbank.requests.filter((r) => r.path === '/v2/Charge').at(-1)!;
    expect(charge.body).toMatchObject({ RebillId: p.rebillId });
    expect((await row(sub!.id)).periods).toBe(2);
    // Its notification twice changes nothing.
    const second = tbank.payments.get(Number((charge.body as { PaymentId: string }).PaymentId))!;
    await tbankNotify(tbank.notificationFor(second));
    await tbankNotify(tbank.notificationFor(second));
    expect((await row(sub!.id)).periods).toBe(2);
    tbank.setRebillOutcome(p.rebillId!, 'card_expired');
    const next = (await row(sub!.id)).next_charge_at!;
    await subscriptionPass(t.app.ctx, Number(next));
    const r = await row(sub!.id);
    expect(r.state).toBe('past_due');
    const failed = await db()
      .selectFrom('subscription_charges')
      .selectAll()
      .where('subscription_id', '=', sub!.id)
      .where('period', '=', 3)
      .executeTakeFirstOrThrow();
    expect(failed.failure).toBe('срок действия карты истёк');
    await ledgerClean();
  });

  it('T-Bank: a Charge whose answer is lost is looked up on the next pass, never charged twice', async () => {
    await seedUser(t, 'TbankLost');
    const token = await loginAs(t, 'TbankLost');
    const res = await subscribe(token, tierId, 'tbank');
    expect(res.statusCode, res.body).toBe(201);
    const p = tbank.byOrder(res.json().payment_id);
    await tbank.pay(p, false);
    expect((await tbankNotify(tbank.notificationFor(p))).body).toBe('OK');
    const [sub] = await mine(token);
    const due = Date.parse(sub!.next_charge_at!);
    const calls = (path: string) => tbank.requests.filter((r) => r.path === path).length;
    const inits = calls('/v2/Init');
    const charged = calls('/v2/Charge');
    // The bank charges the card; its answer never reaches the site.
    tbank.loseAnswers.set('Charge', 1);
    const first = await subscriptionPass(t.app.ctx, due + 1000);
    expect(first.charged + first.failed).toBe(0);
    expect(calls('/v2/Charge')).toBe(charged + 1);
    const attempt = await db()
      .selectFrom('subscription_charges')
      .selectAll()
      .where('subscription_id', '=', sub!.id)
      .where('period', '=', 2)
      .executeTakeFirstOrThrow();
    expect(attempt.status).toBe('pending');
    const payment = await db().selectFrom('payments').selectAll().where('id', '=', attempt.payment_id).executeTakeFirstOrThrow();
    expect(tbank.payments.get(Number(payment.provider_payment_id))!.Status).toBe('CONFIRMED');
    // Asked again soon, not a day later, and only asked: no second Init, no second Charge.
    expect(Number((await row(sub!.id)).next_charge_at)).toBe(due + 1000 + UNKNOWN_RETRY_MS);
    expect((await subscriptionPass(t.app.ctx, due + 2000)).charged).toBe(0);
    await subscriptionPass(t.app.ctx, due + 1000 + UNKNOWN_RETRY_MS);
    expect(calls('/v2/Init')).toBe(inits + 1);
    expect(calls('/v2/Charge')).toBe(charged + 1);
    expect(tbank.requests.filter((r) => r.path === '/v2/GetState').at(-1)!.body).toMatchObject({ PaymentId: payment.provider_payment_id });
    const r = await row(sub!.id);
    expect(r.periods).toBe(2);
    expect(r.state).toBe('active');
    expect((await db().selectFrom('payments').select('status').where('id', '=', attempt.payment_id).executeTakeFirstOrThrow()).status).toBe(
      'succeeded',
    );
    await ledgerClean();
  });

  it('T-Bank: an Init whose answer is lost makes a new payment on the retry, charged once', async () => {
    await seedUser(t, 'TbankInitLost');
    const token = await loginAs(t, 'TbankInitLost');
    const res = await subscribe(token, tierId, 'tbank');
    const p = tbank.byOrder(res.json().payment_id);
    await tbank.pay(p, false);
    await tbankNotify(tbank.notificationFor(p));
    const [sub] = await mine(token);
    const due = Date.parse(sub!.next_charge_at!);
    const charged = tbank.requests.filter((r) => r.path === '/v2/Charge').length;
    tbank.loseAnswers.set('Init', 1);
    await subscriptionPass(t.app.ctx, due + 1000);
    expect(tbank.requests.filter((r) => r.path === '/v2/Charge').length).toBe(charged);
    await subscriptionPass(t.app.ctx, due + 1000 + UNKNOWN_RETRY_MS);
    expect(tbank.requests.filter((r) => r.path === '/v2/Charge').length).toBe(charged + 1);
    expect((await row(sub!.id)).periods).toBe(2);
    const orderId = (
      await db()
        .selectFrom('subscription_charges')
        .select('payment_id')
        .where('subscription_id', '=', sub!.id)
        .where('period', '=', 2)
        .executeTakeFirstOrThrow()
    ).payment_id;
    // The bank holds two payments of that order: the lost NEW one (it expires) and the charged one.
    const atBank = [...tbank.payments.values()].filter((x) => x.OrderId === orderId);
    expect(atBank.map((x) => x.Status).sort()).toEqual(['CONFIRMED', 'NEW']);
    await ledgerClean();
  });

  it('the owner sees subscriptions, revenue per month and churn', async () => {
    const res = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/admin/subscriptions' }));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{ items: { state: string }[]; months: { revenue: number; churned: number }[]; active: number }>();
    expect(body.items.length).toBeGreaterThan(3);
    expect(body.months).toHaveLength(12);
    expect(body.months.at(-1)!.revenue).toBeGreaterThanOrEqual(199 * 3);
    expect(body.months.at(-1)!.churned).toBeGreaterThanOrEqual(2);
    const player = await loginAs(t, 'Leaver');
    expect((await t.app.inject(asUser(player, { method: 'GET', url: '/api/admin/subscriptions' }))).statusCode).toBe(403);
  });
  it('once the owner publishes the offer and the policy, subscribing asks the consents a top-up asks, and stores them', async () => {
    for (const kind of ['offer', 'privacy']) {
      const doc = await t.app.inject(asUser(admin, { method: 'GET', url: `/api/admin/legal/${kind}` }));
      const put = await t.app.inject(asUser(admin, { method: 'PUT', url: `/api/admin/legal/${kind}`, payload: doc.json().template }));
      expect(put.statusCode, put.body).toBe(200);
    }
    const userId = await seedUser(t, 'Consenter');
    const token = await loginAs(t, 'Consenter');
    const bare = await subscribe(token, tierId);
    expect(bare.statusCode).toBe(400);
    expect(bare.json()).toMatchObject({ code: 'consent_required', field: 'consents' });
    expect(await db().selectFrom('subscriptions').selectAll().where('user_id', '=', userId).execute()).toHaveLength(0);
    const ok = await t.app.inject(
      asUser(token, {
        method: 'POST',
        url: `/api/donate/${tierId}/subscribe`,
        payload: { provider: 'yookassa', consents: ['offer', 'privacy', 'age'] },
      }),
    );
    expect(ok.statusCode, ok.body).toBe(201);
    const kept = await db().selectFrom('legal_consents').select('kind').where('user_id', '=', userId).execute();
    expect(kept.map((r) => r.kind).sort()).toEqual(['age', 'offer', 'privacy']);
  });
});
