import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTBank } from '../../../../../testing/payments/tbank-server.ts';
import { FakeYooKassa } from '../../../../../testing/payments/yookassa-server.ts';
import { paymentsConfig } from '../../test/payments.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { seenInGame } from '../users/users.ports.ts';

const YOOKASSA_IP = '185.71.76.17';

describe.each(dbKinds)('guest orders on %s', (kind) => {
  let t: TestApp;
  let yoo: FakeYooKassa;
  let tbank: FakeTBank;
  let admin: string;
  let itemId: number;

  beforeAll(async () => {
    yoo = await new FakeYooKassa().start();
    tbank = await new FakeTBank().start();
    t = await createTestApp(kind, { workers: false, payments: paymentsConfig(yoo, tbank) });
    await seedUser(t, 'GuestOwner', { admin: true });
    admin = await loginAs(t, 'GuestOwner');
    const item = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/shop/admin/create',
        payload: { name: 'Алмаз', price: 25, count: 10, icon: 'https://example.com/icons/diamond.png' },
      }),
    );
    expect(item.statusCode, item.body).toBe(201);
    itemId = item.json().id;
  });
  afterAll(async () => {
    await t?.close();
    await yoo?.stop();
    await tbank?.stop();
  });

  const order = (payload: object, ip = '198.51.100.7') =>
    t.app.inject({ method: 'POST', url: '/api/shop/guest-orders', payload, remoteAddress: ip });
  const good = { nickname: 'NewKid', email: 'parent@example.com', shop_id: 0, quantity: 2, provider: 'yookassa' };
  const db = () => t.handle.db;

  it('is off until the owner turns it on', async () => {
    const res = await order({ ...good, shop_id: itemId });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      code: 'guest_purchases_off',
      error: 'Покупки без аккаунта выключены: войдите в аккаунт, чтобы купить',
    });
    const on = await t.app.inject(asUser(admin, { method: 'PUT', url: '/api/admin/settings', payload: { guest_purchases: true } }));
    expect(on.statusCode).toBe(200);
  });

  it('refuses a nickname against the game rules, an e-mail that is not one and a provider without re-reading, beside the field', async () => {
    for (const [patch, field, text] of [
      [{ nickname: 'ab' }, 'nickname', /^Ник: от 3 до 16 символов/],
      [{ nickname: 'Вася Пупкин' }, 'nickname', /^Ник: от 3 до 16 символов/],
      [{ email: 'not-an-email' }, 'email', /^Введите корректный адрес почты: на него придёт чек/],
      [{ provider: 'yoomoney' }, 'provider', /^Без аккаунта можно оплатить через ЮKassa или Т-Банк/],
      [{ quantity: 0 }, 'quantity', /^Количество: от 1/],
    ] as const) {
      const res = await order({ ...good, shop_id: itemId, ...patch });
      expect(res.statusCode, JSON.stringify(patch)).toBe(400);
      expect(res.json().field).toBe(field);
      expect(errorOf(res)).toMatch(text);
    }
    const missing = await order({ ...good, shop_id: 999_999 });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().field).toBe('shop_id');
    expect(await db().selectFrom('guest_orders').select('id').execute()).toEqual([]);
  });

  it('pays the provider directly, credits no balance, and queues the delivery for the nickname once however often it is notified', async () => {
    const res = await order({ ...good, shop_id: itemId });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ nickname: 'NewKid', item: 'Алмаз', quantity: 2, amount: 50, status: 'pending', known: false });
    expect(body.confirmation_url).toMatch(/^http/);
    // Nothing of it is a top-up: no payment row, no ledger row.
    expect(await db().selectFrom('payments').select('id').execute()).toEqual([]);
    const row = await db().selectFrom('guest_orders').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    const call = yoo.requests.at(-1)!;
    expect(call.headers['idempotence-key']).toBe(body.id);
    expect(call.body).toMatchObject({ amount: { value: '50.00' }, metadata: { payment_id: body.id } });
    yoo.pay(row.provider_payment_id!);
    const note = yoo.notificationFor(row.provider_payment_id!);
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        t.app.inject({ method: 'POST', url: '/api/payments/yookassa/notify', payload: note as object, remoteAddress: YOOKASSA_IP }),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
    const paid = await t.app.inject({ method: 'GET', url: `/api/shop/guest-orders/${body.id}` });
    expect(paid.json()).toMatchObject({ status: 'paid', confirmation_url: null });
    const deliveries = await db().selectFrom('deliveries').selectAll().where('source', '=', 'guest').execute();
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ user_id: null, player_name: 'NewKid', state: 'pending' });
    expect(JSON.parse(deliveries[0]!.params)).toMatchObject({ item: expect.any(String), quantity: 2 });
    expect(Number((await db().selectFrom('shop_items').select('count').where('id', '=', itemId).executeTakeFirstOrThrow()).count)).toBe(8);
    expect(await db().selectFrom('ledger').select('id').execute()).toEqual([]);
    expect(await findLedgerMismatches(db())).toEqual([]);
  });

  it('an account registered later with the nickname takes the order and its waiting delivery', async () => {
    const reg = await t.app.inject({
      method: 'POST',
      url: '/api/user/register',
      payload: { username: 'newkid', email: 'newkid@example.com', password: 'a long password 123' },
    });
    expect(reg.statusCode, reg.body).toBeLessThan(300);
    const user = await db().selectFrom('users').select('id').where('username_lower', '=', 'newkid').executeTakeFirstOrThrow();
    const o = await db().selectFrom('guest_orders').selectAll().executeTakeFirstOrThrow();
    expect(o.user_id).toBe(user.id);
    const d = await db().selectFrom('deliveries').selectAll().where('source', '=', 'guest').executeTakeFirstOrThrow();
    expect(d).toMatchObject({ user_id: user.id, player_name: null });
  });

  it('an order for a known account says so; a canceled payment queues nothing; one address is rate-limited', async () => {
    await seedUser(t, 'Steve');
    const res = await order({ ...good, nickname: 'steve', shop_id: itemId, quantity: 1, provider: 'tbank' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ nickname: 'Steve', known: true, amount: 25 });
    const p = tbank.byOrder(res.json().id);
    await tbank.reject(p, false);
    const note = tbank.notificationFor(p);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/payments/tbank/notify', payload: note, remoteAddress: '91.194.226.1' })).body,
    ).toBe('OK');
    expect((await t.app.inject({ method: 'GET', url: `/api/shop/guest-orders/${res.json().id}` })).json().status).toBe('canceled');
    expect(await db().selectFrom('deliveries').select('id').where('source', '=', 'guest').execute()).toHaveLength(1);
    const codes: number[] = [];
    for (let i = 0; i < 12; i++) codes.push((await order({ ...good, shop_id: itemId, quantity: 1 }, '203.0.113.50')).statusCode);
    expect(codes.filter((c) => c === 429).length).toBeGreaterThan(0);
    expect(codes.filter((c) => c === 201).length).toBeLessThanOrEqual(10);
  });

  it('once the owner publishes the offer and the policy, a guest ticks them and the age mark on every order; each is kept with the order', async () => {
    for (const kind of ['offer', 'privacy']) {
      const doc = await t.app.inject(asUser(admin, { method: 'GET', url: `/api/admin/legal/${kind}` }));
      const put = await t.app.inject(asUser(admin, { method: 'PUT', url: `/api/admin/legal/${kind}`, payload: doc.json().template }));
      expect(put.statusCode, put.body).toBe(200);
    }
    const before = (await db().selectFrom('guest_orders').select('id').execute()).length;
    for (const consents of [undefined, ['offer', 'privacy']]) {
      const bare = await order({ ...good, shop_id: itemId, quantity: 1, ...(consents && { consents }) }, '198.51.100.90');
      expect(bare.statusCode).toBe(400);
      expect(bare.json()).toMatchObject({ code: 'consent_required', field: 'consents' });
    }
    expect((await db().selectFrom('guest_orders').select('id').execute()).length).toBe(before);
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/shop/guest-orders',
      payload: { ...good, nickname: 'ForMyKid', shop_id: itemId, quantity: 1, consents: ['offer', 'privacy', 'age'] },
      remoteAddress: '198.51.100.90',
      headers: { 'user-agent': 'Mozilla/5.0 (Linux; Android 14) Parent' },
    });
    expect(ok.statusCode, ok.body).toBe(201);
    const kept = await db().selectFrom('legal_consents').selectAll().where('guest_order_id', '=', ok.json().id).orderBy('kind').execute();
    expect(kept.map((c) => [c.kind, c.user_id, c.guest_nickname, c.source, c.ip, c.user_agent])).toEqual(
      ['age', 'offer', 'privacy'].map((k) => [k, null, 'ForMyKid', 'guest', '198.51.100.90', 'Mozilla/5.0 (Linux; Android 14) Parent']),
    );
    // The owner sees them beside the account holders' consents.
    const list = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/admin/legal/consents' }));
    expect(list.json().items.find((c: { guest_order_id: string | null }) => c.guest_order_id === ok.json().id)).toMatchObject({
      user_id: null,
      guest_nickname: 'ForMyKid',
    });
  });

  it('a nickname a game server reported playing is known without an account; one nobody reported is not', async () => {
    await seenInGame.run(db(), ['Wanderer_7'], Date.now());
    const seen = await order(
      { ...good, nickname: 'wanderer_7', shop_id: itemId, quantity: 1, consents: ['offer', 'privacy', 'age'] },
      '198.51.100.91',
    );
    expect(seen.statusCode, seen.body).toBe(201);
    expect(seen.json()).toMatchObject({ nickname: 'wanderer_7', known: true });
    const stranger = await order(
      { ...good, nickname: 'NoSuchKid', shop_id: itemId, quantity: 1, consents: ['offer', 'privacy', 'age'] },
      '198.51.100.91',
    );
    expect(stranger.json()).toMatchObject({ known: false });
    expect(await db().selectFrom('game_names').selectAll().where('name_lower', '=', 'wanderer_7').execute()).toMatchObject([
      { name: 'Wanderer_7' },
    ]);
  });
});
