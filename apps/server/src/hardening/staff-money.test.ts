import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLedgerMismatches } from '../modules/ledger/ledger.service.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../test/test-app.ts';

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
const OWNER_SECRET = 'owner-top-secret-7f3a9c';

/*
 * Staff permissions never reach money or secrets indirectly. A staff member holding `settings`,
 * `votes` and `promo` tries every setting that mints balance beyond what was paid, or decides whose
 * word the site takes for a vote: top-up bonus rules, a vote top of their own (or their own secret
 * on the owner's top) with a 1 000 000 ₽ reward, the month's prizes, the referral rules, a top-up
 * bonus promo code. Each is the owner's alone (403 owner_only, beside the field); what mints
 * nothing stays with staff.
 */
describe.each(dbKinds)('staff and settings that mint money on %s', (kind) => {
  let t: TestApp;
  let owner: string;
  let staff: string;
  let staffId: number;

  const call = (token: string, method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: object) =>
    t.app.inject(asUser(token, { method, url, ...(payload === undefined ? {} : { payload }) }));
  const ownerOnly = (res: LightMyRequestResponse, field?: string) => {
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json().code).toBe('owner_only');
    if (field) expect(res.json().field).toBe(field);
    expect(errorOf(res)).toMatch(/только владелец/);
  };
  const balance = async (id: number) =>
    Number((await t.handle.db.selectFrom('users').select('balance').where('id', '=', id).executeTakeFirstOrThrow()).balance);

  beforeAll(async () => {
    t = await createTestApp(kind, { rateLimits: { enabled: false }, workers: false });
    await seedUser(t, 'Owner', { admin: true });
    owner = await loginAs(t, 'Owner');
    staffId = await seedUser(t, 'Money_Staff');
    const role = await call(owner, 'POST', '/api/admin/roles', { name: 'Помощник', permissions: ['settings', 'votes', 'promo'] });
    expect(role.statusCode, role.body).toBe(200);
    expect((await call(owner, 'PUT', `/api/admin/users/${staffId}/role`, { role_id: role.json().id })).statusCode).toBe(200);
    staff = await loginAs(t, 'Money_Staff');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('top-up bonus rules are the owner’s; the VAT rate of receipts stays with staff', async () => {
    ownerOnly(
      await call(staff, 'PUT', '/api/admin/payment-settings', { vat_code: 1, bonus_rules: [{ from: 10, percent: 100 }] }),
      'bonus_rules',
    );
    expect((await call(staff, 'GET', '/api/admin/payment-settings')).json().value.bonus_rules).toEqual([]);
    const vat = await call(staff, 'PUT', '/api/admin/payment-settings', { vat_code: 4, bonus_rules: [] });
    expect(vat.statusCode, vat.body).toBe(200);
    const rules = [{ from: 1000, percent: 5 }];
    expect((await call(owner, 'PUT', '/api/admin/payment-settings', { vat_code: 4, bonus_rules: rules })).statusCode).toBe(200);
    // The form sends back the owner's rules as they stand: no change, no refusal.
    const same = await call(staff, 'PUT', '/api/admin/payment-settings', { vat_code: 1, bonus_rules: rules });
    expect(same.statusCode, same.body).toBe(200);
    expect(same.json().value).toEqual({ vat_code: 1, bonus_rules: rules });
    ownerOnly(await call(staff, 'PUT', '/api/admin/payment-settings', { vat_code: 1, bonus_rules: [] }), 'bonus_rules');
  });

  it('a vote top’s secret, reward and rules are the owner’s: staff cannot vote themselves a million', async () => {
    const top = { kind: 'topcraft', title: 'TopCraft', url: 'https://topcraft.ru/servers/1/', reward_amount: 1_000_000 };
    // A top of their own, with a secret they know, would let them sign votes for any account.
    ownerOnly(await call(staff, 'POST', '/api/admin/vote-sites', { ...top, secret: 'staff-knows-this' }));
    const made = await call(owner, 'POST', '/api/admin/vote-sites', { ...top, reward_amount: 5, secret: OWNER_SECRET });
    expect(made.statusCode, made.body).toBe(201);
    const id = made.json().id as number;
    // Staff see no part of the secret.
    const listed = (await call(staff, 'GET', '/api/admin/vote-sites')).json() as { id: number; secret_hint: string }[];
    expect(listed.find((s) => s.id === id)!.secret_hint).toBe('');
    expect(JSON.stringify(listed)).not.toContain(OWNER_SECRET.slice(-4));
    const ownView = (await call(owner, 'GET', '/api/admin/vote-sites')).json() as { id: number; secret_hint: string }[];
    expect(ownView.find((s) => s.id === id)!.secret_hint).toBe(`••••${OWNER_SECRET.slice(-4)}`);

    const form = { ...top, reward_amount: 5, secret: '', reward_commands: [], cooldown_hours: 24, enabled: true };
    for (const [change, field] of [
      [{ secret: 'staff-knows-this' }, 'secret'],
      [{ reward_amount: 1_000_000 }, 'reward_amount'],
      [{ reward_amount: 0 }, 'reward_amount'],
      [{ kind: 'mctop' }, 'kind'],
      [{ cooldown_hours: 1 }, 'cooldown_hours'],
    ] as const) {
      ownerOnly(await call(staff, 'PUT', `/api/admin/vote-sites/${id}`, { ...form, ...change }), field);
    }
    // Their forged vote is not taken, and nothing was paid.
    const ts = String(Math.floor(Date.now() / 1000));
    const forged = await t.app.inject({
      method: 'POST',
      url: `/api/votes/callback/${id}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        username: 'Money_Staff',
        timestamp: ts,
        signature: sha1(`Money_Staff${ts}staff-knows-this`),
      }).toString(),
    });
    expect(forged.statusCode).toBe(403);
    expect(await balance(staffId)).toBe(0);

    // What pays nothing stays with staff: the title, the link, the in-game commands; switching it off.
    const edited = await call(staff, 'PUT', `/api/admin/vote-sites/${id}`, {
      ...form,
      title: 'TopCraft — голосуйте!',
      url: 'https://topcraft.ru/servers/2/',
      reward_commands: ['give {player} minecraft:diamond 1'],
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json()).toMatchObject({ title: 'TopCraft — голосуйте!', reward_amount: 5, secret_hint: '' });
    expect((await call(staff, 'DELETE', `/api/admin/vote-sites/${id}`)).statusCode).toBe(200);
    ownerOnly(await call(staff, 'PUT', `/api/admin/vote-sites/${id}`, { ...form, enabled: true }), 'enabled');
    const off = await call(staff, 'PUT', `/api/admin/vote-sites/${id}`, { ...form, enabled: false, title: 'TopCraft' });
    expect(off.statusCode, off.body).toBe(200);
    const on = await call(owner, 'PUT', `/api/admin/vote-sites/${id}`, { ...form, enabled: true, reward_amount: 10, cooldown_hours: 12 });
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json()).toMatchObject({ enabled: true, reward_amount: 10, cooldown_hours: 12 });

    // The month's prizes: staff see them, only the owner sets them.
    ownerOnly(await call(staff, 'PUT', '/api/admin/vote-prizes', { prizes: [1_000_000] }));
    expect((await call(staff, 'GET', '/api/admin/vote-prizes')).json()).toEqual({ prizes: [] });
    expect((await call(owner, 'PUT', '/api/admin/vote-prizes', { prizes: [500, 300] })).statusCode).toBe(200);
    expect(await findLedgerMismatches(t.handle.db)).toEqual([]);
  });

  it('the referral rules are the owner’s: staff see them', async () => {
    const rules = { share_percent: 50, share_days: 3650, bonus_amount: 100, bonus_min_topup: 100, hold_days: 0 };
    ownerOnly(await call(staff, 'PUT', '/api/admin/referral-settings', rules));
    expect((await call(staff, 'GET', '/api/admin/referral-settings')).json()).toMatchObject({
      share_percent: 0,
      bonus_amount: 0,
      hold_days: 14,
    });
    expect((await call(owner, 'PUT', '/api/admin/referral-settings', rules)).statusCode).toBe(200);
  });

  it('a promo code that adds to top-ups is the owner’s; discount codes stay with staff', async () => {
    const bonus = { code: 'TOPUP100', kind: 'topup_bonus', value: 100, per_player: 1_000_000 };
    ownerOnly(await call(staff, 'POST', '/api/admin/promo-codes', bonus), 'kind');
    const discount = await call(staff, 'POST', '/api/admin/promo-codes', { code: 'SALE10', kind: 'percent', value: 10 });
    expect(discount.statusCode, discount.body).toBe(201);
    const discountId = discount.json().id as number;
    ownerOnly(await call(staff, 'PUT', `/api/admin/promo-codes/${discountId}`, { ...bonus, code: 'SALE10' }), 'kind');
    const edited = await call(staff, 'PUT', `/api/admin/promo-codes/${discountId}`, { code: 'SALE15', kind: 'percent', value: 15 });
    expect(edited.statusCode, edited.body).toBe(200);

    const made = await call(owner, 'POST', '/api/admin/promo-codes', { ...bonus, value: 10, per_player: 1 });
    expect(made.statusCode, made.body).toBe(201);
    const bonusId = made.json().id as number;
    ownerOnly(await call(staff, 'PUT', `/api/admin/promo-codes/${bonusId}`, bonus), 'kind');
    ownerOnly(await call(staff, 'PUT', `/api/admin/promo-codes/${bonusId}`, { code: 'TOPUP100', kind: 'percent', value: 100 }), 'kind');
    // Anyone may stop a code; only the owner starts a top-up bonus again.
    expect((await call(staff, 'POST', `/api/admin/promo-codes/${bonusId}/disable`, { disabled: true })).statusCode).toBe(200);
    ownerOnly(await call(staff, 'POST', `/api/admin/promo-codes/${bonusId}/disable`, { disabled: false }), 'disabled');
    expect((await call(owner, 'POST', `/api/admin/promo-codes/${bonusId}/disable`, { disabled: false })).statusCode).toBe(200);
    const listed = (await call(owner, 'GET', '/api/admin/promo-codes')).json() as {
      id: number;
      kind: string;
      value: number;
      disabled: boolean;
    }[];
    expect(listed.find((p) => p.id === bonusId)).toMatchObject({ kind: 'topup_bonus', value: 10, disabled: false });
  });
});
