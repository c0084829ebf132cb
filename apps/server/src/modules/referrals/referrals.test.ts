import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERRAL_BONUS_TOO_BIG, type AdminReferralRewards, type ReferralResponse, type ReferralSettingsBody } from '@kubik/contract';
import { FakeYooKassa } from '../../../../../testing/payments/yookassa-server.ts';
import { paymentsConfig } from '../../test/payments.ts';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { hashToken } from '../../lib/tokens.ts';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { findPaymentLedgerMismatches } from '../payments/payments.ledger-check.ts';
import { eraseAccount } from '../users/users.erase.ts';
import { releaseHeldRewards, RELEASE_JOB } from './referrals.service.ts';
import { referralRulesIn } from './referrals.settings.ts';

const YOOKASSA_IP = '185.71.76.17';
const PASSWORD = 'a long password 123';
const DAY = 86_400_000;

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

  /** A top-up of `amount` ₽, asked for from `from` (its address and, when given, the browser's device cookie), paid and notified. */
  async function topUp(userId: number, amount: number, from: { ip: string; device?: string } = { ip: '203.0.113.200' }): Promise<string> {
    await db().updateTable('users').set({ email_verified_at: Date.now() }).where('id', '=', userId).execute();
    const name = (await db().selectFrom('users').select('username').where('id', '=', userId).executeTakeFirstOrThrow()).username;
    const token = await loginAs(t, name, PASSWORD);
    const res = await t.app.inject(
      asUser(token, {
        method: 'POST',
        url: '/api/payments',
        payload: { amount, provider: 'yookassa' },
        remoteAddress: from.ip,
        ...(from.device && { cookies: { kubik_device: from.device } }),
      }),
    );
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
        payload: { share_percent: 10, share_days: 30, bonus_amount: 50, bonus_min_topup: 150, hold_days: 0 },
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

  const putRules = (payload: Record<string, unknown>) =>
    t.app.inject(asUser(admin, { method: 'PUT', url: '/api/admin/referral-settings', payload }));
  const getRules = async () =>
    (await t.app.inject(asUser(admin, { method: 'GET', url: '/api/admin/referral-settings' }))).json<ReferralSettingsBody>();
  const mine = async () => (await t.app.inject(asUser(inviter, { method: 'GET', url: '/api/user/referral' }))).json<ReferralResponse>();
  const rewardsOf = (paymentId: string) =>
    db()
      .selectFrom('referral_rewards')
      .select(['kind', 'amount', 'status', 'reason', 'release_at', 'paid_at'])
      .where('payment_id', '=', paymentId)
      .orderBy('kind', 'desc')
      .execute();
  const referralLedger = async (paymentId: string) =>
    (
      await db()
        .selectFrom('ledger')
        .select(['amount', 'ref'])
        .where('reason', '=', 'referral_reward')
        .where('ref', 'like', `referral:${paymentId}:%`)
        .orderBy('id')
        .execute()
    ).map((l) => [l.ref, Number(l.amount)]);
  /** Registers `name` through the inviter's link from `ip`; the invitation is recorded. */
  async function invitedFrom(name: string, ip: string): Promise<number> {
    expect((await register(name, { kubik_ref: code }, ip)).statusCode).toBe(201);
    const id = await idOf(name);
    expect(await inviterOf(id)).toBe(inviterId);
    return id;
  }
  /** The inviter logs in from a browser of theirs at `ip`: its device cookie. */
  async function inviterBrowserAt(ip: string): Promise<string> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/user/login',
      payload: { username: 'Inviter', password: 'password123' },
      remoteAddress: ip,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.cookies.find((c) => c.name === 'kubik_device')!.value;
  }

  it('refuses a bonus above the minimum top-up beside the bonus field, and changes nothing', async () => {
    const before = await getRules();
    const issue = await putRules({ share_percent: 50, share_days: 30, bonus_amount: 100, bonus_min_topup: 10, hold_days: 14 });
    expect(issue.statusCode).toBe(400);
    expect(issue.json()).toMatchObject({ code: 'invalid', field: 'bonus_amount' });
    expect(issue.json<{ error: string }>().error).toContain(REFERRAL_BONUS_TOO_BIG);
    // «From any top-up» is a minimum of 0: any bonus is above it.
    expect(
      (await putRules({ share_percent: 0, share_days: 30, bonus_amount: 50, bonus_min_topup: 0, hold_days: 14 })).json(),
    ).toMatchObject({
      field: 'bonus_amount',
    });
    // A kopeck over is over; a hold is whole days, at most a year, and must be given.
    expect((await putRules({ share_percent: 0, share_days: 30, bonus_amount: 10.01, bonus_min_topup: 10, hold_days: 14 })).statusCode).toBe(
      400,
    );
    expect(
      (await putRules({ share_percent: 0, share_days: 30, bonus_amount: 0, bonus_min_topup: 0, hold_days: 366 })).json(),
    ).toMatchObject({
      field: 'hold_days',
    });
    expect((await putRules({ share_percent: 0, share_days: 30, bonus_amount: 0, bonus_min_topup: 0, hold_days: 1.5 })).statusCode).toBe(
      400,
    );
    expect((await putRules({ share_percent: 0, share_days: 30, bonus_amount: 0, bonus_min_topup: 0 })).json()).toMatchObject({
      field: 'hold_days',
    });
    expect(await getRules()).toEqual(before);
    // A bonus equal to the minimum is fine.
    const equal = await putRules({ share_percent: 0, share_days: 30, bonus_amount: 10, bonus_min_topup: 10, hold_days: 14 });
    expect(equal.statusCode, equal.body).toBe(200);
    expect(equal.json()).toEqual({ share_percent: 0, share_days: 30, bonus_amount: 10, bonus_min_topup: 10, hold_days: 14 });

    // Rules stored before the refusal existed, as the issue had them: the bonus reads as none, the rest stands.
    await db()
      .updateTable('settings')
      .set({ value: JSON.stringify({ share_percent: 50, share_days: 30, bonus_amount: 100, bonus_min_topup: 10 }) })
      .where('key', '=', 'referrals')
      .execute();
    expect(await referralRulesIn(db())).toEqual({ share_percent: 50, share_days: 30, bonus_amount: 0, bonus_min_topup: 10, hold_days: 14 });
  });

  it('pays nothing for the farming of the issue: top-ups asked for from the inviter’s address or browser are refused', async () => {
    // No hold, so only the payer check stands between the farm and the money.
    expect((await putRules({ share_percent: 50, share_days: 30, bonus_amount: 10, bonus_min_topup: 10, hold_days: 0 })).statusCode).toBe(
      200,
    );
    const device = await inviterBrowserAt('198.51.100.7');
    await inviterBrowserAt('2001:db8:7:7::5');
    // Three accounts registered from addresses that are not the inviter's: each is recorded as invited.
    const farm1 = await invitedFrom('Farm1', '192.0.2.1');
    const farm2 = await invitedFrom('Farm2', '192.0.2.2');
    const farm3 = await invitedFrom('Farm3', '192.0.2.3');
    const start = await balance(inviterId);
    const earnedBefore = (await mine()).earned;

    const p1 = await topUp(farm1, 10, { ip: '198.51.100.7' });
    // Another address of the inviter's IPv6 /64 is the inviter's too.
    const p2 = await topUp(farm2, 10, { ip: '2001:db8:7:7::beef' });
    // Another address, but the inviter's own browser.
    const p3 = await topUp(farm3, 10, { ip: '192.0.2.99', device });
    expect(await balance(inviterId)).toBe(start);
    for (const [p, reason] of [
      [p1, 'own_address'],
      [p2, 'own_address'],
      [p3, 'own_device'],
    ] as const) {
      expect(await rewardsOf(p)).toEqual([
        { kind: 'share', amount: 500, status: 'refused', reason, release_at: null, paid_at: null },
        { kind: 'bonus', amount: 1_000, status: 'refused', reason, release_at: null, paid_at: null },
      ]);
      expect(await referralLedger(p)).toEqual([]);
    }
    // The payment keeps where it was asked from (the device cookie as its hash).
    const row3 = await db().selectFrom('payments').select(['payer_ip', 'payer_device']).where('id', '=', p3).executeTakeFirstOrThrow();
    expect(row3).toEqual({ payer_ip: '192.0.2.99', payer_device: hashToken(device) });
    expect((await mine()).earned).toBe(earnedBefore);

    // The owner sees them and why.
    const list = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/admin/referral-rewards' }));
    expect(list.statusCode, list.body).toBe(200);
    const refused = list.json<AdminReferralRewards>().rewards.filter((r) => r.status === 'refused');
    expect(refused.map((r) => [r.invited, r.kind, r.reason]).sort()).toEqual(
      [
        ['Farm1', 'bonus', 'own_address'],
        ['Farm1', 'share', 'own_address'],
        ['Farm2', 'bonus', 'own_address'],
        ['Farm2', 'share', 'own_address'],
        ['Farm3', 'bonus', 'own_device'],
        ['Farm3', 'share', 'own_device'],
      ].sort(),
    );
    expect(refused.every((r) => r.inviter === 'Inviter')).toBe(true);
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/referral-rewards' })).statusCode).toBe(401);
    expect((await t.app.inject(asUser(inviter, { method: 'GET', url: '/api/admin/referral-rewards' }))).statusCode).toBe(403);

    // A top-up of the same player from their own address earns the share; the bonus was decided once.
    const own = await topUp(farm1, 20, { ip: '192.0.2.1' });
    expect(await rewardsOf(own)).toEqual([
      { kind: 'share', amount: 1_000, status: 'paid', reason: null, release_at: null, paid_at: expect.any(Number) },
    ]);
    expect(await balance(inviterId)).toBe(start + 1_000);
    expect(await findLedgerMismatches(db())).toEqual([]);
    expect(await findPaymentLedgerMismatches(db())).toEqual([]);

    // A deleted account's registration address and the addresses of its payments are forgotten.
    await db()
      .transaction()
      .execute((trx) => eraseAccount(trx, farm2));
    expect(await db().selectFrom('referral_signups').select('user_id').where('user_id', '=', farm2).executeTakeFirst()).toBeUndefined();
    expect(await db().selectFrom('payments').select(['payer_ip', 'payer_device']).where('id', '=', p2).executeTakeFirstOrThrow()).toEqual({
      payer_ip: null,
      payer_device: null,
    });
  });

  it('holds a legitimate reward for the owner’s days, the job credits it once, and a refund inside the hold cancels one', async () => {
    expect((await putRules({ share_percent: 10, share_days: 30, bonus_amount: 50, bonus_min_topup: 150, hold_days: 14 })).statusCode).toBe(
      200,
    );
    expect(t.app.ctx.jobs.stats()[RELEASE_JOB]).toBeDefined();
    const pal = await invitedFrom('Pal', '203.0.113.30');
    const start = await balance(inviterId);
    const earnedBefore = (await mine()).earned;

    const first = await topUp(pal, 200, { ip: '203.0.113.31' });
    const paidAt = Number((await db().selectFrom('payments').select('paid_at').where('id', '=', first).executeTakeFirstOrThrow()).paid_at);
    const due = paidAt + 14 * DAY;
    expect(await balance(inviterId)).toBe(start);
    expect(await rewardsOf(first)).toEqual([
      { kind: 'share', amount: 2_000, status: 'held', reason: null, release_at: due, paid_at: null },
      { kind: 'bonus', amount: 5_000, status: 'held', reason: null, release_at: due, paid_at: null },
    ]);
    const view = await mine();
    expect(view.earned).toBe(earnedBefore);
    expect(view.held).toEqual([
      { username: 'Pal', kind: 'share', amount: 20, release_at: new Date(due).toISOString() },
      { username: 'Pal', kind: 'bonus', amount: 50, release_at: new Date(due).toISOString() },
    ]);
    const waiting = await db()
      .selectFrom('notices')
      .select('title')
      .where('user_id', '=', inviterId)
      .where('title', 'like', '%ждёт зачисления%')
      .execute();
    expect(waiting).toHaveLength(2);

    // A day early: nothing.
    expect(await releaseHeldRewards(db(), due - DAY)).toBe(0);
    expect(await balance(inviterId)).toBe(start);
    // Due: two passes at once credit each reward once.
    const passes = await Promise.all([releaseHeldRewards(db(), due), releaseHeldRewards(db(), due)]);
    expect(passes[0] + passes[1]).toBe(2);
    expect(await releaseHeldRewards(db(), due + 30 * DAY)).toBe(0);
    expect(await balance(inviterId)).toBe(start + 7_000);
    expect(await referralLedger(first)).toEqual([
      [`referral:${first}:share`, 2_000],
      [`referral:${first}:bonus`, 5_000],
    ]);
    expect(await rewardsOf(first)).toEqual([
      { kind: 'share', amount: 2_000, status: 'paid', reason: null, release_at: due, paid_at: due },
      { kind: 'bonus', amount: 5_000, status: 'paid', reason: null, release_at: due, paid_at: due },
    ]);
    const after = await mine();
    expect(after.held).toEqual([]);
    expect(after.earned).toBe(earnedBefore + 70);
    expect(after.invited.find((i) => i.username === 'Pal')?.earned).toBe(70);

    // A second top-up is refunded inside its hold: its share is canceled and never credited.
    const second = await topUp(pal, 300, { ip: '203.0.113.31' });
    expect(await rewardsOf(second)).toEqual([
      { kind: 'share', amount: 3_000, status: 'held', reason: null, release_at: expect.any(Number), paid_at: null },
    ]);
    yoo.refundOutcome = 'succeeded';
    const refund = await t.app.inject(asUser(admin, { method: 'POST', url: `/api/admin/payments/${second}/refund` }));
    expect(refund.statusCode, refund.body).toBe(200);
    expect(await rewardsOf(second)).toEqual([
      { kind: 'share', amount: 3_000, status: 'canceled', reason: 'refunded', release_at: expect.any(Number), paid_at: null },
    ]);
    expect(await releaseHeldRewards(db(), Date.now() + 60 * DAY)).toBe(0);
    expect(await referralLedger(second)).toEqual([]);
    expect(await balance(inviterId)).toBe(start + 7_000);
    expect((await mine()).held).toEqual([]);

    // The first one, refunded after its hold: taken back as before.
    const late = await t.app.inject(asUser(admin, { method: 'POST', url: `/api/admin/payments/${first}/refund` }));
    expect(late.statusCode, late.body).toBe(200);
    expect(await balance(inviterId)).toBe(start);
    expect((await referralLedger(first)).map(([, amount]) => amount)).toEqual([2_000, 5_000, -2_000, -5_000]);
    expect(await findLedgerMismatches(db())).toEqual([]);
    expect(await findPaymentLedgerMismatches(db())).toEqual([]);
  });
});
