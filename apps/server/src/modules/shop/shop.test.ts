import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { findShopLedgerMismatches } from './shop.service.ts';
import { addServer, balanceOf, closeTestApp, countRows, quickPlayer } from './shop.test-helpers.ts';

const ICON = 'https://example.com/icons/diamond.png';

describe.each(dbKinds)('shop on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let player: string;
  let playerId: number;
  let adminId: number;

  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
    adminId = await seedUser(t, 'Admin', { admin: true });
    playerId = await seedUser(t, 'Steve', { balanceKopecks: 100_000 });
    admin = await loginAs(t, 'Admin');
    player = await loginAs(t, 'Steve');
  });
  afterAll(() => closeTestApp(t));

  const create = (body: object, token = admin) =>
    t.app.inject(asUser(token, { method: 'POST', url: '/api/shop/admin/create', payload: body }));
  const update = (id: number | string, body: object, token = admin) =>
    t.app.inject(asUser(token, { method: 'PUT', url: `/api/shop/admin/${id}`, payload: body }));
  const remove = (id: number | string, token = admin) => t.app.inject(asUser(token, { method: 'DELETE', url: `/api/shop/admin/${id}` }));
  const buy = (body: unknown, token: string | null = player, key?: string) =>
    t.app.inject(
      asUser(token, { method: 'POST', url: '/api/shop/buy', payload: body as object, headers: key ? { 'idempotency-key': key } : {} }),
    );
  const item = async (id: number) => t.handle.db.selectFrom('shop_items').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const newItem = async (fields: object = {}) => {
    const res = await create({ name: 'Алмаз', price: 10, count: 100, icon: ICON, ...fields });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: number }>().id;
  };
  /** Everything a failed purchase must leave untouched. */
  const snapshot = async (itemId: number) => ({
    balance: await balanceOf(t, playerId),
    count: (await item(itemId)).count,
    orders: await countRows(t, 'shop_orders'),
    deliveries: await countRows(t, 'deliveries'),
    ledger: await countRows(t, 'ledger'),
  });

  it('creates items with the defaults of the spec, lists them for admins and, when on sale, for everyone', async () => {
    const serverId = await addServer(t, { name: 'Выживание', rcon_port: 25575, rcon_password: 'pw' });
    await addServer(t, { name: 'Лобби' });
    const auditBefore = await countRows(t, 'audit_log');
    const res = await create({ name: '  Алмазный меч ', price: 149.9, count: 5, icon: ICON });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      name: 'Алмазный меч',
      price: 149.9,
      count: 5,
      icon: ICON,
      description: '',
      category: 'Предметы',
      item_id_minecraft: 'stone',
      status: 'Продаётся',
      // The only server with RCON is the default.
      server_id: serverId,
      server_name: 'Выживание',
    });
    expect((await item(created.id)).price).toBe(14_990);
    expect(await countRows(t, 'audit_log')).toBe(auditBefore + 1);

    const hidden = await create({
      name: 'Зелье',
      price: 0,
      count: 0,
      icon: '/icons/potion.png',
      description: 'Лечит',
      category: 'Зелья',
      item_id_minecraft: 'potion',
      status: 'Снят с продажи',
      server_id: null,
    });
    expect(hidden.statusCode).toBe(201);
    expect(hidden.json()).toMatchObject({
      category: 'Зелья',
      item_id_minecraft: 'potion',
      status: 'Снят с продажи',
      server_id: null,
      price: 0,
    });

    const all = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/shop/admin/all' }));
    expect(all.json().map((i: { name: string }) => i.name)).toEqual(expect.arrayContaining(['Алмазный меч', 'Зелье']));

    const pub = await t.app.inject({ method: 'GET', url: '/api/shop/all' });
    expect(pub.statusCode).toBe(200);
    const listed = pub.json<Record<string, unknown>[]>();
    expect(listed.find((i) => i.id === created.id)).toEqual({
      id: created.id,
      name: 'Алмазный меч',
      icon: ICON,
      price: 149.9,
      count: 5,
      description: '',
      category: 'Предметы',
      pieces: 1,
      old_price: null,
      sale_ends_at: null,
      limit_per_player: null,
      limit_period: 'ever',
      server_name: 'Выживание',
    });
    expect(listed.some((i) => i.name === 'Зелье')).toBe(false);
    // Served from the shared cache, with an ETag the browser can revalidate.
    expect(pub.headers.etag).toBeTruthy();
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/shop/all', headers: { 'if-none-match': String(pub.headers.etag) } })).statusCode,
    ).toBe(304);
    await update(hidden.json().id, { status: 'Продаётся' });
    expect((await t.app.inject({ method: 'GET', url: '/api/shop/all' })).json().some((i: { name: string }) => i.name === 'Зелье')).toBe(
      true,
    );

    const servers = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/shop/admin/servers' }));
    expect(servers.json()).toMatchObject({ default_server_id: serverId });
    expect(servers.json().servers).toEqual(expect.arrayContaining([{ id: serverId, name: 'Выживание', rcon: true }]));
    expect(servers.body).not.toContain('pw');
  });

  it('updates any subset of fields, and a deleted item keeps its orders', async () => {
    const id = await newItem({ count: 3 });
    const changed = await update(id, {
      price: 12.34,
      status: 'Снят с продажи',
      category: 'Блоки',
      item_id_minecraft: 'minecraft:diamond_block',
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({
      name: 'Алмаз',
      price: 12.34,
      count: 3,
      status: 'Снят с продажи',
      category: 'Блоки',
      item_id_minecraft: 'minecraft:diamond_block',
    });
    expect(errorOf(await buy({ shop_id: id, quantity: 1 }))).toBe('Товар снят с продажи');
    await update(id, { status: 'Продаётся' });
    expect((await buy({ shop_id: id, quantity: 1 })).statusCode).toBe(200);

    const audit = await t.handle.db
      .selectFrom('audit_log')
      .selectAll()
      .where('entity', '=', 'shop_item')
      .where('entity_id', '=', String(id))
      .orderBy('id')
      .execute();
    expect(audit.map((a) => a.action)).toEqual(['shop.item.create', 'shop.item.update', 'shop.item.update']);
    expect(JSON.parse(audit[1]!.before_json!).price).toBe(1000);
    expect(JSON.parse(audit[1]!.after_json!).price).toBe(1234);

    const del = await remove(id);
    expect(del.statusCode).toBe(200);
    expect(del.json().message).toBe('Товар удалён');
    expect((await remove(id)).statusCode).toBe(404);
    expect((await update(id, { price: 1 })).statusCode).toBe(404);
    const all = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/shop/admin/all' }));
    expect(all.json().some((i: { id: number }) => i.id === id)).toBe(false);
    expect(errorOf(await buy({ shop_id: id, quantity: 1 }))).toBe('Товар не найден');
    // The purchase stays in the player's history.
    const orders = await t.app.inject(asUser(player, { method: 'GET', url: '/api/shop/orders' }));
    expect(orders.json().some((o: { item_id: number }) => o.item_id === id)).toBe(true);
  });

  it.each([
    [{ name: '', price: 1, count: 1, icon: ICON }, 'Введите название'],
    [{ price: 1, count: 1, icon: ICON }, 'Введите название'],
    [{ name: 'X', price: -1, count: 1, icon: ICON }, 'Цена не может быть отрицательной'],
    [{ name: 'X', price: 1.234, count: 1, icon: ICON }, 'Цена: не больше двух знаков после запятой'],
    [{ name: 'X', price: '10', count: 1, icon: ICON }, 'Цена должна быть числом'],
    [{ name: 'X', price: 1, count: -1, icon: ICON }, 'Количество не может быть отрицательным'],
    [{ name: 'X', price: 1, count: 1.5, icon: ICON }, 'Количество должно быть целым числом'],
    [{ name: 'X', price: 1, count: 1, icon: 'javascript:alert(1)' }, 'Иконка: укажите ссылку'],
    [{ name: 'X', price: 1, count: 1 }, 'Укажите ссылку на иконку'],
    [{ name: 'X', price: 1, count: 1, icon: ICON, item_id_minecraft: 'stone 64\nop Steve' }, 'Minecraft ID: строчные'],
    [{ name: 'X', price: 1, count: 1, icon: ICON, item_id_minecraft: '' }, 'Укажите Minecraft ID'],
    [{ name: 'X', price: 1, count: 1, icon: ICON, category: 'Машины' }, 'Категории «Машины» нет в списке'],
    [{ name: 'X', price: 1, count: 1, icon: ICON, pieces: 0 }, 'Штук за покупку: целое число от 1 до 6400'],
    [{ name: 'X', price: 1, count: 1, icon: ICON, pieces: 6401 }, 'Штук за покупку'],
    [{ name: 'X', price: 1, count: 1, icon: ICON, commands: 'give {player} stone 1' }, 'Команды: список строк'],
    [
      { name: 'X', price: 1, count: 1, icon: ICON, commands: ['give {player} stone 1', 'give {player} stone 1\u0085op {player}'] },
      'Команда 2: недопустимый символ U+0085',
    ],
    [
      { name: 'X', price: 1, count: 1, icon: ICON, commands: ['give {player} stone 1\u2028op {player}'] },
      'Команда 1: недопустимый символ U+2028',
    ],
    [{ name: 'X', price: 1, count: 1, icon: ICON, commands: ['give {player} stone 1\r\n'] }, 'недопустимый символ U+000D'],
    [{ name: 'X', price: 1, count: 1, icon: ICON, commands: ['give {player} stone 1\u0000'] }, 'Недопустимые символы в тексте'],
    [{ name: 'X', price: 1, count: 1, icon: ICON, commands: ['give {player} {money} 1'] }, 'Команда 1: неизвестная подстановка {money}'],
    [{ name: 'X', price: 1, count: 1, icon: ICON, commands: ['say привет'] }, 'Команда 1: нужна подстановка {player} или {uuid}'],
    [{ name: 'X', price: 1, count: 1, icon: ICON, commands: ['   '] }, 'Команда 1: введите команду'],
    [{ name: 'X', price: 1, count: 1, icon: ICON, commands: Array(21).fill('give {player} stone 1') }, 'Команды: не больше 20'],
    [{ name: 'X', price: 1, count: 1, icon: ICON, server_id: 999_999 }, 'Сервер не найден'],
    [{ name: 'X', price: 1, count: 1, icon: ICON, owner: 'me' }, ''],
  ])('refuses a bad item %j in Russian and creates nothing', async (body, text) => {
    const before = await countRows(t, 'shop_items');
    const res = await create(body);
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toContain(text);
    expect(errorOf(res)).toMatch(/[а-яё]/i);
    expect(await countRows(t, 'shop_items')).toBe(before);
  });

  it('refuses bad ids and bodies on update and delete', async () => {
    expect((await update('abc', { price: 1 })).statusCode).toBe(400);
    expect((await remove('-1')).statusCode).toBe(400);
    expect(errorOf(await update(999_999, { price: 1 }))).toBe('Товар не найден');
    const id = await newItem();
    const bad = await update(id, { count: -5 });
    expect(bad.statusCode).toBe(400);
    expect((await item(id)).count).toBe(100);
  });

  it('keeps the admin endpoints for admins and the purchase for logged-in users', async () => {
    const id = await newItem();
    for (const [method, url] of [
      ['GET', '/api/shop/admin/all'],
      ['GET', '/api/shop/admin/servers'],
      ['GET', '/api/shop/admin/deliveries'],
      ['POST', '/api/shop/admin/create'],
      ['PUT', `/api/shop/admin/${id}`],
      ['DELETE', `/api/shop/admin/${id}`],
      ['POST', '/api/shop/admin/deliveries/1/resend'],
      ['POST', '/api/shop/admin/deliveries/1/refund'],
    ] as const) {
      const payload = method === 'POST' || method === 'PUT' ? { name: 'Взлом', price: 1, count: 1, icon: ICON } : undefined;
      const guest = await t.app.inject({ method, url, payload });
      expect(guest.statusCode, `${method} ${url}`).toBe(401);
      const user = await t.app.inject(asUser(player, { method, url, payload }));
      expect(user.statusCode, `${method} ${url}`).toBe(403);
      expect(errorOf(user)).toBe('Доступно только администраторам');
    }
    expect((await item(id)).name).toBe('Алмаз');
    // A guest is told to log in, whatever the body.
    expect((await buy({ shop_id: id, quantity: 1 }, null)).statusCode).toBe(401);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/shop/buy',
          payload: '{"quantity":"many"}',
          headers: { 'content-type': 'application/json' },
        })
      ).statusCode,
    ).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/shop/orders' })).statusCode).toBe(401);
    expect(errorOf(await buy({ shop_id: id, quantity: 1 }, 'not-a-real-token'))).toBe('Invalid token');
  });

  it('buys: one transaction writes the order, the ledger row, the deliveries, and moves stock and balance', async () => {
    const id = await newItem({ price: 1.5, count: 200, name: 'Факел', item_id_minecraft: 'torch' });
    const publicCount = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/shop/all' })).json<{ id: number; count: number }[]>().find((i) => i.id === id)?.count;
    // The public list is cached; a purchase must still show at once.
    expect(await publicCount()).toBe(200);
    const balance = await balanceOf(t, playerId);
    const res = await buy({ shop_id: id, quantity: 130 });
    expect(res.statusCode).toBe(200);
    const answer = res.json();
    expect(answer).toMatchObject({ message: 'Покупка совершена! Предмет будет выдан в игре.', new_balance: (balance - 19_500) / 100 });
    expect(await balanceOf(t, playerId)).toBe(balance - 19_500);
    expect((await item(id)).count).toBe(70);
    expect(await publicCount()).toBe(70);

    const order = await t.handle.db.selectFrom('shop_orders').selectAll().where('id', '=', answer.order_id).executeTakeFirstOrThrow();
    expect(order).toMatchObject({ user_id: playerId, item_id: id, item_name: 'Факел', item_id_minecraft: 'torch', quantity: 130 });
    expect(Number(order.price)).toBe(150);
    expect(Number(order.total)).toBe(19_500);
    const ledger = await t.handle.db.selectFrom('ledger').selectAll().where('ref', '=', `order:${answer.order_id}`).execute();
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ user_id: playerId, reason: 'purchase', author_id: playerId });
    expect(Number(ledger[0]!.amount)).toBe(-19_500);
    const deliveries = await t.handle.db
      .selectFrom('deliveries')
      .selectAll()
      .where('source', '=', 'shop')
      .where('source_id', '=', answer.order_id)
      .orderBy('id')
      .execute();
    expect(deliveries.map((d) => [d.quantity, d.state])).toEqual([
      [64, 'pending'],
      [64, 'pending'],
      [2, 'pending'],
    ]);

    const orders = await t.app.inject(asUser(player, { method: 'GET', url: '/api/shop/orders' }));
    expect(orders.statusCode).toBe(200);
    expect(orders.json()[0]).toMatchObject({
      id: answer.order_id,
      item_name: 'Факел',
      quantity: 130,
      price: 1.5,
      total: 195,
      deliveries: [{ quantity: 64, state: 'pending' }, { quantity: 64 }, { quantity: 2 }],
    });
    const me = await t.app.inject(asUser(player, { method: 'GET', url: '/api/user/me' }));
    expect(me.json().balance).toBe(answer.new_balance);

    // Another player sees only their own purchases.
    const other = await quickPlayer(t, 'Alex', 0);
    expect((await t.app.inject(asUser(other.token, { method: 'GET', url: '/api/shop/orders' }))).json()).toEqual([]);
    expect(await findLedgerMismatches(t.handle.db)).toEqual([]);
    expect(await findShopLedgerMismatches(t.handle.db)).toEqual([]);
  });

  it.each([
    [{ quantity: 0 }, 'Введите корректное количество'],
    [{ quantity: -3 }, 'Введите корректное количество'],
    [{ quantity: 1.5 }, 'Введите корректное количество'],
    [{ quantity: '2' }, 'Введите корректное количество'],
    [{ quantity: null }, 'Введите корректное количество'],
    [{ quantity: 1e9 }, 'Введите корректное количество'],
    [{ quantity: undefined }, 'Введите корректное количество'],
    [{ shop_id: 'x', quantity: 1 }, 'Товар не найден'],
    [{ shop_id: 999_999, quantity: 1 }, 'Товар не найден'],
    [{ extra: true, quantity: 1 }, 'Некорректный запрос: ожидаются поля shop_id, quantity и по желанию promo_code, gift_to'],
  ])('refuses a purchase %j with the exact text and changes nothing', async (change, text) => {
    const id = await newItem({ count: 10 });
    const before = await snapshot(id);
    const res = await buy({ shop_id: id, ...{ quantity: 1 }, ...change });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    expect(errorOf(res)).toBe(text);
    expect(await snapshot(id)).toEqual(before);
  });

  it('refuses bodies of the wrong shape', async () => {
    for (const payload of ['"text"', '[1,2]', 'null', '{"shop_id":', '']) {
      const res = await t.app.inject(
        asUser(player, { method: 'POST', url: '/api/shop/buy', payload, headers: { 'content-type': 'application/json' } }),
      );
      expect(res.statusCode, payload).toBe(400);
      expect(errorOf(res)).toMatch(/[а-яё]/i);
    }
  });

  it('refuses what the player cannot afford, what is sold out, short or off sale — changing nothing', async () => {
    const poor = await quickPlayer(t, 'Poor', 999);
    const id = await newItem({ price: 10, count: 3 });
    const balanceBefore = await balanceOf(t, poor.id);
    const funds = await buy({ shop_id: id, quantity: 1 }, poor.token);
    expect(funds.statusCode).toBe(400);
    expect(errorOf(funds)).toBe('Недостаточно средств на балансе');
    expect(await balanceOf(t, poor.id)).toBe(balanceBefore);
    expect((await item(id)).count).toBe(3);

    const before = await snapshot(id);
    const short = await buy({ shop_id: id, quantity: 4 });
    expect(short.statusCode).toBe(409);
    expect(errorOf(short)).toBe('Недостаточно товара: в наличии 3 шт.');
    expect(await snapshot(id)).toEqual(before);

    expect((await buy({ shop_id: id, quantity: 3 })).statusCode).toBe(200);
    const soldOut = await buy({ shop_id: id, quantity: 1 });
    expect(soldOut.statusCode).toBe(409);
    expect(errorOf(soldOut)).toBe('Товар закончился');
    expect((await item(id)).count).toBe(0);

    const off = await newItem({ status: 'Снят с продажи' });
    expect(errorOf(await buy({ shop_id: off, quantity: 1 }))).toBe('Товар снят с продажи');
    // The exact balance is enough.
    const exact = await quickPlayer(t, 'Exact', 2000);
    const two = await newItem({ price: 10, count: 5 });
    const ok = await buy({ shop_id: two, quantity: 2 }, exact.token);
    expect(ok.json().new_balance).toBe(0);
    expect(await balanceOf(t, exact.id)).toBe(0);
  });

  it('answers a retried purchase with the same Idempotency-Key from the first answer, without buying twice', async () => {
    const id = await newItem({ price: 5, count: 10 });
    const p = await quickPlayer(t, 'Retry', 10_000);
    const key = 'buy-0b9a7c1e-1111';
    const first = await buy({ shop_id: id, quantity: 2 }, p.token, key);
    expect(first.statusCode).toBe(200);
    const again = await buy({ shop_id: id, quantity: 2 }, p.token, key);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(await balanceOf(t, p.id)).toBe(9000);
    expect((await item(id)).count).toBe(8);

    const other = await buy({ shop_id: id, quantity: 3 }, p.token, key);
    expect(other.statusCode).toBe(409);
    expect(errorOf(other)).toBe('Этот ключ Idempotency-Key уже использован для другой покупки');
    // Keys belong to their user: the same key from someone else is their own purchase.
    const q = await quickPlayer(t, 'Retry2', 10_000);
    expect((await buy({ shop_id: id, quantity: 2 }, q.token, key)).json().order_id).not.toBe(first.json().order_id);
    // A new key is a new purchase.
    expect((await buy({ shop_id: id, quantity: 2 }, p.token, 'buy-0b9a7c1e-2222')).statusCode).toBe(200);
    expect(await balanceOf(t, p.id)).toBe(8000);

    // A failed purchase leaves no key behind: once affordable, the same key buys.
    const broke = await quickPlayer(t, 'Broke', 0);
    expect(errorOf(await buy({ shop_id: id, quantity: 1 }, broke.token, 'broke-key-0001'))).toBe('Недостаточно средств на балансе');
    await t.handle.db.transaction().execute(async (trx) => {
      const { postLedger } = await import('../ledger/ledger.service.ts');
      await postLedger(trx, { userId: broke.id, amount: 500, reason: 'adjustment', authorId: adminId });
    });
    expect((await buy({ shop_id: id, quantity: 1 }, broke.token, 'broke-key-0001')).json().new_balance).toBe(0);

    for (const bad of ['short', 'with space inside', 'x'.repeat(101)]) {
      const res = await buy({ shop_id: id, quantity: 1 }, p.token, bad);
      expect(res.statusCode).toBe(400);
      expect(errorOf(res)).toContain('Idempotency-Key');
    }
  });

  it('buys once for a burst of requests with one Idempotency-Key', async () => {
    const id = await newItem({ price: 1, count: 100 });
    const p = await quickPlayer(t, 'Burst', 10_000);
    const answers = await Promise.all(Array.from({ length: 25 }, () => buy({ shop_id: id, quantity: 3 }, p.token, 'burst-key-000001')));
    // Every request waits for the first to commit, then gets its answer.
    expect(answers.map((a) => a.statusCode)).toEqual(answers.map(() => 200));
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(await balanceOf(t, p.id)).toBe(9700);
    expect((await item(id)).count).toBe(97);
    expect((await t.handle.db.selectFrom('shop_orders').select('id').where('user_id', '=', p.id).execute()).length).toBe(1);
  });

  it('never oversells nor overdraws under 200 parallel purchases, to the kopeck', async () => {
    const price = 1000; // 10 ₽
    const id = await newItem({ price: price / 100, count: 50, name: 'Редкий лук' });
    // 40 players; player i can afford i % 5 pieces (and has 5 ₽ more), 80 affordable pieces in all.
    const players = await Promise.all(Array.from({ length: 40 }, (_, i) => quickPlayer(t, `Rush_${i}`, (i % 5) * price + 500)));
    const ledgerBefore = await countRows(t, 'ledger');
    const requests = players.flatMap((p) => Array.from({ length: 5 }, () => p));
    const answers = await Promise.all(requests.map((p) => buy({ shop_id: id, quantity: 1 }, p.token)));

    const ok = answers.filter((a) => a.statusCode === 200);
    const refused = answers.filter((a) => a.statusCode !== 200);
    for (const a of refused) expect(['Недостаточно средств на балансе', 'Товар закончился']).toContain(errorOf(a));
    expect(answers.every((a) => a.statusCode === 200 || a.statusCode === 400 || a.statusCode === 409)).toBe(true);
    expect(ok).toHaveLength(50);
    expect((await item(id)).count).toBe(0);

    let spent = 0;
    for (const [i, p] of players.entries()) {
      const bought = (await t.handle.db.selectFrom('shop_orders').select('quantity').where('user_id', '=', p.id).execute()).length;
      expect(bought).toBeLessThanOrEqual(i % 5);
      const balance = await balanceOf(t, p.id);
      expect(balance).toBe((i % 5) * price + 500 - bought * price);
      expect(balance).toBeGreaterThanOrEqual(500);
      spent += bought * price;
    }
    expect(spent).toBe(50 * price);
    expect(await countRows(t, 'ledger')).toBe(ledgerBefore + 50);
    const orders = await t.handle.db.selectFrom('shop_orders').select('id').where('item_id', '=', id).execute();
    expect(orders).toHaveLength(50);
    const deliveries = await t.handle.db
      .selectFrom('deliveries')
      .select('id')
      .where('source', '=', 'shop')
      .where(
        'source_id',
        'in',
        orders.map((o) => o.id),
      )
      .execute();
    expect(deliveries).toHaveLength(50);
    expect(await findLedgerMismatches(t.handle.db)).toEqual([]);
    expect(await findShopLedgerMismatches(t.handle.db)).toEqual([]);
  });

  it("keeps an item's own commands and pieces per purchase, and shows players the pieces", async () => {
    const res = await create({
      name: 'Алмазы ×16',
      price: 50,
      count: 10,
      icon: ICON,
      item_id_minecraft: 'diamond',
      pieces: 16,
      commands: ['  give {player} minecraft:{item} {quantity}  ', 'lp user {uuid} permission set shop.diamonds'],
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      pieces: 16,
      commands: ['give {player} minecraft:{item} {quantity}', 'lp user {uuid} permission set shop.diamonds'],
    });
    const id = res.json().id as number;
    expect((await item(id)).commands).toBe(
      JSON.stringify(['give {player} minecraft:{item} {quantity}', 'lp user {uuid} permission set shop.diamonds']),
    );
    const pub = (await t.app.inject({ method: 'GET', url: '/api/shop/all' })).json<{ id: number; pieces: number }[]>();
    expect(pub.find((i) => i.id === id)?.pieces).toBe(16);
    // An empty list goes back to the server's template; a bad command changes nothing.
    const bad = await update(id, { commands: ['give {player} x 1\u2028op {player}'] });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad)).toContain('Команда 1: недопустимый символ U+2028');
    expect(JSON.parse((await item(id)).commands!)).toHaveLength(2);
    expect((await update(id, { commands: [], pieces: 1 })).json()).toMatchObject({ commands: [], pieces: 1 });
    expect((await item(id)).commands).toBeNull();
  });

  it('lets the owner manage categories: items follow a rename, a category in use cannot go', async () => {
    const list = async () =>
      (await t.app.inject(asUser(admin, { method: 'GET', url: '/api/shop/admin/categories' }))).json<{
        categories: { id: number; name: string; position: number; items: number }[];
      }>().categories;
    const start = await list();
    expect(start.slice(0, 7).map((c) => c.name)).toEqual(['Предметы', 'Оружие', 'Броня', 'Инструменты', 'Еда', 'Зелья', 'Блоки']);
    const cat = (body: object, method: 'POST' | 'PUT' | 'DELETE' = 'POST', id?: number) =>
      t.app.inject(
        asUser(admin, { method, url: `/api/shop/admin/categories${id ? `/${id}` : ''}`, ...(method !== 'DELETE' && { payload: body }) }),
      );
    const added = await cat({ name: 'Редкости' });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json()).toMatchObject({ message: 'Категория добавлена', category: { name: 'Редкости', items: 0 } });
    const catId = added.json().category.id as number;
    expect(errorOf(await cat({ name: 'редкости' }))).toBe('Категория «редкости» уже есть');
    expect(errorOf(await cat({ name: 'Две\nстроки' }))).toContain('Категория: одна строка без управляющих символов');
    // An item takes the category as the list spells it.
    const itemId = await newItem({ category: 'РЕДКОСТИ' });
    expect((await item(itemId)).category).toBe('Редкости');
    const renamed = await cat({ name: 'Раритеты', position: 0 }, 'PUT', catId);
    expect(renamed.json()).toMatchObject({ category: { name: 'Раритеты', position: 0, items: 1 } });
    expect((await item(itemId)).category).toBe('Раритеты');
    const inUse = await cat({}, 'DELETE', catId);
    expect(inUse.statusCode).toBe(409);
    expect(errorOf(inUse)).toBe('В категории «Раритеты» есть товары (1): перенесите их в другую категорию, затем удалите её');
    await update(itemId, { category: 'Блоки' });
    expect((await cat({}, 'DELETE', catId)).statusCode).toBe(200);
    expect((await list()).some((c) => c.name === 'Раритеты')).toBe(false);
    expect(errorOf(await create({ name: 'X', price: 1, count: 1, icon: ICON, category: 'Раритеты' }))).toContain(
      'Категории «Раритеты» нет в списке',
    );
    expect((await t.app.inject(asUser(player, { method: 'GET', url: '/api/shop/admin/categories' }))).statusCode).toBe(403);
    const audit = await t.handle.db.selectFrom('audit_log').select('action').where('entity', '=', 'shop_category').orderBy('id').execute();
    expect(audit.map((a) => a.action)).toEqual(['shop.category.create', 'shop.category.update', 'shop.category.delete']);
  });

  it('documents the shop routes in OpenAPI', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    for (const path of [
      '/api/shop/all',
      '/api/shop/buy',
      '/api/shop/orders',
      '/api/shop/admin/all',
      '/api/shop/admin/create',
      '/api/shop/admin/{id}',
      '/api/shop/admin/deliveries',
      '/api/shop/admin/deliveries/{id}/refund',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    expect(doc.paths['/api/shop/buy'].post.responses['400']).toBeDefined();
    expect(JSON.stringify(doc.paths['/api/shop/buy'].post.parameters)).toContain('idempotency-key');
  });
});
