import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';

describe.each(dbKinds)('admin users on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let adminId: number;
  let player: string;
  let playerId: number;
  beforeAll(async () => {
    t = await createTestApp(kind);
    adminId = await seedUser(t, 'Chief', { admin: true });
    playerId = await seedUser(t, 'Miner', { balanceKopecks: 5000 });
    admin = await loginAs(t, 'Chief');
    player = await loginAs(t, 'Miner');
  });
  afterAll(async () => {
    await t?.close();
  });

  const put = (token: string | null, id: number, payload: unknown) =>
    t.app.inject(asUser(token, { method: 'PUT', url: `/api/user/${id}`, payload: payload as object }));
  const del = (token: string | null, id: number) => t.app.inject(asUser(token, { method: 'DELETE', url: `/api/user/${id}` }));
  const me = (token: string) => t.app.inject(asUser(token, { method: 'GET', url: '/api/user/me' }));
  const ledgerOf = (id: number) => t.handle.db.selectFrom('ledger').selectAll().where('user_id', '=', id).orderBy('id').execute();
  const auditOf = (action: string, id: number) =>
    t.handle.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', action)
      .where('entity_id', '=', String(id))
      .orderBy('id')
      .execute();
  const userRow = (id: number) => t.handle.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('lists users for administrators only, without secrets', async () => {
    const res = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/user/all' }));
    expect(res.statusCode).toBe(200);
    const list = res.json();
    expect(list).toEqual([
      {
        id: adminId,
        username: 'Chief',
        email: 'chief@example.com',
        is_admin: true,
        balance: 0,
        email_confirmed: true,
        created_at: expect.any(String),
        ban: null,
      },
      {
        id: playerId,
        username: 'Miner',
        email: 'miner@example.com',
        is_admin: false,
        balance: 50,
        email_confirmed: true,
        created_at: expect.any(String),
        ban: null,
      },
    ]);
    expect(res.body).not.toMatch(/argon2|password|token/);
    expect((await t.app.inject({ method: 'GET', url: '/api/user/all' })).statusCode).toBe(401);
    const forbidden = await t.app.inject(asUser(player, { method: 'GET', url: '/api/user/all' }));
    expect(forbidden.statusCode).toBe(403);
    expect(errorOf(forbidden)).toBe('Доступно только администраторам');
  });

  it('sets a balance by posting the difference to the ledger, with the admin as author', async () => {
    const up = await put(admin, playerId, { balance: 120.5 });
    expect(up.statusCode).toBe(200);
    expect(up.json()).toMatchObject({ id: playerId, username: 'Miner', balance: 120.5 });
    expect((await me(player)).json().balance).toBe(120.5);

    const down = await put(admin, playerId, { balance: 20 });
    expect(down.json().balance).toBe(20);
    const same = await put(admin, playerId, { balance: 20 });
    expect(same.statusCode).toBe(200);

    const rows = await ledgerOf(playerId);
    expect(rows.map((r) => Number(r.amount))).toEqual([5000, 7050, -10050]);
    expect(rows.slice(1).every((r) => r.reason === 'adjustment' && r.author_id === adminId)).toBe(true);
    expect(Number((await userRow(playerId)).balance)).toBe(2000);
    expect(await findLedgerMismatches(t.handle.db)).toEqual([]);

    const audit = await auditOf('user.update', playerId);
    // The unchanged third save wrote nothing.
    expect(audit).toHaveLength(2);
    expect(audit[0]).toMatchObject({ actor_id: adminId, entity: 'user' });
    expect(JSON.parse(audit[0]!.before_json!)).toMatchObject({ balance: 50 });
    expect(JSON.parse(audit[0]!.after_json!)).toMatchObject({ balance: 120.5 });
  });

  it('edits name, address, role and password; an empty password keeps the old one', async () => {
    const id = await seedUser(t, 'Builder', { password: 'first-password' });
    const session = await loginAs(t, 'Builder', 'first-password');

    const keep = await put(admin, id, { username: 'Builder_2', email: 'Builder2@Example.com', password: '', is_admin: false, balance: 0 });
    expect(keep.statusCode).toBe(200);
    expect(keep.json()).toMatchObject({ username: 'Builder_2', email: 'Builder2@Example.com', is_admin: false });
    expect((await me(session)).statusCode).toBe(200);
    await loginAs(t, 'builder_2', 'first-password');
    const row = await userRow(id);
    expect(row).toMatchObject({ username_lower: 'builder_2', email_lower: 'builder2@example.com' });

    const change = await put(admin, id, { password: 'second-password', is_admin: true });
    expect(change.statusCode).toBe(200);
    expect(change.json().is_admin).toBe(true);
    // A new password ends the user's sessions.
    expect((await me(session)).statusCode).toBe(401);
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/user/login',
      payload: { username: 'Builder_2', password: 'first-password' },
    });
    expect(bad.statusCode).toBe(401);
    const fresh = await loginAs(t, 'Builder_2', 'second-password');
    expect((await me(fresh)).json().is_admin).toBe(true);

    const audit = await auditOf('user.update', id);
    expect(audit).toHaveLength(2);
    expect(JSON.parse(audit[0]!.before_json!)).toEqual({ username: 'Builder', email: 'builder@example.com', is_admin: false, balance: 0 });
    expect(JSON.parse(audit[0]!.after_json!)).toEqual({
      username: 'Builder_2',
      email: 'Builder2@Example.com',
      is_admin: false,
      balance: 0,
    });
    // The log says the password changed and never holds it.
    expect(JSON.parse(audit[1]!.after_json!)).toMatchObject({ password: '***', is_admin: true });
    expect(audit[1]!.after_json).not.toMatch(/second-password|argon2/);

    // Back to a player for the tests below.
    expect((await put(admin, id, { is_admin: false })).statusCode).toBe(200);
  });

  it('keeps names and addresses unique ignoring case, with the registration texts', async () => {
    const id = await seedUser(t, 'Digger');
    const byName = await put(admin, id, { username: 'MINER' });
    expect(byName.statusCode).toBe(409);
    expect(errorOf(byName)).toBe('Username already exists');
    const byEmail = await put(admin, id, { email: 'MINER@example.com' });
    expect(byEmail.statusCode).toBe(409);
    expect(errorOf(byEmail)).toBe('Email already exists');
    // Its own name in another case is not a clash.
    const own = await put(admin, id, { username: 'DIGGER', email: 'digger@example.com' });
    expect(own.statusCode).toBe(200);
    expect(own.json().username).toBe('DIGGER');
  });

  it('checks the input like registration does and changes nothing on bad input', async () => {
    const before = await userRow(playerId);
    const ledgerBefore = (await ledgerOf(playerId)).length;
    const cases: [unknown, RegExp][] = [
      [{ username: 'ab' }, /Имя пользователя/],
      [{ username: 'Вася' }, /Имя пользователя/],
      [{ email: 'not-an-email' }, /почты/],
      [{ password: 'short' }, /8 символов/],
      [{ balance: -1 }, /отрицательным/],
      [{ balance: '100' }, /Баланс/],
      [{ balance: 1e12 }, /Слишком большой баланс/],
      [{ is_admin: 'yes' }, /is_admin/],
      [{ id: 5 }, /./],
      [[], /./],
      [null, /./],
    ];
    for (const [body, text] of cases) {
      const res = await t.app.inject(
        asUser(admin, {
          method: 'PUT',
          url: `/api/user/${playerId}`,
          payload: JSON.stringify(body),
          headers: { 'content-type': 'application/json' },
        }),
      );
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorOf(res), JSON.stringify(body)).toMatch(text);
      expect(errorOf(res)).toMatch(/[а-яё]/i);
    }
    expect(await userRow(playerId)).toEqual(before);
    expect(await ledgerOf(playerId)).toHaveLength(ledgerBefore);

    const missing = await put(admin, 999_999, { balance: 1 });
    expect(missing.statusCode).toBe(404);
    expect(errorOf(missing)).toBe('Пользователь не найден');
    expect((await t.app.inject(asUser(admin, { method: 'PUT', url: '/api/user/me', payload: {} }))).statusCode).toBe(400);
  });

  it('refuses edits and deletions from visitors (401) and players (403)', async () => {
    const before = await userRow(adminId);
    for (const call of [
      { method: 'PUT' as const, url: `/api/user/${adminId}`, payload: { balance: 1000 } },
      { method: 'PUT' as const, url: `/api/user/${playerId}`, payload: { is_admin: 'garbage' } },
      { method: 'DELETE' as const, url: `/api/user/${adminId}` },
    ]) {
      expect((await t.app.inject(call)).statusCode).toBe(401);
      expect((await t.app.inject(asUser(player, call))).statusCode).toBe(403);
    }
    // Not even for themselves.
    expect((await put(player, playerId, { balance: 1_000_000 })).statusCode).toBe(403);
    expect(await userRow(adminId)).toEqual(before);
  });

  it('never leaves the site without an administrator', async () => {
    const demote = await put(admin, adminId, { is_admin: false });
    expect(demote.statusCode).toBe(409);
    expect(errorOf(demote)).toBe('Нельзя снять права с последнего администратора: сначала назначьте другого');
    const remove = await del(admin, adminId);
    expect(remove.statusCode).toBe(409);
    expect(errorOf(remove)).toBe('Нельзя удалить последнего администратора: сначала назначьте другого');
    expect((await me(admin)).json().is_admin).toBe(true);

    // With a second administrator the first may step down.
    const deputyId = await seedUser(t, 'Deputy', { admin: true });
    const deputy = await loginAs(t, 'Deputy');
    const stepDown = await put(admin, adminId, { is_admin: false });
    expect(stepDown.statusCode).toBe(200);
    expect((await put(deputy, deputyId, { is_admin: false })).statusCode).toBe(409);
    expect((await del(deputy, deputyId)).statusCode).toBe(409);
    // The former administrator has lost the rights at once.
    expect((await del(admin, deputyId)).statusCode).toBe(403);
    expect((await put(deputy, adminId, { is_admin: true })).statusCode).toBe(200);
  });

  it('deletes softly: history stays, the name and address are free again, sessions end', async () => {
    const id = await seedUser(t, 'Leaver', { balanceKopecks: 700 });
    const session = await loginAs(t, 'Leaver');
    const res = await del(admin, id);
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe('Пользователь удалён');

    expect((await me(session)).statusCode).toBe(401);
    const list = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/user/all' }));
    expect(list.json().some((u: { id: number }) => u.id === id)).toBe(false);
    const row = await userRow(id);
    expect(row.deleted_at).not.toBeNull();
    expect(row.username).toBe(`Удалён #${id}`);
    expect(row.email).not.toMatch(/leaver/i);
    expect(row.is_admin).toBe(0);
    expect(await t.handle.db.selectFrom('sessions').select('token_hash').where('user_id', '=', id).execute()).toEqual([]);
    // The ledger keeps the money history of the deleted account.
    expect((await ledgerOf(id)).map((r) => Number(r.amount))).toEqual([700]);

    const audit = await auditOf('user.delete', id);
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]!.before_json!)).toMatchObject({ username: 'Leaver', email: 'leaver@example.com', balance: 7 });
    expect(JSON.parse(audit[0]!.after_json!)).toMatchObject({ deleted: true });

    const again = await t.app.inject({
      method: 'POST',
      url: '/api/user/register',
      payload: { username: 'leaver', email: 'LEAVER@example.com', password: 'kubik-pass-42' },
    });
    expect(again.statusCode).toBe(201);
    expect((await del(admin, id)).statusCode).toBe(404);
    expect((await put(admin, id, { balance: 5 })).statusCode).toBe(404);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/user/login',
      payload: { username: `Удалён #${id}`, password: 'password123' },
    });
    expect(login.statusCode).toBe(401);
  });

  it('lets an administrator create a user with a role and a starting balance', async () => {
    const res = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/user/register',
        payload: { username: 'Guard', email: 'guard@example.com', password: 'kubik-pass-42', is_admin: false, balance: 15 },
      }),
    );
    expect(res.statusCode).toBe(201);
    const list = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/user/all' }));
    expect(list.json().find((u: { username: string }) => u.username === 'Guard')).toMatchObject({
      balance: 15,
      is_admin: false,
      email_confirmed: true,
    });
  });
});

describe.each(dbKinds)('the last administrator under concurrency on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('two administrators demoting each other at once leave exactly one', async () => {
    const aId = await seedUser(t, 'TwinA', { admin: true });
    const bId = await seedUser(t, 'TwinB', { admin: true });
    const a = await loginAs(t, 'TwinA');
    const b = await loginAs(t, 'TwinB');
    const admins = async () =>
      Number(
        (
          await t.handle.db
            .selectFrom('users')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('is_admin', '=', 1)
            .executeTakeFirstOrThrow()
        ).n,
      );
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all([
        t.app.inject(asUser(a, { method: 'PUT', url: `/api/user/${bId}`, payload: { is_admin: false } })),
        t.app.inject(asUser(b, { method: 'PUT', url: `/api/user/${aId}`, payload: { is_admin: false } })),
      ]);
      const codes = results.map((r) => r.statusCode).sort();
      // Either one wins and the other is refused, or the loser already lost its rights (403).
      expect([
        [200, 403],
        [200, 409],
      ]).toContainEqual(codes);
      expect(await admins()).toBe(1);
      await t.handle.db.updateTable('users').set({ is_admin: 1 }).where('id', 'in', [aId, bId]).execute();
    }
  });
});
