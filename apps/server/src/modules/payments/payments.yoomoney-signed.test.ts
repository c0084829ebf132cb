import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeYooMoney, type YooMoneyOperation } from '../../../../../testing/payments/yoomoney-server.ts';
import { openDatabase } from '../../db/index.ts';
import { migrateToLatest, runMigrations } from '../../db/migrate.ts';
import { migrations } from '../../db/migrations/index.ts';
import { paymentsConfig } from '../../test/payments.ts';
import { asUser, createPgDatabase, createTestApp, dbKinds, loginAs, seedUser, startInstance, type TestApp } from '../../test/test-app.ts';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { findPaymentLedgerMismatches } from './payments.ledger-check.ts';
import { redactSignatures } from './payments.redact.ts';

const YOOMONEY_IP = '77.75.158.1';

/**
 * ЮMoney's notification is taken on its word only for what its sha1_hash covers: `amount` (what
 * reached the wallet) must cover the asked sum less ЮMoney's largest commission, `withdraw_amount`
 * (outside the hash) decides nothing, each operation is judged once — refused ones too — and the
 * hash is never kept or shown in the payment's events.
 */
describe.each(dbKinds)('ЮMoney notifications judged on their signed fields on %s', (kind) => {
  let t: TestApp;
  let ym: FakeYooMoney;
  let owner: string;
  let viewer: string;
  let player: string;
  let playerId: number;

  beforeAll(async () => {
    ym = await new FakeYooMoney().start();
    t = await createTestApp(kind, {
      workers: false,
      secretsKey: 'test-secrets-key-0123456789abcdef0123',
      payments: paymentsConfig(null, null, {
        notifyPerIp: 10_000,
        yoomoney: { wallet: ym.wallet, notificationSecret: ym.secret, formUrl: ym.formUrl, apiUrl: ym.apiUrl },
      }),
    });
    await seedUser(t, 'Owner', { admin: true });
    owner = await loginAs(t, 'Owner');
    // Staff who may only look at payments.
    const viewerId = await seedUser(t, 'PayViewer');
    const role = await t.app.inject(
      asUser(owner, { method: 'POST', url: '/api/admin/roles', payload: { name: 'Только платежи', permissions: ['payments.view'] } }),
    );
    expect(role.statusCode, role.body).toBe(200);
    const given = await t.app.inject(
      asUser(owner, { method: 'PUT', url: `/api/admin/users/${viewerId}/role`, payload: { role_id: role.json().id } }),
    );
    expect(given.statusCode, given.body).toBe(200);
    viewer = await loginAs(t, 'PayViewer');
    playerId = await seedUser(t, 'YmSigned');
    player = await loginAs(t, 'YmSigned');
    ym.notificationUrl = null;
  });
  afterAll(async () => {
    await t?.close();
    await ym?.stop();
  });

  const db = () => t.handle.db;
  const balance = async () =>
    Number((await db().selectFrom('users').select('balance').where('id', '=', playerId).executeTakeFirstOrThrow()).balance);
  const payment = (id: string) => db().selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const credits = async (id: string) =>
    db().selectFrom('ledger').select(['reason', 'amount']).where('ref', '=', `payment:${id}`).orderBy('id').execute();
  const events = (id: string) =>
    db().selectFrom('payment_events').select(['kind', 'outcome', 'body']).where('payment_id', '=', id).orderBy('id').execute();
  const operations = (operationId: string) =>
    db().selectFrom('payment_operations').selectAll().where('provider', '=', 'yoomoney').where('operation_id', '=', operationId).execute();
  const ledgerClean = async () => {
    expect(await findLedgerMismatches(db())).toEqual([]);
    expect(await findPaymentLedgerMismatches(db())).toEqual([]);
  };
  const notify = (fields: Record<string, string>, app = t.app) =>
    app.inject({
      method: 'POST',
      url: '/api/payments/yoomoney/notify',
      payload: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      remoteAddress: YOOMONEY_IP,
    });
  /** A top-up the player starts (its label is the payment's id). */
  async function start(amount: number): Promise<string> {
    const res = await t.app.inject(asUser(player, { method: 'POST', url: '/api/payments', payload: { amount, provider: 'yoomoney' } }));
    expect(res.statusCode, res.body).toBe(201);
    return (res.json() as { id: string }).id;
  }
  /** A transfer to the wallet under `label`: `amount` reached it, the payer paid `sum`. */
  const transfer = (label: string, amount: string, sum: string, paymentType: 'AC' | 'PC' = 'AC'): YooMoneyOperation =>
    ym.record({ label, amount, sum, paymentType });

  it('the issue’s replay: 9,70 ₽ genuinely paid for 1 000 ₽ is refused, and so is the same notification saying withdraw_amount=1000.00', async () => {
    const id = await start(1000);
    const op = transfer(id, '9.70', '10.00');
    const genuine = ym.notificationFor(op);
    expect(genuine).toMatchObject({ amount: '9.70', withdraw_amount: '10.00' });
    const first = await notify(genuine);
    expect(first.statusCode).toBe(200);
    expect(await payment(id)).toMatchObject({ status: 'pending' });
    // Only withdraw_amount changed: the sha1_hash still checks out, since it does not cover it.
    const replay: Record<string, string> = { ...genuine, withdraw_amount: '1000.00' };
    expect(replay.sha1_hash).toBe(genuine.sha1_hash);
    const second = await notify(replay);
    expect(second.statusCode).toBe(200);
    expect(await payment(id)).toMatchObject({ status: 'pending', paid_at: null });
    expect(await balance()).toBe(0);
    expect(await credits(id)).toEqual([]);
    // The first verdict is the operation's: kept once, the replay names it.
    expect(await operations(op.operation_id)).toMatchObject([{ payment_id: id, outcome: expect.stringContaining('не зачислено') }]);
    const outcomes = (await events(id)).filter((e) => e.kind === 'fetch').map((e) => e.outcome);
    expect(outcomes[0]).toContain('пришло 9,7');
    expect(outcomes[0]).toContain('не меньше 970');
    expect(outcomes[1]).toContain(`операция ${op.operation_id} уже рассмотрена`);
    await ledgerClean();
  });

  it('a notification first seen with withdraw_amount raised is judged on its signed amount alone', async () => {
    const id = await start(1000);
    const op = transfer(id, '9.70', '10.00');
    expect((await notify({ ...ym.notificationFor(op), withdraw_amount: '1000.00' })).statusCode).toBe(200);
    expect(await payment(id)).toMatchObject({ status: 'pending' });
    expect(await balance()).toBe(0);
    // Without withdraw_amount at all: still judged on amount.
    const id2 = await start(1000);
    const op2 = transfer(id2, '970.00', '1000.00');
    const { withdraw_amount: _dropped, ...bare } = ym.notificationFor(op2);
    expect((await notify(bare)).statusCode).toBe(200);
    expect(await payment(id2)).toMatchObject({ status: 'succeeded', provider_operation_id: op2.operation_id });
    expect(await balance()).toBe(100_000);
    await ledgerClean();
  });

  it('the signed amount must cover the asked sum less 3 %: 970,00 ₽ credits 1 000 ₽, 969,99 ₽ does not; a wallet payment credits; withdraw_amount lowered changes nothing', async () => {
    const before = await balance();
    const short = await start(1000);
    // ЮMoney's own sha1_hash over 969.99, with withdraw_amount claiming the full sum.
    expect((await notify(ym.notificationFor(transfer(short, '969.99', '1000.00')))).statusCode).toBe(200);
    expect(await payment(short)).toMatchObject({ status: 'pending' });
    expect(await balance()).toBe(before);

    // A card payment of 1 000 ₽ as ЮMoney does it (3 % off what reaches the wallet).
    const card = await start(1000);
    const cardOp = transfer(card, '970.00', '1000.00');
    // withdraw_amount tampered down: nothing reads it.
    expect((await notify({ ...ym.notificationFor(cardOp), withdraw_amount: '1.00' })).statusCode).toBe(200);
    expect(await payment(card)).toMatchObject({ status: 'succeeded', provider_operation_id: cardOp.operation_id });
    expect(await credits(card)).toEqual([{ reason: 'topup', amount: 100_000 }]);

    // From a ЮMoney wallet (PC): 1 000 ₽ less 1000·0.01/1.01 = 990,09 ₽ arrives.
    const wallet = await start(1000);
    const walletOp = transfer(wallet, '990.09', '1000.00', 'PC');
    expect(ym.notificationFor(walletOp).notification_type).toBe('p2p-incoming');
    expect((await notify(ym.notificationFor(walletOp))).statusCode).toBe(200);
    expect(await payment(wallet)).toMatchObject({ status: 'succeeded' });
    // Odd kopecks: 150,50 ₽ less 3 % (4,52 ₽, rounded up) = 145,98 ₽ credits; 145,97 ₽ does not.
    const odd = await start(150.5);
    expect((await notify(ym.notificationFor(transfer(odd, '145.97', '150.50')))).statusCode).toBe(200);
    expect(await payment(odd)).toMatchObject({ status: 'pending' });
    expect((await notify(ym.notificationFor(transfer(odd, '145.98', '150.50')))).statusCode).toBe(200);
    expect(await payment(odd)).toMatchObject({ status: 'succeeded' });
    // The asked amounts exactly, never what a notification claims.
    expect(await balance()).toBe(before + 100_000 + 100_000 + 15_050);
    await ledgerClean();
  });

  it('a transfer announced as not accepted (unaccepted is outside the hash) is never taken later without the flag', async () => {
    const id = await start(500);
    const op = transfer(id, '485.00', '500.00');
    const held = ym.notificationFor(op, { unaccepted: 'true' });
    expect((await notify(held)).statusCode).toBe(403);
    expect(await operations(op.operation_id)).toMatchObject([{ payment_id: id, outcome: expect.stringContaining('unaccepted') }]);
    // ЮMoney repeats it: still refused, the operation judged once.
    expect((await notify(held)).statusCode).toBe(403);
    expect(await operations(op.operation_id)).toHaveLength(1);
    // The same hash with the flag dropped.
    const { unaccepted: _flag, ...dropped } = held;
    expect(dropped.sha1_hash).toBe(held.sha1_hash);
    expect((await notify(dropped)).statusCode).toBe(200);
    expect((await notify({ ...dropped, unaccepted: 'false' })).statusCode).toBe(200);
    expect(await payment(id)).toMatchObject({ status: 'pending' });
    expect(await credits(id)).toEqual([]);
    const outcomes = (await events(id)).map((e) => e.outcome);
    expect(outcomes.filter((o) => o.includes(`операция ${op.operation_id}`))).toHaveLength(3);
    // A forged notification (wrong hash) naming another operation marks nothing: refusals stay counted, not kept.
    const forged = ym.notificationFor({ ...op, operation_id: '123123123' }, { unaccepted: 'true', sha1_hash: 'f'.repeat(40) });
    expect((await notify(forged)).statusCode).toBe(403);
    expect(await operations('123123123')).toEqual([]);
  });

  it('notifications of one operation racing (genuine, replayed, withdraw_amount changed) credit it once or not at all', async () => {
    // On PostgreSQL the notifications also arrive at a second instance on the same database.
    const other = kind === 'pg' ? await startInstance(t.app.ctx.config.databaseUrl!, { payments: t.app.ctx.config.payments }) : null;
    try {
      const apps = other ? [t.app, other.app] : [t.app];
      const before = await balance();
      // Enough: credited exactly once.
      const paid = await start(300);
      const good = transfer(paid, '291.00', '300.00');
      const copies = Array.from({ length: 12 }, (_, i) => ({ ...ym.notificationFor(good), withdraw_amount: `${300 + i}.00` }));
      const answers = await Promise.all(copies.map((f, i) => notify(f, apps[i % apps.length])));
      expect(answers.map((a) => a.statusCode)).toEqual(Array(12).fill(200));
      expect(await payment(paid)).toMatchObject({ status: 'succeeded', provider_operation_id: good.operation_id });
      expect(await credits(paid)).toEqual([{ reason: 'topup', amount: 30_000 }]);
      expect(await operations(good.operation_id)).toMatchObject([{ outcome: expect.stringMatching(/^зачислено 300\s₽$/) }]);
      expect((await events(paid)).filter((e) => e.outcome.includes('уже рассмотрена'))).toHaveLength(11);
      // Too little, raced with copies claiming the whole sum: never credited.
      const unpaid = await start(300);
      const little = transfer(unpaid, '29.10', '30.00');
      const raced = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          notify(i % 2 ? { ...ym.notificationFor(little), withdraw_amount: '300.00' } : ym.notificationFor(little), apps[i % apps.length]),
        ),
      );
      expect(raced.every((a) => a.statusCode === 200)).toBe(true);
      expect(await payment(unpaid)).toMatchObject({ status: 'pending' });
      expect(await credits(unpaid)).toEqual([]);
      expect(await operations(little.operation_id)).toHaveLength(1);
      // Two different genuine operations paying one payment at once: one credits, the other changes nothing.
      const twice = await start(200);
      const [a, b] = [transfer(twice, '194.00', '200.00'), transfer(twice, '194.00', '200.00')];
      await Promise.all([notify(ym.notificationFor(a), apps[0]), notify(ym.notificationFor(b), apps.at(-1))]);
      expect(await credits(twice)).toEqual([{ reason: 'topup', amount: 20_000 }]);
      expect(await balance()).toBe(before + 30_000 + 20_000);
      await ledgerClean();
    } finally {
      await other?.close();
    }
  });

  it('the payment’s events shown to payments.view staff carry no notification hash (old rows stored with one included)', async () => {
    const id = await start(100);
    const op = transfer(id, '97.00', '100.00');
    const genuine = ym.notificationFor(op);
    expect((await notify(genuine)).statusCode).toBe(200);
    expect(await payment(id)).toMatchObject({ status: 'succeeded' });
    // Stored without it; what the payer paid is kept for the owner.
    const stored = (await events(id)).find((e) => e.kind === 'notification')!;
    expect(stored.body).not.toContain(genuine.sha1_hash);
    expect(JSON.parse(stored.body!)).toMatchObject({ sha1_hash: '[скрыто]', withdraw_amount: '100.00', amount: '97.00' });
    // Rows an older version kept whole: ЮMoney's hash, T-Bank's Token, FreeKassa's SIGN (JSON and form).
    const old = [
      JSON.stringify(genuine),
      JSON.stringify({ TerminalKey: 'T1', OrderId: id, Status: 'CONFIRMED', Token: 'a'.repeat(64) }),
      `MERCHANT_ID=1&AMOUNT=100&intid=5&MERCHANT_ORDER_ID=${id}&SIGN=${'b'.repeat(32)}`,
    ];
    for (const body of old)
      await db()
        .insertInto('payment_events')
        .values({
          payment_id: id,
          provider: 'yoomoney',
          kind: 'notification',
          ip: YOOMONEY_IP,
          outcome: 'старое',
          body,
          created_at: Date.now(),
        })
        .execute();
    const res = await t.app.inject(asUser(viewer, { method: 'GET', url: `/api/admin/payments/${id}` }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).not.toContain(genuine.sha1_hash);
    expect(res.body).not.toContain('a'.repeat(64));
    expect(res.body).not.toContain('b'.repeat(32));
    const shown = (res.json() as { events: { body: string | null }[] }).events.map((e) => e.body ?? '');
    expect(shown.filter((b) => b.includes('[скрыто]'))).toHaveLength(4);
    expect(shown.some((b) => b.includes('"withdraw_amount":"100.00"'))).toBe(true);
  });

  it('with an OAuth token the wallet’s history decides, whatever the notification’s withdraw_amount says', async () => {
    const set = await t.app.inject(
      asUser(owner, { method: 'PUT', url: '/api/admin/payment-providers/yoomoney', payload: { secrets: { oauth_token: ym.oauthToken } } }),
    );
    expect(set.statusCode, set.body).toBe(200);
    try {
      const id = await start(1000);
      const op = transfer(id, '9.70', '10.00');
      expect((await notify({ ...ym.notificationFor(op), withdraw_amount: '1000.00' })).statusCode).toBe(200);
      expect(await payment(id)).toMatchObject({ status: 'pending' });
      expect((await events(id)).some((e) => e.kind === 'fetch' && e.outcome.includes('не зачислено'))).toBe(true);
      // The real money arrives under the label: the history credits it, once.
      const real = transfer(id, '970.00', '1000.00');
      expect((await notify(ym.notificationFor(real))).statusCode).toBe(200);
      expect(await payment(id)).toMatchObject({ status: 'succeeded', provider_operation_id: real.operation_id });
      expect(await credits(id)).toEqual([{ reason: 'topup', amount: 100_000 }]);
    } finally {
      await t.app.inject(
        asUser(owner, { method: 'PUT', url: '/api/admin/payment-providers/yoomoney', payload: { secrets: { oauth_token: null } } }),
      );
    }
    await ledgerClean();
  });
});

