import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';

describe.each(dbKinds)('admin users: search, card and balance changes on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let player: string;
  let playerId: number;
  const ids: number[] = [];
  beforeAll(async () => {
    t = await createTestApp(kind);
    ids.push(await seedUser(t, 'Chief', { admin: true }));
    playerId = await seedUser(t, 'Miner', { balanceKopecks: 5000 });
    ids.push(playerId);
    for (let i = 1; i <= 30; i++) ids.push(await seedUser(t, `Crafter${String(i).padStart(2, '0')}`));
    ids.push(await seedUser(t, 'Under_Score'));
    ids.push(await seedUser(t, 'Percent100'));
    admin = await loginAs(t, 'Chief');
    player = await loginAs(t, 'Miner');
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (token: string | null, url: string) => t.app.inject(asUser(token, { method: 'GET', url }));
  const change = (token: string | null, id: number, payload: unknown) =>
    t.app.inject(asUser(token, { method: 'POST', url: `/api/admin/users/${id}/balance`, payload: payload as object }));

  it('keeps the plain list without paging parameters, and pages a search on the server', async () => {
    const plain = (await get(admin, '/api/user/all')).json();
    expect(Array.isArray(plain)).toBe(true);
    expect(plain).toHaveLength(34);

    const first = (await get(admin, '/api/user/all?page=1&per_page=10')).json();
    expect(first).toMatchObject({ page: 1, per_page: 10, total: 34 });
    expect(first.users).toHaveLength(10);
    // Newest first.
    expect(first.users[0].username).toBe('Percent100');
    const last = (await get(admin, '/api/user/all?page=4&per_page=10')).json();
    expect(last.users.map((u: { username: string }) => u.username)).toEqual(['Crafter02', 'Crafter01', 'Miner', 'Chief']);

    const crafters = (await get(admin, '/api/user/all?q=CRAFTER&per_page=5')).json();
    expect(crafters.total).toBe(30);
    expect(crafters.users).toHaveLength(5);
    expect(crafters.page).toBe(1);
    // By address, by id, and LIKE's wildcards taken literally.
    expect((await get(admin, '/api/user/all?q=miner@example')).json().users.map((u: { id: number }) => u.id)).toEqual([playerId]);
    expect((await get(admin, `/api/user/all?q=${playerId}`)).json().users.map((u: { id: number }) => u.id)).toContain(playerId);
    expect((await get(admin, '/api/user/all?q=_')).json().users.map((u: { username: string }) => u.username)).toEqual(['Under_Score']);
    expect((await get(admin, '/api/user/all?q=%25')).json().total).toBe(0);
    expect((await get(admin, '/api/user/all?q=nobody-like-this')).json()).toEqual({ users: [], page: 1, per_page: 25, total: 0 });
  });

  it('refuses bad paging in Russian, and players and guests', async () => {
    const bad = await get(admin, '/api/user/all?page=0');
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad)).toMatch(/Некорректный номер страницы/);
    const tooMany = await get(admin, '/api/user/all?per_page=500');
    expect(tooMany.statusCode).toBe(400);
    expect(errorOf(tooMany)).toMatch(/Не больше 100/);
    expect((await get(null, '/api/user/all?page=1')).statusCode).toBe(401);
    expect((await get(player, '/api/user/all?page=1')).statusCode).toBe(403);
    expect((await get(player, `/api/admin/users/${playerId}`)).statusCode).toBe(403);
    expect((await change(player, playerId, { amount: 100, comment: 'себе' })).statusCode).toBe(403);
    expect((await change(null, playerId, { amount: 100, comment: 'себе' })).statusCode).toBe(401);
  });

  it('changes a balance by «+ / − сумма» with a comment: an adjustment in the ledger, audited in Russian', async () => {
    const plus = await change(admin, playerId, { amount: 12.5, comment: 'Компенсация за вайп' });
    expect(plus.statusCode).toBe(200);
    expect(plus.json()).toMatchObject({
      balance: 62.5,
      message: 'Баланс изменён',
      entry: { amount: 12.5, reason: 'adjustment', note: 'Компенсация за вайп', author: 'Chief' },
    });
    const minus = await change(admin, playerId, { amount: -2.5, comment: 'Ошибочное начисление' });
    expect(minus.json().balance).toBe(60);

    const below = await change(admin, playerId, { amount: -60.01, comment: 'Слишком много' });
    expect(below.statusCode).toBe(409);
    expect(below.json()).toMatchObject({
      error: 'Баланс не может стать отрицательным: сейчас на счету 60\u00a0₽',
      code: 'insufficient_funds',
      field: 'amount',
    });
    expect((await change(admin, playerId, { amount: -60, comment: 'Обнулить' })).json().balance).toBe(0);

    for (const [payload, field] of [
      [{ amount: 10 }, 'comment'],
      [{ amount: 10, comment: '  ' }, 'comment'],
      [{ amount: 0, comment: 'ноль' }, 'amount'],
      [{ amount: 1.234, comment: 'доли копеек' }, 'amount'],
      [{ amount: '10', comment: 'строка' }, 'amount'],
    ] as const) {
      const res = await change(admin, playerId, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().field).toBe(field);
    }
    expect((await change(admin, 999999, { amount: 1, comment: 'никому' })).statusCode).toBe(404);

    const ledger = await t.handle.db
      .selectFrom('ledger')
      .select(['amount', 'reason', 'note'])
      .where('user_id', '=', playerId)
      .orderBy('id')
      .execute();
    expect(ledger.map((r) => [Number(r.amount), r.reason, r.note])).toEqual([
      [5000, 'adjustment', 'test'],
      [1250, 'adjustment', 'Компенсация за вайп'],
      [-250, 'adjustment', 'Ошибочное начисление'],
      [-6000, 'adjustment', 'Обнулить'],
    ]);
    expect(await findLedgerMismatches(t.handle.db)).toEqual([]);
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'before_json', 'after_json'])
      .where('action', '=', 'user.balance')
      .orderBy('id')
      .execute();
    expect(audit).toHaveLength(3);
    expect(JSON.parse(audit[0]!.before_json!)).toEqual({ username: 'Miner', balance: 50 });
    expect(JSON.parse(audit[0]!.after_json!)).toEqual({ username: 'Miner', balance: 62.5, change: 12.5, comment: 'Компенсация за вайп' });
  });

  it('shows a player card: account, orders with their delivery, ledger and sessions', async () => {
    await change(admin, playerId, { amount: 100, comment: 'На покупку' });
    const now = Date.now();
    const item = await t.handle.db
      .insertInto('shop_items')
      .values({
        name: 'Алмаз',
        description: '',
        icon: '/i.png',
        category: 'Ресурсы',
        item_id_minecraft: 'minecraft:diamond',
        status: 'Продаётся',
        price: 1050,
        count: 10,
        server_id: null,
        commands: null,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const order = await t.handle.db
      .insertInto('shop_orders')
      .values({
        user_id: playerId,
        item_id: item.id,
        item_name: 'Алмаз',
        item_id_minecraft: 'minecraft:diamond',
        price: 1050,
        quantity: 2,
        total: 2100,
        created_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const state of ['done', 'failed']) {
      await t.handle.db
        .insertInto('deliveries')
        .values({
          source: 'shop',
          source_id: order.id,
          user_id: playerId,
          label: 'Алмаз',
          server_id: null,
          server_scope: 'only',
          commands: null,
          params: '{}',
          step: 0,
          quantity: 1,
          state,
          waiting: null,
          attempts: 1,
          retries: 0,
          next_attempt_at: now,
          lock_token: null,
          locked_until: null,
          command: null,
          reply: null,
          last_error: null,
          sent_at: null,
          done_at: null,
          refunded_at: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
    const res = await get(admin, `/api/admin/users/${playerId}`);
    expect(res.statusCode).toBe(200);
    const card = res.json();
    expect(card.user).toMatchObject({ id: playerId, username: 'Miner', email_confirmed: true, balance: 100 });
    expect(card.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(card.orders).toEqual([
      { id: order.id, item_name: 'Алмаз', quantity: 2, total: 21, delivery: 'failed', created_at: expect.any(String) },
    ]);
    expect(card.ledger[0]).toMatchObject({ amount: 100, reason: 'adjustment', note: 'На покупку', author: 'Chief' });
    expect(card.ledger).toHaveLength(5);
    expect(card.sessions).toHaveLength(1);
    expect(card.sessions[0]).toMatchObject({ created_at: expect.any(String), expires_at: expect.any(String) });
    expect(card.privileges).toEqual([]);
    // No top-ups yet; the payments tests fill this list (payments.admin.test.ts).
    expect(card.payments).toEqual([]);
    expect(res.body).not.toMatch(/token_hash|password/);
    expect((await get(admin, '/api/admin/users/999999')).statusCode).toBe(404);
  });
});
