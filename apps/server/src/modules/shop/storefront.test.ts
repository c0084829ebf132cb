import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { findShopLedgerMismatches } from './shop.service.ts';
import { addServer, balanceOf, closeTestApp, countRows, quickPlayer } from './shop.test-helpers.ts';

// Issue 23: the storefront — public browsing, the cart, promo codes, gifts, sales and limits.

const ICON = 'https://example.com/icons/diamond.png';

describe.each(dbKinds)('storefront on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let player: string;
  let playerId: number;
  let seq = 0;

  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
    await seedUser(t, 'Admin', { admin: true });
    playerId = await seedUser(t, 'Steve', { balanceKopecks: 100_000 });
    admin = await loginAs(t, 'Admin');
    player = await loginAs(t, 'Steve');
    await addServer(t, { name: 'Выживание', rcon_port: 25575, rcon_password: 'pw' });
  });
  afterAll(() => closeTestApp(t));

  const post = (url: string, payload: object, token: string | null = player, key?: string) =>
    t.app.inject(asUser(token, { method: 'POST', url, payload, headers: key ? { 'idempotency-key': key } : {} }));
  const get = (url: string, token: string | null = null) => t.app.inject(asUser(token, { method: 'GET', url }));
  const newItem = async (fields: object = {}) => {
    const res = await post('/api/shop/admin/create', { name: `Товар ${++seq}`, price: 10, count: 100, icon: ICON, ...fields }, admin);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: number }>().id;
  };
  const newPromo = async (fields: object) => {
    const res = await post('/api/admin/promo-codes', { code: `CODE${++seq}`, kind: 'percent', value: 10, ...fields }, admin);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: number; code: string }>();
  };
  const stock = async (id: number) =>
    Number((await t.handle.db.selectFrom('shop_items').select('count').where('id', '=', id).executeTakeFirstOrThrow()).count);
  const uses = async (id: number) =>
    Number((await t.handle.db.selectFrom('promo_codes').select('uses').where('id', '=', id).executeTakeFirstOrThrow()).uses);
  /** Everything a refused purchase must leave as it was. */
  const snapshot = async (items: number[]) => ({
    balance: await balanceOf(t, playerId),
    stock: await Promise.all(items.map(stock)),
    orders: await countRows(t, 'shop_orders'),
    deliveries: await countRows(t, 'deliveries'),
    ledger: await countRows(t, 'ledger'),
  });
  const ledgerClean = async () => {
    expect(await findLedgerMismatches(t.handle.db)).toEqual([]);
    expect(await findShopLedgerMismatches(t.handle.db)).toEqual([]);
  };

  it('lets guests browse: categories, search, unlimited stock and sales', async () => {
    const sword = await newItem({ name: 'Меч из незерита', category: 'Оружие', description: 'Острый', count: null, pieces: 1 });
    const bread = await newItem({
      name: 'Хлеб',
      category: 'Еда',
      price: 99,
      pieces: 16,
      sale_price: 49.5,
      sale_ends_at: Date.now() + 3_600_000,
    });
    const cats = await get('/api/shop/categories');
    expect(cats.statusCode).toBe(200);
    expect(cats.json<{ name: string }[]>().map((c) => c.name)).toEqual(expect.arrayContaining(['Оружие', 'Еда']));

    const weapons = await get('/api/shop/all?category=%D0%BE%D1%80%D1%83%D0%B6%D0%B8%D0%B5');
    expect(weapons.json<{ id: number }[]>().map((i) => i.id)).toEqual([sword]);
    const found = await get(`/api/shop/all?q=${encodeURIComponent('незерит')}`);
    expect(found.json()).toEqual([expect.objectContaining({ id: sword, count: null, old_price: null, server_name: 'Выживание' })]);

    const all = await get('/api/shop/all');
    expect(all.json<{ id: number }[]>().find((i) => i.id === bread)).toMatchObject({
      price: 49.5,
      old_price: 99,
      pieces: 16,
      sale_ends_at: expect.any(Number),
    });

    // A category sale: 20 % off everything in «Еда» that has no sale of its own.
    const apple = await newItem({ name: 'Яблоко', category: 'Еда', price: 10 });
    const list = await get('/api/shop/admin/categories', admin);
    const food = list.json<{ categories: { id: number; name: string }[] }>().categories.find((c) => c.name === 'Еда')!;
    const saved = await t.app.inject(
      asUser(admin, {
        method: 'PUT',
        url: `/api/shop/admin/categories/${food.id}`,
        payload: { name: 'Еда', sale_percent: 20, sale_ends_at: null },
      }),
    );
    expect(saved.statusCode, saved.body).toBe(200);
    const after = (await get('/api/shop/all')).json<{ id: number; price: number; old_price: number | null }[]>();
    expect(after.find((i) => i.id === apple)).toMatchObject({ price: 8, old_price: 10 });
    expect(after.find((i) => i.id === bread)).toMatchObject({ price: 49.5, old_price: 99 });
    await t.app.inject(
      asUser(admin, { method: 'PUT', url: `/api/shop/admin/categories/${food.id}`, payload: { name: 'Еда', sale_percent: null } }),
    );

    // Unlimited stock stays as it is after a purchase.
    const bought = await post('/api/shop/buy', { shop_id: sword, quantity: 3 });
    expect(bought.statusCode, bought.body).toBe(200);
    expect((await get('/api/shop/all?q=незерит')).json<{ count: number | null }[]>()[0]!.count).toBeNull();
  });

  it('checks out a cart with a promo code in one transaction, one ledger row per order, replaying a retry', async () => {
    const a = await newItem({ price: 10 });
    const b = await newItem({ price: 30, count: 5 });
    const promo = await newPromo({ kind: 'percent', value: 10 });
    const before = await balanceOf(t, playerId);
    const body = {
      lines: [
        { shop_id: a, quantity: 2 },
        { shop_id: b, quantity: 1 },
      ],
      promo_code: promo.code.toLowerCase(),
    };
    const res = await post('/api/shop/checkout', body, player, 'cart-key-0001');
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json<{ new_balance: number; total: number; discount: number; order_ids: number[] }>();
    expect(answer).toMatchObject({ total: 45, discount: 5 });
    expect(answer.order_ids).toHaveLength(2);
    expect(await balanceOf(t, playerId)).toBe(before - 4500);
    expect([await stock(a), await stock(b)]).toEqual([98, 4]);
    expect(await uses(promo.id)).toBe(1);
    await ledgerClean();

    const again = await post('/api/shop/checkout', body, player, 'cart-key-0001');
    expect(again.json()).toEqual(answer);
    expect(await balanceOf(t, playerId)).toBe(before - 4500);

    // The same player may use it once (per_player: 1).
    const twice = await post('/api/shop/checkout', { lines: [{ shop_id: a, quantity: 1 }], promo_code: promo.code });
    expect(twice.statusCode).toBe(409);
    expect(twice.json()).toMatchObject({ code: 'promo_used', error: 'Вы уже использовали этот промокод' });

    const list = await get('/api/admin/promo-codes', admin);
    expect(
      list.json<{ id: number; uses: number; revenue: number; discount_total: number }[]>().find((p) => p.id === promo.id),
    ).toMatchObject({
      uses: 1,
      revenue: 45,
      discount_total: 5,
    });
  });

  it('refuses a cart as a whole — funds, stock, limit or promo — and changes nothing', async () => {
    const a = await newItem({ price: 10, count: 10 });
    const b = await newItem({ price: 10, count: 1 });
    const c = await newItem({ price: 10, limit_per_player: 1, limit_period: 'week' });
    const dear = await newItem({ price: 100_000 });
    const ended = await newPromo({ ends_at: Date.now() - 1000, starts_at: Date.now() - 2000 });
    const cases: [object, number, string][] = [
      [
        {
          lines: [
            { shop_id: a, quantity: 1 },
            { shop_id: dear, quantity: 1 },
          ],
        },
        400,
        'insufficient_funds',
      ],
      [
        {
          lines: [
            { shop_id: a, quantity: 1 },
            { shop_id: b, quantity: 2 },
          ],
        },
        409,
        'not_enough_stock',
      ],
      [
        {
          lines: [
            { shop_id: a, quantity: 1 },
            { shop_id: c, quantity: 2 },
          ],
        },
        409,
        'limit_reached',
      ],
      [{ lines: [{ shop_id: a, quantity: 1 }], promo_code: 'NO-SUCH-CODE' }, 404, 'promo_not_found'],
      [{ lines: [{ shop_id: a, quantity: 1 }], promo_code: ended.code }, 409, 'promo_not_active'],
      [
        {
          lines: [
            { shop_id: a, quantity: 1 },
            { shop_id: 999_999, quantity: 1 },
          ],
        },
        404,
        'not_found',
      ],
      [{ lines: [] }, 400, 'invalid'],
      [
        {
          lines: [
            { shop_id: a, quantity: 1 },
            { shop_id: a, quantity: 1 },
          ],
        },
        400,
        'invalid',
      ],
    ];
    for (const [body, status, code] of cases) {
      const before = await snapshot([a, b, c]);
      const res = await post('/api/shop/checkout', body);
      expect(res.statusCode, `${JSON.stringify(body)} → ${res.body}`).toBe(status);
      expect(res.json()).toMatchObject({ code });
      expect(errorOf(res)).toMatch(/[А-Яа-яё]/);
      expect(await snapshot([a, b, c])).toEqual(before);
    }
    expect(await uses(ended.id)).toBe(0);
    expect((await get('/api/shop/checkout')).statusCode).toBe(404);
    expect((await post('/api/shop/checkout', { lines: [{ shop_id: a, quantity: 1 }] }, null)).statusCode).toBe(401);
  });

  it('gives exactly 5 discounts to 20 players racing for the last 5 uses', async () => {
    const item = await newItem({ price: 100, count: null });
    const promo = await newPromo({ kind: 'fixed', value: 50, max_uses: 5 });
    const players = await Promise.all(Array.from({ length: 20 }, (_, i) => quickPlayer(t, `Racer${kind}${i}`, 10_000)));
    const results = await Promise.all(
      players.map((p) => post('/api/shop/checkout', { lines: [{ shop_id: item, quantity: 1 }], promo_code: promo.code }, p.token)),
    );
    const ok = results.filter((r) => r.statusCode === 200);
    expect(ok).toHaveLength(5);
    for (const r of ok) expect(r.json()).toMatchObject({ total: 50, discount: 50 });
    for (const r of results.filter((x) => x.statusCode !== 200)) expect(r.json()).toMatchObject({ code: 'promo_exhausted' });
    expect(await uses(promo.id)).toBe(5);
    const paid = await Promise.all(players.map((p) => balanceOf(t, p.id)));
    expect(paid.filter((b) => b === 5_000)).toHaveLength(5);
    expect(paid.filter((b) => b === 10_000)).toHaveLength(15);
    await ledgerClean();
  });

  it('keeps per-player limits, also under parallel purchases by one player', async () => {
    const item = await newItem({ price: 1, limit_per_player: 2, limit_period: 'day' });
    const p = await quickPlayer(t, `Limited${kind}`, 10_000);
    const results = await Promise.all(Array.from({ length: 6 }, () => post('/api/shop/buy', { shop_id: item, quantity: 1 }, p.token)));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(2);
    const refused = results.find((r) => r.statusCode === 409)!;
    expect(refused.json()).toMatchObject({ code: 'limit_reached' });
    expect(errorOf(refused)).toContain('не больше 2 шт. на игрока в сутки');
    expect(await balanceOf(t, p.id)).toBe(10_000 - 200);
    // A day later the limit is open again.
    await t.handle.db
      .updateTable('shop_orders')
      .set({ created_at: Date.now() - 2 * 86_400_000 })
      .where('user_id', '=', p.id)
      .execute();
    expect((await post('/api/shop/buy', { shop_id: item, quantity: 2 }, p.token)).statusCode).toBe(200);
  });

  it('sends gifts to existing players only, with one text for unknown, deleted and banned names', async () => {
    const item = await newItem({ price: 5 });
    const friend = await quickPlayer(t, `Friend${kind}`, 0);
    const gone = await quickPlayer(t, `Gone${kind}`, 0);
    const bad = await quickPlayer(t, `Griefer${kind}`, 0);
    await t.handle.db.updateTable('users').set({ deleted_at: Date.now() }).where('id', '=', gone.id).execute();
    await t.handle.db
      .updateTable('users')
      .set({ banned_at: Date.now(), ban_until: null, ban_reason: 'гриф' })
      .where('id', '=', bad.id)
      .execute();
    for (const name of [`Nobody${kind}`, `Gone${kind}`, `Griefer${kind}`]) {
      const before = await snapshot([item]);
      const res = await post('/api/shop/checkout', { lines: [{ shop_id: item, quantity: 1 }], gift_to: name });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        error: `Нельзя отправить подарок игроку «${name}»: проверьте ник`,
        code: 'gift_recipient_invalid',
        field: 'gift_to',
      });
      expect(await snapshot([item])).toEqual(before);
    }
    expect((await post('/api/shop/buy', { shop_id: item, quantity: 1, gift_to: 'steve' })).json()).toMatchObject({ code: 'gift_to_self' });

    const mailBefore = await t.handle.db.selectFrom('mail_outbox').select('id').execute();
    const res = await post('/api/shop/checkout', { lines: [{ shop_id: item, quantity: 2 }], gift_to: `friend${kind}` });
    expect(res.statusCode, res.body).toBe(200);
    const orderId = res.json<{ order_ids: number[] }>().order_ids[0]!;
    const delivery = await t.handle.db
      .selectFrom('deliveries')
      .select('user_id')
      .where('source', '=', 'shop')
      .where('source_id', '=', orderId)
      .executeTakeFirstOrThrow();
    expect(delivery.user_id).toBe(friend.id);
    expect(await balanceOf(t, friend.id)).toBe(0);
    const mine = (await get('/api/shop/orders', player)).json<{ id: number; gift_to: string | null }[]>();
    expect(mine.find((o) => o.id === orderId)).toMatchObject({ gift_to: `Friend${kind}` });
    const theirs = (await get('/api/shop/orders', friend.token)).json<{ id: number; gift_from: string | null }[]>();
    expect(theirs.find((o) => o.id === orderId)).toMatchObject({ gift_from: 'Steve' });
    const letters = await t.handle.db
      .selectFrom('mail_outbox')
      .selectAll()
      .where('id', 'not in', mailBefore.length ? mailBefore.map((m) => m.id) : [0])
      .execute();
    expect(letters).toHaveLength(1);
    expect(letters[0]!.to_address).toBe(`friend${kind}@example.com`);
    expect(letters[0]!.subject).toContain('подарок от Steve');
    const notices = await t.handle.db.selectFrom('notices').selectAll().where('user_id', '=', friend.id).execute();
    expect(notices).toMatchObject([{ kind: 'gift', title: 'Подарок от Steve', link: '/shop' }]);
    await ledgerClean();
  });

  it('sees a sale that ended mid-checkout: refused at the price the player saw, charged in full without it', async () => {
    const item = await newItem({ price: 100, sale_price: 60, sale_ends_at: Date.now() + 3_600_000 });
    const seen = (await get('/api/shop/all')).json<{ id: number; price: number }[]>().find((i) => i.id === item)!;
    expect(seen.price).toBe(60);
    // The sale ends while the cart is open.
    await t.handle.db
      .updateTable('shop_items')
      .set({ sale_ends_at: Date.now() - 1 })
      .where('id', '=', item)
      .execute();
    const before = await snapshot([item]);
    const res = await post('/api/shop/checkout', { lines: [{ shop_id: item, quantity: 1 }], expected_total: seen.price });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'sale_changed', total: 100 });
    expect(await snapshot([item])).toEqual(before);
    const full = await post('/api/shop/checkout', { lines: [{ shop_id: item, quantity: 1 }] });
    expect(full.json()).toMatchObject({ total: 100 });
    // The public list dropped the sale without any write to the item after its end.
    await t.handle.db
      .updateTable('shop_items')
      .set({ sale_ends_at: Date.now() + 300 })
      .where('id', '=', item)
      .execute();
    await t.app.ctx.publicCache.invalidate('shop:all');
    expect((await get('/api/shop/all')).json<{ id: number; price: number }[]>().find((i) => i.id === item)!.price).toBe(60);
    await new Promise((r) => setTimeout(r, 400));
    expect((await get('/api/shop/all')).json<{ id: number; price: number }[]>().find((i) => i.id === item)!.price).toBe(100);
  });

  it("previews a code on the cart and on a tier with the purchase's own count: the total shown is the total taken", async () => {
    const sword = await newItem({
      name: 'Превью: меч',
      price: 150,
      category: 'Оружие',
      sale_price: 100,
      sale_ends_at: Date.now() + 3_600_000,
    });
    const bread = await newItem({ name: 'Превью: хлеб', price: 33.33, category: 'Еда' });
    const shopCode = await newPromo({ kind: 'percent', value: 15, applies_to: 'shop' });
    const tierCode = await newPromo({ kind: 'percent', value: 20, applies_to: 'donate' });
    const foodCode = await newPromo({ kind: 'fixed', value: 5, applies_to: 'shop', category: 'Еда' });
    const bigCode = await newPromo({ kind: 'percent', value: 10, applies_to: 'all', min_total: 1000 });

    // 2 × 100 (on sale) + 3 × 33,33 = 299,99; 15 % of it (floored to the kopeck) = 44,99.
    const lines = `${sword}x2,${bread}x3`;
    const preview = await get(`/api/shop/promo/${shopCode.code.toLowerCase()}?lines=${lines}`, player);
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.json()).toMatchObject({ text: 'Скидка 15 % на товары магазина', price: 299.99, discount: 44.99, total: 255 });
    const before = await balanceOf(t, playerId);
    const paid = await post('/api/shop/checkout', {
      lines: [
        { shop_id: sword, quantity: 2 },
        { shop_id: bread, quantity: 3 },
      ],
      promo_code: shopCode.code,
    });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json()).toMatchObject({ total: 255, discount: 44.99 });
    expect(await balanceOf(t, playerId)).toBe(before - 25_500);

    // A tier-only code is refused on the cart at once, as the purchase would refuse it; without lines it only says what it gives.
    const refused = await get(`/api/shop/promo/${tierCode.code}?lines=${sword}x1`, player);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      error: 'Этот промокод не действует в магазине',
      code: 'promo_not_applicable',
      field: 'promo_code',
    });
    expect((await get(`/api/shop/promo/${tierCode.code}`, player)).json()).toMatchObject({ text: 'Скидка 20 % на привилегии' });
    // A code for one category: only its lines; none of them — refused; below the minimum — refused with the minimum.
    expect((await get(`/api/shop/promo/${foodCode.code}?lines=${sword}x1,${bread}x1`, player)).json()).toMatchObject({
      price: 133.33,
      discount: 5,
      total: 128.33,
    });
    expect((await get(`/api/shop/promo/${foodCode.code}?lines=${sword}x1`, player)).json()).toMatchObject({
      error: 'Промокод не действует на эти товары',
      field: 'promo_code',
    });
    expect((await get(`/api/shop/promo/${bigCode.code}?lines=${sword}x1`, player)).json()).toMatchObject({
      error: 'Промокод действует при покупке от 1\u00a0000\u00a0₽',
      code: 'promo_min_total',
    });
    // Bad lines are a 400 with the field named, never a 500.
    for (const bad of ['', 'x', `${sword}x0`, `${sword}`, `${sword}x2,`, 'abc', `99999999999x1`, Array(60).fill(`${sword}x1`).join(',')]) {
      const res = await get(`/api/shop/promo/${shopCode.code}?lines=${encodeURIComponent(bad)}`, player);
      expect(res.statusCode, `${bad}: ${res.body}`).toBe(400);
    }
    expect((await get(`/api/shop/promo/${shopCode.code}?lines=${sword}x1`)).statusCode).toBe(401);
    // Nothing was used by the previews.
    expect(await uses(tierCode.id)).toBe(0);
    expect(await uses(foodCode.id)).toBe(0);

    // A tier: the quote with the code is what the purchase takes (the sale price 200, 20 % off after no credit).
    const tier = await post('/api/donate/add', { title: 'Превью VIP', content: 'Привилегия', amount: 199, currency: '₽' }, admin);
    expect(tier.statusCode, tier.body).toBeLessThan(300);
    const tierId = (await get('/api/donate/fully')).json<{ id: number; title: string }[]>().find((x) => x.title === 'Превью VIP')!.id;
    const plain = await get(`/api/donate/${tierId}/quote?months=1`, player);
    expect(plain.json()).toMatchObject({ price: 199, total: 199, promo: null });
    const quoted = await get(`/api/donate/${tierId}/quote?months=1&promo_code=${tierCode.code.toLowerCase()}`, player);
    expect(quoted.statusCode, quoted.body).toBe(200);
    expect(quoted.json()).toMatchObject({
      price: 199,
      total: 159.2,
      promo: { code: tierCode.code, text: 'Скидка 20 % на привилегии', discount: 39.8 },
    });
    // As a gift: the period's price as a new privilege, the code off it; nothing about anyone's privilege.
    expect((await get(`/api/donate/${tierId}/quote?months=1&gift=1&promo_code=${tierCode.code}`, player)).json()).toMatchObject({
      kind: 'new',
      credit: 0,
      total: 159.2,
    });
    expect((await get(`/api/donate/${tierId}/quote?months=1&gift=yes`, player)).statusCode).toBe(400);
    const shopOnly = await get(`/api/donate/${tierId}/quote?months=1&promo_code=${shopCode.code}`, player);
    expect(shopOnly.statusCode).toBe(409);
    expect(shopOnly.json()).toMatchObject({ error: 'Этот промокод не действует на привилегии', field: 'promo_code' });
    expect((await get(`/api/donate/${tierId}/quote?months=1&promo_code=${encodeURIComponent('не код!')}`, player)).statusCode).toBe(400);
    const balance = await balanceOf(t, playerId);
    const bought = await post(`/api/donate/${tierId}/buy`, { months: 1, promo_code: tierCode.code });
    expect(bought.statusCode, bought.body).toBe(200);
    expect(await balanceOf(t, playerId)).toBe(balance - 15_920);
    // Used once: the next preview says so, as the next purchase would.
    expect((await get(`/api/donate/${tierId}/quote?months=1&promo_code=${tierCode.code}`, player)).json()).toMatchObject({
      code: 'promo_used',
    });
    await ledgerClean();
  });

  it('manages promo codes (permission promo), previews them, and applies them, sales and gifts to tiers', async () => {
    expect((await post('/api/admin/promo-codes', { code: 'X', kind: 'percent', value: 10 }, player)).statusCode).toBe(403);
    const bad = await post('/api/admin/promo-codes', { code: 'BAD', kind: 'percent', value: 150 }, admin);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ field: 'value' });
    const promo = await newPromo({ kind: 'percent', value: 50, applies_to: 'donate' });
    const dup = await post('/api/admin/promo-codes', { code: promo.code.toLowerCase(), kind: 'fixed', value: 1 }, admin);
    expect(dup.json()).toMatchObject({ code: 'promo_code_exists' });

    expect((await get(`/api/shop/promo/${promo.code.toLowerCase()}`, player)).json()).toMatchObject({
      kind: 'percent',
      value: 50,
      text: 'Скидка 50 % на привилегии',
    });
    expect((await get('/api/shop/promo/NOPE', player)).json()).toMatchObject({ code: 'promo_not_found' });
    const item = await newItem({ price: 10 });
    expect((await post('/api/shop/buy', { shop_id: item, quantity: 1, promo_code: promo.code })).json()).toMatchObject({
      code: 'promo_not_applicable',
    });

    const tier = await post(
      '/api/donate/add',
      { title: 'VIP', content: 'Привилегия', amount: 300, currency: '₽', sale_amount: 200, sale_ends_at: null },
      admin,
    );
    expect(tier.statusCode, tier.body).toBeLessThan(300);
    const tierId = (await get('/api/donate/fully'))
      .json<{ id: number; title: string; sale_amount: number | null }[]>()
      .find((x) => x.title === 'VIP')!;
    expect(tierId.sale_amount).toBe(200);
    const friend = await quickPlayer(t, `TierFriend${kind}`, 0);
    const before = await balanceOf(t, playerId);
    const bought = await post(`/api/donate/${tierId.id}/buy`, { months: 1, promo_code: promo.code, gift_to: `TierFriend${kind}` });
    expect(bought.statusCode, bought.body).toBe(200);
    expect(bought.json()).toMatchObject({ message: `Привилегия VIP подарена игроку TierFriend${kind}! Команды будут выполнены в игре.` });
    // 200 ₽ on sale, half off with the code.
    expect(await balanceOf(t, playerId)).toBe(before - 10_000);
    const held = await t.handle.db.selectFrom('privileges').select('user_id').where('tier_id', '=', tierId.id).execute();
    expect(held.map((h) => h.user_id)).toEqual([friend.id]);

    const off = await post(`/api/admin/promo-codes/${promo.id}/disable`, { disabled: true }, admin);
    expect(off.json()).toMatchObject({ disabled: true, uses: 1 });
    expect((await get(`/api/shop/promo/${promo.code}`, player)).json()).toMatchObject({ code: 'promo_not_found' });
    await ledgerClean();
  });
});