describe('signatures in stored event bodies', () => {
  it('are replaced in JSON (also cut off), forms and query strings; other fields stay', () => {
    expect(JSON.parse(redactSignatures(JSON.stringify({ amount: '9.70', sha1_hash: 'abc', withdraw_amount: '10.00' })))).toEqual({
      amount: '9.70',
      sha1_hash: '[скрыто]',
      withdraw_amount: '10.00',
    });
    expect(redactSignatures('{"Status":"CONFIRMED","Token":"dead\\"beef","Amount":100}')).toBe(
      '{"Status":"CONFIRMED","Token":"[скрыто]","Amount":100}',
    );
    expect(redactSignatures('{"a":1,"signature" : "0123')).toBe('{"a":1,"signature" : "[скрыто]"');
    expect(redactSignatures('{"SIGN":12345,"x":2}')).toBe('{"SIGN":"[скрыто]","x":2}');
    expect(redactSignatures('MERCHANT_ID=1&SIGN=abc&intid=5')).toBe('MERCHANT_ID=1&SIGN=[скрыто]&intid=5');
    expect(redactSignatures('sha1_hash=abc&label=x')).toBe('sha1_hash=[скрыто]&label=x');
    // Names that merely contain a key are not touched.
    expect(redactSignatures('{"design":"x","token_type":"bearer","signed":true}')).toBe(
      '{"design":"x","token_type":"bearer","signed":true}',
    );
  });
});

