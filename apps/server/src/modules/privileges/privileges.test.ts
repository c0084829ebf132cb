import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VanillaRconServer } from '../../../../../testing/rcon/vanilla-server.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { heldTierIds } from './privileges.repo.ts';
import { drainDeliveries } from '../deliveries/deliveries.worker.ts';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { addServer, balanceOf, closeTestApp, quickPlayer } from '../shop/shop.test-helpers.ts';
import { expiryPass } from './privileges.expiry.ts';
import { DAY_MS, MONTH_MS } from './privileges.service.ts';

const OPTS = { intervalMs: 1000, timeoutMs: 4000 };

describe.each(dbKinds)('privileges on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let rcon: VanillaRconServer;
  let vipId: number;
  let premiumId: number;
  let kitId: number;

  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false, delivery: OPTS });
    await seedUser(t, 'Admin', { admin: true });
    admin = await loginAs(t, 'Admin');
    rcon = new VanillaRconServer({ password: 'rcon-secret', online: ['Steve', 'Alex', 'Herobrine', 'Notch', 'Many'] });
    await rcon.start(0);
    const serverId = await addServer(t, { name: 'Выживание', rcon_host: '127.0.0.1', rcon_port: rcon.port, rcon_password: 'rcon-secret' });
    const vip = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/donate/add',
        payload: {
          title: 'VIP',
          content: 'Для тех, кто играет каждый день',
          amount: 300,
          currency: '₽',
          server_ids: [serverId],
          grant_commands: ['say grant {player} {tier} {days} {expires}'],
          revoke_commands: ['say revoke {player} {tier}'],
          periods: [{ months: 1 }, { months: 3, discount: 10 }],
          kits: [{ name: 'Еда', command: '/kit food', period: 7, give_commands: ['give {player} minecraft:bread 16'] }],
        },
      }),
    );
    expect(vip.statusCode, vip.body).toBe(201);
    vipId = vip.json().id;
    kitId = vip.json().kits[0].id;
    const premium = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/donate/add',
        payload: {
          title: 'Premium',
          content: 'Всё включено',
          amount: 600,
          currency: 'руб.',
          grant_commands: ['say premium {player}'],
          revoke_commands: ['say unpremium {player}'],
        },
      }),
    );
    expect(premium.statusCode, premium.body).toBe(201);
    premiumId = premium.json().id;
  });
  afterAll(async () => {
    await rcon?.stop();
    await closeTestApp(t);
  });

  const buy = (token: string, tierId: number, months: number, key?: string) =>
    t.app.inject(
      asUser(token, {
        method: 'POST',
        url: `/api/donate/${tierId}/buy`,
        payload: { months },
        headers: key ? { 'idempotency-key': key } : {},
      }),
    );
  const mine = async (token: string) => (await t.app.inject(asUser(token, { method: 'GET', url: '/api/user/privileges' }))).json();
  const drain = () => drainDeliveries(t.handle.db, OPTS, t.app.log);
  const rows = (userId: number) => t.handle.db.selectFrom('privileges').selectAll().where('user_id', '=', userId).orderBy('id').execute();

  it('lists the new tier fields and kits with ids; refuses a command with an unknown placeholder', async () => {
    const list = (await t.app.inject({ method: 'GET', url: '/api/donate/fully' })).json();
    const vip = list.find((x: { id: number }) => x.id === vipId);
    expect(vip).toMatchObject({
      grant_commands: ['say grant {player} {tier} {days} {expires}'],
      revoke_commands: ['say revoke {player} {tier}'],
      periods: [
        { months: 1, discount: 0, total: 300 },
        { months: 3, discount: 10, total: 810 },
      ],
      sellable: true,
      kits: [
        { id: kitId, name: 'Еда', command: '/kit food', period: 7, kitImg: null, give_commands: ['give {player} minecraft:bread 16'] },
      ],
    });
    const bad = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/donate/add',
        payload: { title: 'X', content: 'Y', amount: 1, currency: '₽', grant_commands: ['lp user {player} parent add {group}'] },
      }),
    );
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad)).toMatch(/неизвестная подстановка \{group\}/);
    // Editing the tier keeps the kit's id when the kit is sent with it.
    const edit = await t.app.inject(asUser(admin, { method: 'PUT', url: `/api/donate/${vipId}`, payload: { ...stripped(vip) } }));
    expect(edit.statusCode, edit.body).toBe(200);
    expect(edit.json().kits[0].id).toBe(kitId);
  });

  it('sells a month: debits once, starts the privilege, runs its grant command with the placeholders; the same key replays', async () => {
    const steve = await quickPlayer(t, 'Steve', 100_000);
    const before = Date.now();
    const res = await buy(steve.token, vipId, 1, 'steve-vip-1-aaaa');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.new_balance).toBe(700);
    expect(body.message).toMatch(/VIP/);
    expect(body.expires_at).toBeGreaterThanOrEqual(before + MONTH_MS);
    const again = await buy(steve.token, vipId, 1, 'steve-vip-1-aaaa');
    expect(again.json()).toEqual(body);
    expect(await balanceOf(t, steve.id)).toBe(70_000);
    const other = await buy(steve.token, vipId, 3, 'steve-vip-1-aaaa');
    expect(other.statusCode).toBe(409);

    expect(await rows(steve.id)).toHaveLength(1);
    expect(await heldTierIds(t.handle.db, steve.id, Date.now())).toEqual([vipId]);
    await drain();
    const expires = new Date(body.expires_at).toISOString().slice(0, 19) + 'Z';
    expect(rcon.commands).toContain(`say grant Steve VIP 30 ${expires}`);
    const list = await mine(steve.token);
    expect(list).toEqual([
      expect.objectContaining({
        id: body.privilege_id,
        tier_id: vipId,
        title: 'VIP',
        expires_at: body.expires_at,
        active: true,
        kits: [expect.objectContaining({ id: kitId, name: 'Еда', next_claim_at: null, in_game: false })],
      }),
    ]);
  });

  it('extends from the end, applies the period discount and refuses an unsold period or a non-rouble tier', async () => {
    const alex = await quickPlayer(t, 'Alex', 200_000);
    const first = (await buy(alex.token, vipId, 1)).json();
    const ext = await buy(alex.token, vipId, 3);
    expect(ext.statusCode, ext.body).toBe(200);
    expect(ext.json().expires_at).toBe(first.expires_at + 3 * MONTH_MS);
    expect(ext.json().message).toMatch(/продлена/);
    expect(await balanceOf(t, alex.id)).toBe(200_000 - 30_000 - 81_000);
    expect(await rows(alex.id)).toHaveLength(1);
    const six = await buy(alex.token, vipId, 6);
    expect(six.statusCode).toBe(400);
    expect(errorOf(six)).toMatch(/На 6 мес/);
    const gold = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/donate/add',
        payload: { title: 'Gold', content: 'За монеты', amount: 5, currency: 'монет' },
      }),
    );
    const notSold = await buy(alex.token, gold.json().id, 1);
    expect(notSold.statusCode).toBe(409);
    expect(errorOf(notSold)).toMatch(/не в рублях/);
    await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/donate/${gold.json().id}` }));
  });

  it('upgrades with the lower tier’s unused days credited, ends it with its revoke command; refuses a downgrade', async () => {
    const hb = await quickPlayer(t, 'Herobrine', 100_000);
    const vip = (await buy(hb.token, vipId, 1)).json();
    // 10 days of the month used: 20 whole days left of 300 ₽ / 30 days = 200 ₽ credit.
    await t.handle.db
      .updateTable('privileges')
      .set({ expires_at: Date.now() + 20 * DAY_MS + 3_600_000 })
      .where('id', '=', vip.privilege_id)
      .execute();
    const up = await buy(hb.token, premiumId, 1);
    expect(up.statusCode, up.body).toBe(200);
    expect(up.json().message).toMatch(/VIP заменена на Premium/);
    expect(await balanceOf(t, hb.id)).toBe(100_000 - 30_000 - (60_000 - 20_000));
    const [old, now] = await rows(hb.id);
    expect(old).toMatchObject({ tier_id: vipId, end_reason: 'upgraded' });
    expect(old!.ended_at).not.toBeNull();
    expect(now).toMatchObject({ tier_id: premiumId, ended_at: null });
    const purchase = await t.handle.db
      .selectFrom('privilege_purchases')
      .selectAll()
      .where('privilege_id', '=', now!.id)
      .executeTakeFirstOrThrow();
    expect(purchase).toMatchObject({ price: 60_000, credit: 20_000, total: 40_000, replaced_id: old!.id });
    await drain();
    expect(rcon.commands).toContain('say revoke Herobrine VIP');
    expect(rcon.commands).toContain('say premium Herobrine');

    const down = await buy(hb.token, vipId, 1);
    expect(down.statusCode).toBe(409);
    expect(errorOf(down)).toBe(
      'У вас действует более высокая привилегия Premium. Купить VIP, пока она не закончилась, нельзя — можно продлить Premium.',
    );
    expect(await balanceOf(t, hb.id)).toBe(30_000);
    expect(await rows(hb.id)).toHaveLength(2);
    expect(await findLedgerMismatches(t.handle.db)).toEqual([]);
  });

  it('quotes what a purchase would cost and do, and the purchase then takes exactly that; refuses what the purchase refuses', async () => {
    const q = await quickPlayer(t, 'Quoter', 200_000);
    const quote = (token: string | null, tierId: number | string, months: number | string) =>
      t.app.inject(asUser(token, { method: 'GET', url: `/api/donate/${tierId}/quote?months=${months}` }));
    const fresh = await quote(q.token, vipId, 3);
    expect(fresh.statusCode, fresh.body).toBe(200);
    expect(fresh.json()).toMatchObject({ tier_id: vipId, months: 3, price: 810, credit: 0, total: 810, kind: 'new', replaces: null });
    expect(fresh.json().expires_at - fresh.json().starts_at).toBe(3 * MONTH_MS);

    const vip = (await buy(q.token, vipId, 1)).json();
    const extend = (await quote(q.token, vipId, 1)).json();
    expect(extend).toMatchObject({ price: 300, credit: 0, total: 300, kind: 'extend', replaces: null, starts_at: vip.expires_at });
    expect(extend.expires_at).toBe(vip.expires_at + MONTH_MS);

    // 20 whole days left of 300 ₽ / 30 days: 200 ₽ toward Premium.
    await t.handle.db
      .updateTable('privileges')
      .set({ expires_at: Date.now() + 20 * DAY_MS + 3_600_000 })
      .where('id', '=', vip.privilege_id)
      .execute();
    const upgrade = (await quote(q.token, premiumId, 1)).json();
    expect(upgrade).toMatchObject({ price: 600, credit: 200, total: 400, kind: 'upgrade', replaces: { title: 'VIP', unused_days: 20 } });
    const balance = await balanceOf(t, q.id);
    const bought = await buy(q.token, premiumId, 1);
    expect(bought.statusCode, bought.body).toBe(200);
    expect(balance - (await balanceOf(t, q.id))).toBe(40_000);
    expect(bought.json().expires_at - upgrade.expires_at).toBeLessThan(60_000);

    const down = await quote(q.token, vipId, 1);
    expect(down.statusCode).toBe(409);
    expect(down.json()).toMatchObject({ code: 'downgrade' });
    for (const [tierId, months, status, code] of [
      [vipId, 6, 400, 'period_not_sold'],
      [premiumId, 0, 400, 'invalid'],
      [premiumId, 'abc', 400, 'invalid'],
      [premiumId, 37, 400, 'invalid'],
      [999_999, 1, 404, 'not_found'],
      ['x', 1, 400, 'invalid'],
    ] as const) {
      const res = await quote(q.token, tierId, months);
      expect([res.statusCode, res.json().code], `${tierId} ${months}`).toEqual([status, code]);
    }
    expect((await quote(q.token, premiumId, 0)).json()).toMatchObject({ field: 'months' });
    expect((await quote(null, premiumId, 1)).statusCode).toBe(401);
    // A quote changes nothing.
    expect(await rows(q.id)).toHaveLength(2);
    expect(await balanceOf(t, q.id)).toBe(balance - 40_000);
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    expect(doc.paths['/api/donate/{id}/quote'].get.responses['200']).toBeDefined();
  });

  it('buys a tier once for 5 parallel requests with one Idempotency-Key: one answer, one debit, one privilege', async () => {
    const p = await quickPlayer(t, 'Burst_Tier', 100_000);
    const answers = await Promise.all(Array.from({ length: 5 }, () => buy(p.token, vipId, 1, 'tier-burst-key-01')));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(await balanceOf(t, p.id)).toBe(70_000);
    expect(await rows(p.id)).toHaveLength(1);
    const purchases = await t.handle.db.selectFrom('privilege_purchases').select('id').where('user_id', '=', p.id).execute();
    expect(purchases).toHaveLength(1);
    const other = await buy(p.token, premiumId, 1, 'tier-burst-key-01');
    expect([other.statusCode, other.json().code]).toEqual([409, 'idempotency_key_reused']);
    expect(await balanceOf(t, p.id)).toBe(70_000);
  });

  it('a kit the site has no commands for is said to be claimed in the game, and its claim refuses with the way', async () => {
    const tier = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/donate/add',
        payload: {
          title: 'Игровой',
          content: 'Набор берут командой в игре',
          amount: 50,
          currency: '₽',
          kits: [{ name: 'Стартовый', description: '', command: '/kit vip', period: 1, kitImg: '', give_commands: [] }],
        },
      }),
    );
    expect(tier.statusCode, tier.body).toBeLessThan(300);
    const tierId = tier.json().id as number;
    const gamer = await quickPlayer(t, 'Gamer', 10_000);
    expect((await buy(gamer.token, tierId, 1)).statusCode).toBe(200);
    const [held] = await mine(gamer.token);
    expect(held.kits).toEqual([expect.objectContaining({ name: 'Стартовый', command: '/kit vip', in_game: true })]);
    const claim = await t.app.inject(asUser(gamer.token, { method: 'POST', url: `/api/donate/kits/${held.kits[0].id}/claim` }));
    expect(claim.statusCode).toBe(409);
    expect(claim.json()).toMatchObject({ code: 'kit_in_game', error: 'Этот набор получают в игре: /kit vip' });
  });

  it('claims a kit once per its period; only holders of its tier; the give command reaches the game', async () => {
    const notch = await quickPlayer(t, 'Notch', 100_000);
    const claim = (token: string) => t.app.inject(asUser(token, { method: 'POST', url: `/api/donate/kits/${kitId}/claim` }));
    const early = await claim(notch.token);
    expect(early.statusCode).toBe(403);
    expect(errorOf(early)).toMatch(/владельцам привилегии VIP/);
    await buy(notch.token, vipId, 1);
    const ok = await claim(notch.token);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().message).toBe('Набор «Еда» будет выдан в игре');
    const twice = await claim(notch.token);
    expect(twice.statusCode).toBe(409);
    expect(errorOf(twice)).toMatch(/^Набор уже получен\. Следующий можно будет получить через (6 дней 23 часа|7 дней)$/);
    const given = rcon.given.length;
    await drain();
    expect(rcon.given.slice(given)).toEqual(['Notch 16 minecraft:bread']);
    const [p] = await mine(notch.token);
    expect(p.kits[0].next_claim_at).toBeGreaterThan(Date.now() + 6 * DAY_MS);
    // A week later it can be claimed again.
    await t.handle.db
      .updateTable('kit_claims')
      .set({ claimed_at: Date.now() - 7 * DAY_MS - 1000 })
      .where('user_id', '=', notch.id)
      .execute();
    expect((await claim(notch.token)).statusCode).toBe(200);
    expect(await t.handle.db.selectFrom('kit_claims').select('id').where('user_id', '=', notch.id).execute()).toHaveLength(2);
  });

  it('admin: grants, lists, moves the end (a past end ends it now with its revoke command, once), revokes; all audited', async () => {
    const target = await quickPlayer(t, 'Granted', 0);
    const g = await t.app.inject(
      asUser(admin, { method: 'POST', url: '/api/admin/privileges', payload: { username: 'granted', tier_id: vipId, days: 10 } }),
    );
    expect(g.statusCode, g.body).toBe(201);
    const granted = g.json();
    expect(granted).toMatchObject({ username: 'Granted', tier_id: vipId, title: 'VIP', active: true, ended_at: null });
    const list = (await t.app.inject(asUser(admin, { method: 'GET', url: '/api/admin/privileges?active=1&username=Granted' }))).json();
    expect(list.map((x: { id: number }) => x.id)).toEqual([granted.id]);
    const later = Date.now() + 40 * DAY_MS;
    const moved = await t.app.inject(
      asUser(admin, { method: 'PUT', url: `/api/admin/privileges/${granted.id}`, payload: { expires_at: later } }),
    );
    expect(moved.json()).toMatchObject({ expires_at: later, active: true });
    const player = (await t.app.inject(asUser(admin, { method: 'GET', url: '/api/user/privileges' }))).json();
    expect(player).toEqual([]);
    const ended = await t.app.inject(
      asUser(admin, { method: 'PUT', url: `/api/admin/privileges/${granted.id}`, payload: { expires_at: Date.now() - 1000 } }),
    );
    expect(ended.statusCode, ended.body).toBe(200);
    expect(ended.json()).toMatchObject({ active: false, end_reason: 'expired' });
    const again = await t.app.inject(
      asUser(admin, { method: 'PUT', url: `/api/admin/privileges/${granted.id}`, payload: { expires_at: Date.now() - 1000 } }),
    );
    expect(again.statusCode).toBe(409);
    // The expiry job finds nothing more to end.
    expect((await expiryPass(t.handle.db, { siteName: 'Kubik', publicUrl: 'http://kubik.test' })).ended).toBe(0);
    const revokes = await t.handle.db
      .selectFrom('deliveries')
      .select('id')
      .where('source', '=', 'privilege_revoke')
      .where('source_id', '=', granted.id)
      .execute();
    expect(revokes).toHaveLength(1);
    await drain();
    expect(rcon.commands).toContain('say revoke Granted VIP');

    const g2 = (
      await t.app.inject(
        asUser(admin, { method: 'POST', url: '/api/admin/privileges', payload: { username: 'Granted', tier_id: premiumId, days: 5 } }),
      )
    ).json();
    const del = await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/admin/privileges/${g2.id}` }));
    expect(del.statusCode).toBe(200);
    expect((await rows(target.id)).map((r) => r.end_reason)).toEqual(['expired', 'revoked']);
    const audit = await t.handle.db.selectFrom('audit_log').select('action').where('entity', '=', 'privilege').orderBy('id').execute();
    expect(audit.map((a) => a.action)).toEqual([
      'privilege.grant',
      'privilege.update',
      'privilege.update',
      'privilege.grant',
      'privilege.revoke',
    ]);
    expect(
      (await t.app.inject(asUser((await quickPlayer(t, 'Nosy', 0)).token, { method: 'GET', url: '/api/admin/privileges' }))).statusCode,
    ).toBe(403);
  });

  it('expiry job: ends a privilege at its end exactly once across overlapping passes, and reminds 3 days before, once', async () => {
    const p = await quickPlayer(t, 'Expiring', 100_000);
    const bought = (await buy(p.token, vipId, 1)).json();
    await t.handle.db
      .updateTable('privileges')
      .set({ expires_at: Date.now() + 2 * DAY_MS })
      .where('id', '=', bought.privilege_id)
      .execute();
    const opts = { siteName: 'Kubik', publicUrl: 'http://kubik.test' };
    const first = await Promise.all([expiryPass(t.handle.db, opts), expiryPass(t.handle.db, opts)]);
    expect(first.reduce((n, o) => n + o.reminded, 0)).toBe(1);
    expect((await expiryPass(t.handle.db, opts)).reminded).toBe(0);
    const letters = await t.handle.db.selectFrom('mail_outbox').selectAll().where('to_address', '=', 'expiring@example.com').execute();
    expect(letters).toHaveLength(1);
    expect(letters[0]!.subject).toMatch(/Привилегия VIP скоро закончится/);

    const passes = await Promise.all([1, 2, 3].map(() => expiryPass(t.handle.db, opts, Date.now() + 3 * DAY_MS)));
    expect(passes.reduce((n, o) => n + o.ended, 0)).toBe(1);
    const revokes = await t.handle.db
      .selectFrom('deliveries')
      .select('id')
      .where('source', '=', 'privilege_revoke')
      .where('source_id', '=', bought.privilege_id)
      .execute();
    expect(revokes).toHaveLength(1);
    expect((await rows(p.id))[0]).toMatchObject({ end_reason: 'expired' });
    expect(await heldTierIds(t.handle.db, p.id, Date.now())).toEqual([]);
    // The bell: «ends soon» once, «ended» once.
    const notices = await t.handle.db.selectFrom('notices').select(['kind', 'title']).where('user_id', '=', p.id).orderBy('id').execute();
    expect(notices.filter((n) => n.kind.startsWith('privilege_'))).toEqual([
      { kind: 'privilege_ending', title: 'Привилегия VIP скоро закончится' },
      { kind: 'privilege_ended', title: 'Привилегия VIP закончилась' },
    ]);
  });

  it('100 parallel purchases by one player with balance for 3: exactly 3 succeed, one privilege, three months', async () => {
    const many = await quickPlayer(t, 'Many', 90_000);
    const results = await Promise.all(Array.from({ length: 100 }, () => buy(many.token, vipId, 1)));
    const ok = results.filter((r) => r.statusCode === 200);
    expect(ok).toHaveLength(3);
    expect(
      results.filter((r) => r.statusCode !== 200).every((r) => r.statusCode === 400 && errorOf(r) === 'Недостаточно средств на балансе'),
    ).toBe(true);
    expect(await balanceOf(t, many.id)).toBe(0);
    const held = await rows(many.id);
    expect(held).toHaveLength(1);
    expect(Number(held[0]!.expires_at) - Number(held[0]!.starts_at)).toBe(3 * MONTH_MS);
    expect(
      await t.handle.db
        .selectFrom('deliveries')
        .select('id')
        .where('source', '=', 'privilege_grant')
        .where('user_id', '=', many.id)
        .execute(),
    ).toHaveLength(3);
    expect(await findLedgerMismatches(t.handle.db)).toEqual([]);
  });
});

/** A tier as the list gives it, as a body the admin form sends back. */
function stripped(tier: Record<string, unknown>) {
  const {
    id: _id,
    sellable: _s,
    periods,
    kits,
    ...rest
  } = tier as { id: number; sellable: boolean; periods: { months: number; discount: number }[]; kits: Record<string, unknown>[] };
  return { ...rest, periods: periods.map((p) => ({ months: p.months, discount: p.discount })), kits };
}
