import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTBank } from '../../../../../testing/payments/tbank-server.ts';
import { FakeYooKassa } from '../../../../../testing/payments/yookassa-server.ts';
import { paymentsConfig } from '../../test/payments.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { addServer } from '../shop/shop.test-helpers.ts';
import { reconcile } from './guest-orders.service.ts';

const YOOKASSA_IP = '185.71.76.17';
const DAY = 86_400_000;

describe.each(dbKinds)('guest orders of a donate tier on %s', (kind) => {
  let t: TestApp;
  let yoo: FakeYooKassa;
  let tbank: FakeTBank;
  let admin: string;
  let vipId: number;
  let premiumId: number;

  beforeAll(async () => {
    yoo = await new FakeYooKassa().start();
    tbank = await new FakeTBank().start();
    // A shop on 54-ФЗ receipts through YooKassa: a payment without a valid receipt is refused.
    const payments = paymentsConfig(yoo, tbank);
    payments.yookassa!.receipts = true;
    yoo.receiptsRequired = true;
    payments.tbank!.receipts = true;
    tbank.receiptsRequired = true;
    t = await createTestApp(kind, { workers: false, payments });
    await seedUser(t, 'TierOwner', { admin: true });
    admin = await loginAs(t, 'TierOwner');
    const serverId = await addServer(t, { rcon_host: '127.0.0.1', rcon_port: 1, rcon_password: 'secret' });
    const add = async (title: string, amount: number) => {
      const res = await t.app.inject(
        asUser(admin, {
          method: 'POST',
          url: '/api/donate/add',
          payload: {
            title,
            content: 'Привилегия',
            amount,
            currency: '₽',
            server_ids: [serverId],
            grant_commands: [`lp user {player} parent add ${title.toLowerCase()}`],
            revoke_commands: [`lp user {player} parent remove ${title.toLowerCase()}`],
            periods: [{ months: 1 }, { months: 3, discount: 10 }],
          },
        }),
      );
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as number;
    };
    vipId = await add('VIP', 100);
    premiumId = await add('Premium', 300);
  });
  afterAll(async () => {
    await t?.close();
    await yoo?.stop();
    await tbank?.stop();
  });

  const order = (tierId: number, payload: object, ip = '198.51.100.9') =>
    t.app.inject({ method: 'POST', url: `/api/donate/${tierId}/guest-orders`, payload, remoteAddress: ip });
  const good = { nickname: 'TierKid', email: 'parent@example.com', months: 3, provider: 'yookassa' };
  const db = () => t.handle.db;
  const payYoo = async (providerPaymentId: string, times: number) => {
    yoo.pay(providerPaymentId);
    const note = yoo.notificationFor(providerPaymentId);
    const answers = await Promise.all(
      Array.from({ length: times }, () =>
        t.app.inject({ method: 'POST', url: '/api/payments/yookassa/notify', payload: note as object, remoteAddress: YOOKASSA_IP }),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array.from({ length: times }, () => 200));
  };
  const rowOf = (id: string) => db().selectFrom('guest_orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const guestDeliveries = () => db().selectFrom('deliveries').selectAll().where('source', '=', 'guest').orderBy('id').execute();

  it('is refused while the owner has not turned guest purchases on', async () => {
    const res = await order(vipId, good);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      code: 'guest_purchases_off',
      error: 'Покупки без аккаунта выключены: войдите в аккаунт, чтобы купить',
    });
    const on = await t.app.inject(asUser(admin, { method: 'PUT', url: '/api/admin/settings', payload: { guest_purchases: true } }));
    expect(on.statusCode).toBe(200);
  });

  it('refuses a nickname against the game rules, an e-mail that is not one, a period not sold and a provider, in Russian beside the field', async () => {
    for (const [patch, field, text] of [
      [{ nickname: 'ab' }, 'nickname', /^Ник: от 3 до 16 символов/],
      [{ nickname: 'Вася Пупкин' }, 'nickname', /^Ник: от 3 до 16 символов/],
      [{ email: 'not-an-email' }, 'email', /^Введите корректный адрес почты: на него придёт чек/],
      [{ months: 0 }, 'months', /^Выберите срок покупки/],
      [{ months: 6 }, 'months', /^На 6 мес\. эта привилегия не продаётся/],
      [{ provider: 'yoomoney' }, 'provider', /^Без аккаунта можно оплатить через ЮKassa или Т-Банк/],
    ] as const) {
      const res = await order(vipId, { ...good, ...patch });
      expect(res.statusCode, JSON.stringify(patch)).toBe(400);
      expect(res.json().field, JSON.stringify(patch)).toBe(field);
      expect(errorOf(res)).toMatch(text);
    }
    expect((await order(999_999, good)).statusCode).toBe(404);
    expect(await db().selectFrom('guest_orders').select('id').execute()).toEqual([]);
  });

  it('pays the period price straight to the provider with a full_payment receipt; paid three times, the nickname gets one grant and no balance moves', async () => {
    const res = await order(vipId, good);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    // 3 months of 100 ₽ less 10 %.
    expect(body).toMatchObject({
      kind: 'tier',
      nickname: 'TierKid',
      item: 'VIP',
      quantity: 3,
      amount: 270,
      status: 'pending',
      known: false,
    });
    const call = yoo.requests.at(-1)!;
    expect(call.headers['idempotence-key']).toBe(body.id);
    expect(call.body).toMatchObject({
      amount: { value: '270.00' },
      receipt: {
        customer: { email: 'parent@example.com' },
        items: [{ amount: { value: '270.00' }, payment_mode: 'full_payment', description: 'Привилегия VIP на 3 мес. для TierKid' }],
      },
    });
    const row = await rowOf(body.id);
    await payYoo(row.provider_payment_id!, 3);
    const paid = await t.app.inject({ method: 'GET', url: `/api/shop/guest-orders/${body.id}` });
    expect(paid.json()).toMatchObject({ status: 'paid', kind: 'tier', confirmation_url: null });
    const after = await rowOf(body.id);
    expect(after).toMatchObject({ fulfilled: 1, privilege_id: null, ended_at: null });
    expect(Number(after.expires_at) - Number(after.paid_at)).toBe(90 * DAY);
    const grants = await guestDeliveries();
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({ user_id: null, player_name: 'TierKid', state: 'pending' });
    expect(JSON.parse(grants[0]!.commands!)).toEqual(['lp user {player} parent add vip']);
    expect(JSON.parse(grants[0]!.params)).toMatchObject({ tier: 'VIP', days: 90 });
    // Nothing of it is a top-up, a balance or anyone's privilege yet.
    expect(await db().selectFrom('payments').select('id').execute()).toEqual([]);
    expect(await db().selectFrom('ledger').select('id').execute()).toEqual([]);
    expect(await db().selectFrom('privileges').select('id').execute()).toEqual([]);
    expect(await findLedgerMismatches(db())).toEqual([]);
    // A late re-read changes nothing either.
    await reconcile(t.app.ctx);
    expect(await guestDeliveries()).toHaveLength(1);
  });

  it('refuses a second tier for a nickname without an account that holds one, beside the nickname', async () => {
    const res = await order(premiumId, { ...good, months: 1 });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'nickname_holds', field: 'nickname' });
    expect(errorOf(res)).toMatch(/^Для этого ника уже оплачена привилегия VIP/);
  });

  it('an account registered later with the nickname takes the privilege to the same end, the order and its grant', async () => {
    const held = await db().selectFrom('guest_orders').selectAll().where('nickname_lower', '=', 'tierkid').executeTakeFirstOrThrow();
    const reg = await t.app.inject({
      method: 'POST',
      url: '/api/user/register',
      payload: { username: 'tierkid', email: 'tierkid@example.com', password: 'a long password 123' },
    });
    expect(reg.statusCode, reg.body).toBeLessThan(300);
    const user = await db().selectFrom('users').select('id').where('username_lower', '=', 'tierkid').executeTakeFirstOrThrow();
    const privileges = await db().selectFrom('privileges').selectAll().where('user_id', '=', user.id).execute();
    expect(privileges).toHaveLength(1);
    expect(privileges[0]).toMatchObject({ tier_id: vipId, tier_title: 'VIP', ended_at: null });
    expect(Number(privileges[0]!.expires_at)).toBe(Number(held.expires_at));
    const o = await rowOf(held.id);
    expect(o).toMatchObject({ user_id: user.id, privilege_id: privileges[0]!.id });
    expect((await guestDeliveries())[0]).toMatchObject({ user_id: user.id, player_name: null });
    // Its end is the privileges' expiry's now: the guest pass leaves it alone.
    await reconcile(t.app.ctx, Number(held.expires_at) + DAY);
    expect(await guestDeliveries()).toHaveLength(1);
    expect((await rowOf(held.id)).ended_at).toBeNull();
  });

  it('for a nickname with an account, the paid tier is placed as a purchase of it is: extended from its end, its grant queued once', async () => {
    const user = await db().selectFrom('users').select('id').where('username_lower', '=', 'tierkid').executeTakeFirstOrThrow();
    const before = await db().selectFrom('privileges').selectAll().where('user_id', '=', user.id).executeTakeFirstOrThrow();
    const res = await order(vipId, { ...good, nickname: 'TIERKID', months: 1, provider: 'tbank' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ nickname: 'tierkid', known: true, amount: 100 });
    const p = tbank.byOrder(res.json().id);
    expect(p.receipt).toMatchObject({
      Email: 'parent@example.com',
      Items: [{ Name: 'Привилегия VIP на 1 мес. для tierkid', Amount: 10_000, PaymentMethod: 'full_payment' }],
    });
    await tbank.pay(p, false);
    const note = tbank.notificationFor(p);
    for (let i = 0; i < 2; i++)
      expect(
        (await t.app.inject({ method: 'POST', url: '/api/payments/tbank/notify', payload: note, remoteAddress: '91.194.226.1' })).body,
      ).toBe('OK');
    const after = await db().selectFrom('privileges').selectAll().where('user_id', '=', user.id).execute();
    expect(after).toHaveLength(1);
    expect(Number(after[0]!.expires_at)).toBe(Number(before.expires_at) + 30 * DAY);
    const purchases = await db().selectFrom('privilege_purchases').selectAll().where('user_id', '=', user.id).orderBy('id').execute();
    expect(purchases.map((r) => [Number(r.months), Number(r.total), Number(r.credit)])).toEqual([
      [3, 27_000, 0],
      [1, 10_000, 0],
    ]);
    const grants = await db().selectFrom('deliveries').selectAll().where('source', '=', 'privilege_grant').execute();
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({ user_id: user.id, source_id: before.id });
    expect((await rowOf(res.json().id)).privilege_id).toBe(before.id);
    expect(await db().selectFrom('ledger').select('id').execute()).toEqual([]);
  });

  it("a tier below the one the nickname's account runs is refused beside the nickname", async () => {
    await seedUser(t, 'BigSpender');
    const up = await order(premiumId, { ...good, nickname: 'BigSpender', months: 1 });
    expect(up.statusCode, up.body).toBe(201);
    await payYoo((await rowOf(up.json().id)).provider_payment_id!, 1);
    const down = await order(vipId, { ...good, nickname: 'bigspender', months: 1 });
    expect(down.statusCode).toBe(409);
    expect(down.json()).toMatchObject({ code: 'downgrade', field: 'nickname' });
    expect(errorOf(down)).toMatch(/^У игрока BigSpender действует более высокая привилегия/);
  });

  it('a tier the nickname holds without an account ends at its end: its revoke commands queued once', async () => {
    const res = await order(premiumId, { ...good, nickname: 'Wanderer', months: 1 });
    expect(res.statusCode, res.body).toBe(201);
    await payYoo((await rowOf(res.json().id)).provider_payment_id!, 1);
    const held = await rowOf(res.json().id);
    await reconcile(t.app.ctx, Number(held.expires_at) - 1000);
    expect((await rowOf(held.id)).ended_at).toBeNull();
    await Promise.all([reconcile(t.app.ctx, Number(held.expires_at) + 1000), reconcile(t.app.ctx, Number(held.expires_at) + 2000)]);
    expect((await rowOf(held.id)).ended_at).not.toBeNull();
    const mine = (await guestDeliveries()).filter((d) => d.player_name === 'Wanderer');
    expect(mine.map((d) => JSON.parse(d.commands!)[0])).toEqual([
      'lp user {player} parent add premium',
      'lp user {player} parent remove premium',
    ]);
  });

  it('two orders for one nickname without an account paid at once: one holds the tier, the other is left for the owner to refund', async () => {
    const ids: string[] = [];
    for (const tierId of [vipId, premiumId]) {
      const res = await order(tierId, { ...good, nickname: 'Twins', months: 1 }, '198.51.100.10');
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().id);
    }
    const rows = await Promise.all(ids.map(rowOf));
    for (const r of rows) yoo.pay(r.provider_payment_id!);
    await Promise.all(
      rows.map((r) =>
        t.app.inject({
          method: 'POST',
          url: '/api/payments/yookassa/notify',
          payload: yoo.notificationFor(r.provider_payment_id!) as object,
          remoteAddress: YOOKASSA_IP,
        }),
      ),
    );
    // A transaction that lost the race is re-read by the next pass.
    await reconcile(t.app.ctx);
    const after = await Promise.all(ids.map(rowOf));
    expect(after.map((r) => r.status)).toEqual(['paid', 'paid']);
    expect(after.map((r) => Number(r.fulfilled)).sort()).toEqual([0, 1]);
    expect((await guestDeliveries()).filter((d) => d.player_name === 'Twins')).toHaveLength(1);
  });

  it('one address is rate-limited', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 12; i++)
      codes.push((await order(vipId, { ...good, nickname: `Someone${i}`, months: 1 }, '203.0.113.77')).statusCode);
    expect(codes.filter((c) => c === 429).length).toBeGreaterThan(0);
    expect(codes.filter((c) => c === 201).length).toBeLessThanOrEqual(10);
  });
});