describe.each(dbKinds)('the payment_operations migration on %s', (kind) => {
  it('marks transfers that already credited as used and takes the signatures out of stored events', async () => {
    const pgDb = kind === 'pg' ? await createPgDatabase() : null;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kubik-migrate-'));
    const handle = openDatabase({ databaseUrl: pgDb?.url, sqlitePath: path.join(dir, 'kubik.sqlite') });
    try {
      const name = '2026120620_payment_operations';
      const { [name]: _later, ...before } = migrations;
      await runMigrations(handle.db, before);
      const db = handle.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
      const now = Date.now();
      const user = await db
        .insertInto('users')
        .values({
          username: 'Old',
          username_lower: 'old',
          email: 'old@example.com',
          email_lower: 'old@example.com',
          password_hash: 'x',
          is_admin: 0,
          balance: 0,
          created_at: now,
          uuid: '00000000-0000-3000-8000-000000000001',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const pay = (id: string, operation: string | null) => ({
        id,
        user_id: user.id,
        provider: 'yoomoney',
        amount: 10_000,
        status: operation ? 'succeeded' : 'pending',
        provider_payment_id: id,
        provider_operation_id: operation,
        created_at: now,
        updated_at: now,
        paid_at: operation ? now : null,
      });
      await db
        .insertInto('payments')
        .values([pay('11111111-1111-4111-8111-111111111111', '900001'), pay('22222222-2222-4222-8222-222222222222', null)])
        .execute();
      const hashed = JSON.stringify({ operation_id: '900001', amount: '97.00', sha1_hash: 'c'.repeat(40) });
      for (const body of [hashed, '{"Status":"NEW"}', null])
        await db
          .insertInto('payment_events')
          .values({
            payment_id: '11111111-1111-4111-8111-111111111111',
            provider: 'yoomoney',
            kind: 'notification',
            outcome: 'x',
            body,
            created_at: now,
          })
          .execute();
      await migrateToLatest(handle);
      const used = await db.selectFrom('payment_operations').selectAll().execute();
      expect(used).toMatchObject([{ provider: 'yoomoney', operation_id: '900001', payment_id: '11111111-1111-4111-8111-111111111111' }]);
      const bodies = (await db.selectFrom('payment_events').select('body').orderBy('id').execute()).map((r) => r.body);
      expect(bodies).toEqual([hashed.replace('c'.repeat(40), '[скрыто]'), '{"Status":"NEW"}', null]);
    } finally {
      await handle.close();
      await pgDb?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
