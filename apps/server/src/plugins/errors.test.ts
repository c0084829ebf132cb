import { DonateBody, ServerBody } from '@kubik/contract';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldLabel } from '../lib/field-label.ts';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../test/test-app.ts';

describe('field labels', () => {
  it('finds a field’s Russian label through wrappers, arrays and field-level meta', () => {
    expect(fieldLabel(ServerBody, ['ip_address'])).toBe('Адрес');
    expect(fieldLabel(ServerBody, ['rcon_port'])).toBe('Порт RCON');
    expect(fieldLabel(DonateBody, ['kits', '0', 'name'])).toBe('Название');
    expect(fieldLabel(DonateBody, ['kits'])).toBe('Киты');
    expect(fieldLabel(DonateBody, ['features', '3', 'check'])).toBe('Отметка');
    const own = z.object({ nick: z.string().meta({ label: 'Ник' }).optional(), other: z.string() });
    expect(fieldLabel(own, ['nick'])).toBe('Ник');
    expect(fieldLabel(own, ['other'])).toBeUndefined();
    expect(fieldLabel(ServerBody, ['nope'])).toBeUndefined();
    expect(fieldLabel(undefined, ['x'])).toBeUndefined();
  });
});

describe.each(dbKinds)('API errors on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let player: string;
  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false, rateLimits: { enabled: false } });
    await seedUser(t, 'Boss', { admin: true });
    await seedUser(t, 'Steve');
    admin = await loginAs(t, 'Boss');
    player = await loginAs(t, 'Steve');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a refused field comes with code invalid, its path, and its Russian name in the text', async () => {
    const res = await t.app.inject(
      asUser(admin, { method: 'POST', url: '/api/servers/', payload: { name: 'Выживание', description: 'Сервер', ip_address: 42 } }),
    );
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ code: 'invalid', field: 'ip_address' });
    expect(body.error).toMatch(/ \(поле «Адрес»\)$/);
    expect(body.error).not.toContain('ip_address');

    const nested = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/donate/add',
        payload: { title: 'VIP', content: 'Лучший', amount: 100, currency: 'RUB', kits: [{ name: 'Старт' }, { name: 5 }] },
      }),
    );
    expect(nested.statusCode).toBe(400);
    expect(nested.json()).toMatchObject({ code: 'invalid', field: 'kits.1.name' });
    expect(nested.json().error).toContain('(поле «Название»)');

    const query = await t.app.inject({ method: 'GET', url: '/api/servers/1/history?hours=99999' });
    expect(query.json()).toEqual({ error: 'Период: от 1 до 720 часов (параметр «Период (часов)»)', code: 'invalid', field: 'hours' });
  });

  it('known refusals keep their texts and gain stable codes', async () => {
    const taken = await t.app.inject({
      method: 'POST',
      url: '/api/user/register',
      payload: { username: 'Steve', email: 'new@example.com', password: 'kubik-pass-42' },
    });
    expect([taken.statusCode, taken.json()]).toEqual([
      409,
      { error: 'Username already exists', code: 'username_exists', field: 'username' },
    ]);
    const email = await t.app.inject({
      method: 'POST',
      url: '/api/user/register',
      payload: { username: 'Alex', email: 'steve@example.com', password: 'kubik-pass-42' },
    });
    expect([email.statusCode, email.json()]).toEqual([409, { error: 'Email already exists', code: 'email_exists', field: 'email' }]);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/user/login',
      payload: { username: 'Steve', password: 'wrong-password' },
    });
    expect(login.json()).toEqual({ error: 'Неверное имя пользователя или пароль', code: 'bad_credentials' });
    const missing = await t.app.inject({ method: 'GET', url: '/api/nothing-here' });
    expect(missing.json()).toEqual({ error: 'Не найдено', code: 'not_found' });
    const wrongOld = await t.app.inject(
      asUser(player, {
        method: 'POST',
        url: '/api/user/change-password',
        payload: { old_password: 'nope-nope', new_password: 'password456' },
      }),
    );
    expect(wrongOld.json()).toEqual({ error: 'Текущий пароль указан неверно', code: 'wrong_password', field: 'old_password' });
    const badJson = await t.app.inject({
      method: 'POST',
      url: '/api/user/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"username":',
    });
    expect(badJson.json()).toEqual({ error: 'Некорректный JSON в теле запроса', code: 'invalid_json' });
  });

  it('an unconfirmed account is told so with email_not_confirmed', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/user/register',
      payload: { username: 'Newbie', email: 'newbie@example.com', password: 'kubik-pass-42' },
    });
    const res = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { username: 'Newbie', password: 'kubik-pass-42' } });
    expect([res.statusCode, res.json()]).toEqual([403, { error: 'Почта не подтверждена', code: 'email_not_confirmed' }]);
  });

  it('the shop says why a purchase failed: insufficient_funds, sold_out', async () => {
    const item = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/shop/admin/create',
        payload: { name: 'Алмаз', price: 10, count: 1, icon: '/icons/diamond.png' },
      }),
    );
    expect(item.statusCode).toBe(201);
    const id = item.json().id as number;
    const poor = await t.app.inject(asUser(player, { method: 'POST', url: '/api/shop/buy', payload: { shop_id: id, quantity: 1 } }));
    expect(poor.json()).toMatchObject({ code: 'insufficient_funds' });
    await t.handle.db.updateTable('shop_items').set({ count: 0 }).where('id', '=', id).execute();
    await t.app.ctx.publicCache.invalidate('shop.items');
    const sold = await t.app.inject(asUser(player, { method: 'POST', url: '/api/shop/buy', payload: { shop_id: id, quantity: 1 } }));
    expect(sold.json()).toMatchObject({ code: 'sold_out' });
  });
});
