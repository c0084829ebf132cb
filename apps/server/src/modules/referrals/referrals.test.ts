import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferralResponse } from '@kubik/contract';
import { FakeYooKassa } from '../../../../../testing/payments/yookassa-server.ts';
import { paymentsConfig } from '../../test/payments.ts';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { hashToken } from '../../lib/tokens.ts';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { findPaymentLedgerMismatches } from '../payments/payments.ledger-check.ts';

const YOOKASSA_IP = '185.71.76.17';
const PASSWORD = 'a long password 123';

describe.each(dbKinds)('referrals on %s', (kind) => {
  let t: TestApp;
  let yoo: FakeYooKassa;
  let admin: string;
  let inviterId: number;
  let inviter: string;
  let code: string;

  beforeAll(async () => {
    yoo = await new FakeYooKassa().start();
    t = await createTestApp(kind, { workers: false, payments: paymentsConfig(yoo, null) });
    await seedUser(t, 'Owner', { admin: true });
    admin = await loginAs(t, 'Owner');
    inviterId = await seedUser(t, 'Inviter');
    inviter = await loginAs(t, 'Inviter');
  });
  afterAll(async () => {
    await t?.close();
    await yoo?.stop();
  });

  const db = () => t.handle.db;
  const balance = async (id: number) =>
    Number((await db().selectFrom('users').select('balance').where('id', '=', id).executeTakeFirstOrThrow()).balance);
  const idOf = async (name: string) =>
    (await db().selectFrom('users').select('id').where('username', '=', name).executeTakeFirstOrThrow()).id;
  const register = (username: string, cookies: Record<string, string>, ip: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/user/register',
      payload: { username, email: `${username.toLowerCase()}@example.com`, password: PASSWORD },
      cookies,
      remoteAddress: ip,
    });
  const inviterOf = async (id: number) =>
    (await db().selectFrom('referrals').select('inviter_id').where('invited_id', '=', id).executeTakeFirst())?.inviter_id ?? null;

  async function topUp(userId: number, amount: number): Promise<string> {
    await db().updateTable('users').set({ email_verified_at: Date.now() }).where('id', '=', userId).execute();
    const name = (await db().selectFrom('users').select('username').where('id', '=', userId).executeTakeFirstOrThrow()).username;
    const token = await loginAs(t, name, PASSWORD);
    const res = await t.app.inject(asUser(token, { method: 'POST', url: '/api/payments', payload: { amount, provider: 'yookassa' } }));
    expect(res.statusCode, res.body).toBe(201);
    const { id } = res.json<{ id: string }>();
    const row = await db().selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    yoo.pay(row.provider_payment_id!);
    const note = yoo.notificationFor(row.provider_payment_id!);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/payments/yookassa/notify', payload: note, remoteAddress: YOOKASSA_IP })).statusCode,
    ).toBe(200);
    return id;
  }

  it('gives a player a link; /r/{code} remembers it and opens the registration', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/user/referral' })).statusCode).toBe(401);
    const mine = (await t.app.inject(asUser(inviter, { method: 'GET', url: '/api/user/referral' }))).json<ReferralResponse>();
    code = mine.code;
    expect(mine).toMatchObject({ link: `http://kubik.test/r/${code}`, invited: [], earned: 0 });
    const again = (await t.app.inject(asUser(inviter, { method: 'GET', url: '/api/user/referral' }))).json<ReferralResponse>();
    expect(again.code).toBe(code);
    const visit = await t.app.inject({ method: 'GET', url: `/r/${code}` });
    expect(visit.statusCode).toBe(302);
    expect(visit.headers.location).toBe('/register');
    expect(visit.cookies.find((c) => c.name === 'kubik_ref')).toMatchObject({ value: code, httpOnly: true });
    const junk = await t.app.inject({ method: 'GET', url: '/r/%3Cscript%3E' });
    expect(junk.statusCode).toBe(302);
    expect(junk.cookies).toHaveLength(0);
  });

  it('refuses invites from the inviter’s own browser or address', async () => {
    await db()
      .insertInto('known_devices')
      .values({
        user_id: inviterId,
        device_hash: hashToken('inviters-browser'),
        user_agent: null,
        ip: '198.51.100.50',
        created_at: Date.now(),
        last_seen_at: Date.now(),
      })
      .execute();
    expect((await register('Twin1', { kubik_ref: code, kubik_device: 'inviters-browser' }, '203.0.113.1')).statusCode).toBe(201);
    expect(await inviterOf(await idOf('Twin1'))).toBeNull();
    expect((await register('Twin2', { kubik_ref: code }, '198.51.100.50')).statusCode).toBe(201);
    expect(await inviterOf(await idOf('Twin2'))).toBeNull();
    expect((await register('Friend', { kubik_ref: code }, '203.0.113.2')).statusCode).toBe(201);
    expect(await inviterOf(await idOf('Friend'))).toBe(inviterId);
    expect((await register('Stranger', { kubik_ref: 'zzzzzzzz' }, '203.0.113.3')).statusCode).toBe(201);
    expect(await inviterOf(await idOf('Stranger'))).toBeNull();
  });

  it('pays the inviter a share of each top-up and a bonus after the first big one, and takes them back with a refund', async () => {
    const rules = await t.app.inject(
      asUser(admin, {
        method: 'PUT',
        url: '/api/admin/referral-settings',
        payload: { share_percent: 10, share_days: 30, bonus_amount: 50, bonus_min_topup: 150 },
      }),
    );
    expect(rules.statusCode, rules.body).toBe(200);
    const friend = await idOf('Friend');
    const start = await balance(inviterId);

    const small = await topUp(friend, 100);
    expect(await balance(inviterId)).toBe(start + 1_000); // 10 % of 100 ₽, no bonus below 150 ₽
    const big = await topUp(friend, 200);
    expect(await balance(inviterId)).toBe(start + 1_000 + 2_000 + 5_000);
    await topUp(friend, 300);
    expect(await balance(inviterId)).toBe(start + 1_000 + 2_000 + 5_000 + 3_000); // the bonus is paid once
    const notices = await db()
      .selectFrom('notices')
      .select('title')
      .where('user_id', '=', inviterId)
      .where('kind', '=', 'referral_reward')
      .execute();
    expect(notices).toHaveLength(4);

    // A notification repeated changes nothing.
    const row = await db().selectFrom('payments').selectAll().where('id', '=', big).executeTakeFirstOrThrow();
    await t.app.inject({
      method: 'POST',
      url: '/api/payments/yookassa/notify',
      payload: yoo.notificationFor(row.provider_payment_id!),
      remoteAddress: YOOKASSA_IP,
    });
    expect(await balance(inviterId)).toBe(start + 11_000);

    const mine = (await t.app.inject(asUser(inviter, { method: 'GET', url: '/api/user/referral' }))).json<ReferralResponse>();
    expect(mine.invited).toEqual([expect.objectContaining({ username: 'Friend', earned: 110 })]);
    expect(mine.earned).toBe(110);

    // The big payment is refunded: its share and the bonus go back.
    yoo.refundOutcome = 'succeeded';
    const refund = await t.app.inject(asUser(admin, { method: 'POST', url: `/api/admin/payments/${big}/refund` }));
    expect(refund.statusCode, refund.body).toBe(200);
    expect(await balance(inviterId)).toBe(start + 4_000);
    const after = (await t.app.inject(asUser(inviter, { method: 'GET', url: '/api/user/referral' }))).json<ReferralResponse>();
    expect(after.earned).toBe(40);

    // A refund the provider refuses changes nothing for the inviter.
    yoo.refundOutcome = 'canceled';
    const refused = await t.app.inject(asUser(admin, { method: 'POST', url: `/api/admin/payments/${small}/refund` }));
    expect(refused.statusCode).toBe(502);
    expect(await balance(inviterId)).toBe(start + 4_000);
    const ledger = await db()
      .selectFrom('ledger')
      .select(['amount', 'ref'])
      .where('user_id', '=', inviterId)
      .where('reason', '=', 'referral_reward')
      .orderBy('id')
      .execute();
    // The refused refund took nothing: rewards are reversed when the provider confirms a refund.
    expect(ledger.map((l) => Number(l.amount))).toEqual([1_000, 2_000, 5_000, 3_000, -2_000, -5_000]);
    expect(await findLedgerMismatches(db())).toEqual([]);
    expect(await findPaymentLedgerMismatches(db())).toEqual([]);
  });

  it('takes back no more than the inviter still has', async () => {
    const friend = await idOf('Friend');
    const id = await topUp(friend, 500);
    const held = await balance(inviterId);
    // The inviter spends all but 10 ₽.
    await db()
      .transaction()
      .execute(async (trx) => {
        const { postLedger } = await import('../ledger/ledger.service.ts');
        await postLedger(trx, { userId: inviterId, amount: -(held - 1_000), reason: 'purchase', authorId: null, note: 'test' });
      });
    yoo.refundOutcome = 'succeeded';
    expect((await t.app.inject(asUser(admin, { method: 'POST', url: `/api/admin/payments/${id}/refund` }))).statusCode).toBe(200);
    expect(await balance(inviterId)).toBe(0);
    expect(await findLedgerMismatches(db())).toEqual([]);
  });
});
