import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../db/index.ts';
import { migrations } from '../../db/migrations/index.ts';
import { HttpError } from '../../lib/errors.ts';
import { createPgDatabase, createTestApp, dbKinds, seedUser, type TestApp } from '../../test/test-app.ts';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { idempotent, KEY_TTL_MS, keyCleanupJob, requestFingerprint } from './purchases.keys.ts';
import { purchase, RetryPurchase, type PurchaseSpec } from './purchases.service.ts';

const DAY_MS = 86_400_000;

/** What a refused call threw, as the API would answer it. */
async function refusal(p: Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof HttpError) return { status: err.statusCode, code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe.each(dbKinds)('the purchases core on %s', (kind) => {
  let t: TestApp;
  let ctx: { db: Db; dbKind: 'sqlite' | 'pg' };
  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
    ctx = { db: t.handle.db, dbKind: t.handle.kind };
  });
  afterAll(async () => {
    await t?.handle.close();
    await new Promise((r) => setTimeout(r, 250));
    await t?.close();
  });

  const balance = async (userId: number) =>
    Number((await t.handle.db.selectFrom('users').select('balance').where('id', '=', userId).executeTakeFirstOrThrow()).balance);
  const purchaseRows = (userId: number) =>
    t.handle.db.selectFrom('ledger').selectAll().where('user_id', '=', userId).where('reason', '=', 'purchase').execute();

  /** A purchase of `price` kopecks that counts how often its steps really ran (a replay runs none). */
  function spec(userId: number, key: string | undefined, request: unknown, price: number, runs: { n: number }) {
    return {
      kind: 'shop',
      userId,
      key,
      request,
      price: async () => ({ price }),
      record: async () => {
        runs.n += 1;
        return { ledger: { ref: `test:${runs.n}`, note: 'Тест' } };
      },
      deliver: async (_trx, _recorded, newBalance) => ({ new_balance: newBalance, run: runs.n }),
    } satisfies PurchaseSpec<{ price: number }, { ledger: { ref: string; note: string } }, { new_balance: number; run: number }>;
  }

  it('replays one key: 5 parallel requests get the same answer and the balance is debited once', async () => {
    const userId = await seedUser(t, 'Parallel', { balanceKopecks: 10_000 });
    const runs = { n: 0 };
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => purchase(ctx, spec(userId, 'parallel-key-0001', { shop_id: 1, quantity: 2 }, 2500, runs))),
    );
    expect(answers).toEqual(Array.from({ length: 5 }, () => ({ new_balance: 7500, run: 1 })));
    expect(runs.n).toBe(1);
    expect(await balance(userId)).toBe(7500);
    expect(await purchaseRows(userId)).toHaveLength(1);
    // Later, too: the stored answer, nothing run.
    expect(await purchase(ctx, spec(userId, 'parallel-key-0001', { quantity: 2, shop_id: 1 }, 2500, runs))).toEqual({
      new_balance: 7500,
      run: 1,
    });
    expect(runs.n).toBe(1);
    const keys = await t.handle.db.selectFrom('purchase_keys').selectAll().where('user_id', '=', userId).execute();
    expect(keys).toEqual([expect.objectContaining({ key: 'parallel-key-0001', kind: 'shop' })]);
    expect(await findLedgerMismatches(t.handle.db)).toEqual([]);
  });

  it('refuses a key reused with another body or for another kind of purchase, changing nothing', async () => {
    const userId = await seedUser(t, 'Reuser', { balanceKopecks: 10_000 });
    const runs = { n: 0 };
    await purchase(ctx, spec(userId, 'reused-key-0001', { shop_id: 1, quantity: 2 }, 1000, runs));
    for (const other of [
      spec(userId, 'reused-key-0001', { shop_id: 1, quantity: 3 }, 1000, runs),
      spec(userId, 'reused-key-0001', { shop_id: 2, quantity: 2 }, 1000, runs),
      { ...spec(userId, 'reused-key-0001', { shop_id: 1, quantity: 2 }, 1000, runs), kind: 'tier' as const },
    ]) {
      expect(await refusal(purchase(ctx, other))).toEqual({
        status: 409,
        code: 'idempotency_key_reused',
        message: 'Этот ключ Idempotency-Key уже использован для другой покупки',
      });
    }
    // 5 at once with another body: all refused, none runs.
    const parallel = await Promise.all(
      Array.from({ length: 5 }, () => refusal(purchase(ctx, spec(userId, 'reused-key-0001', { shop_id: 9, quantity: 1 }, 1000, runs)))),
    );
    expect(new Set(parallel.map((r) => r.code))).toEqual(new Set(['idempotency_key_reused']));
    expect(runs.n).toBe(1);
    expect(await balance(userId)).toBe(9000);
    expect(await purchaseRows(userId)).toHaveLength(1);
  });

  it('keeps no key for a refused purchase: the same key buys once the player can pay; keys are per player', async () => {
    const userId = await seedUser(t, 'Short', { balanceKopecks: 500 });
    const runs = { n: 0 };
    const request = { shop_id: 3, quantity: 1 };
    expect(await refusal(purchase(ctx, spec(userId, 'short-key-0001', request, 800, runs)))).toEqual({
      status: 400,
      code: 'insufficient_funds',
      message: 'Недостаточно средств на балансе',
    });
    expect(await t.handle.db.selectFrom('purchase_keys').select('key').where('user_id', '=', userId).execute()).toEqual([]);
    expect(await balance(userId)).toBe(500);
    await t.handle.db
      .transaction()
      .execute(async (trx) =>
        (await import('../ledger/ledger.service.ts')).postLedger(trx, { userId, amount: 500, reason: 'adjustment', authorId: null }),
      );
    expect(await purchase(ctx, spec(userId, 'short-key-0001', request, 800, runs))).toEqual({ new_balance: 200, run: 2 });
    // Another player's same key is that player's own purchase.
    const other = await seedUser(t, 'Other_Short', { balanceKopecks: 1000 });
    expect(await purchase(ctx, spec(other, 'short-key-0001', request, 800, runs))).toEqual({ new_balance: 200, run: 3 });
    // Without a key every request is a purchase of its own.
    const free = await seedUser(t, 'No_Key', { balanceKopecks: 1000 });
    await purchase(ctx, spec(free, undefined, request, 100, runs));
    await purchase(ctx, spec(free, undefined, request, 100, runs));
    expect(await balance(free)).toBe(800);
  });

  it('a discount never goes below zero nor above the price; a step that refuses rolls its writes back', async () => {
    const userId = await seedUser(t, 'Discounted', { balanceKopecks: 1000 });
    const runs = { n: 0 };
    const over = { ...spec(userId, 'discount-key-01', { a: 1 }, 300, runs), discount: async () => 1000 };
    expect(await purchase(ctx, over)).toEqual({ new_balance: 1000, run: 1 });
    const under = { ...spec(userId, 'discount-key-02', { a: 2 }, 300, runs), discount: async () => -50 };
    expect(await purchase(ctx, under)).toEqual({ new_balance: 700, run: 2 });
    const failing = {
      ...spec(userId, 'discount-key-03', { a: 3 }, 300, runs),
      deliver: async (): Promise<{ new_balance: number; run: number }> => {
        throw new HttpError(409, 'Нельзя', { code: 'conflict' });
      },
    };
    expect((await refusal(purchase(ctx, failing))).code).toBe('conflict');
    expect(await balance(userId)).toBe(700);
    expect(await t.handle.db.selectFrom('purchase_keys').select('key').where('user_id', '=', userId).orderBy('key').execute()).toEqual([
      { key: 'discount-key-01' },
      { key: 'discount-key-02' },
    ]);
  });

  it('takes what buyers share last; a take that finds the item changed runs the purchase again, and refuses after three tries', async () => {
    const userId = await seedUser(t, 'Taker', { balanceKopecks: 1000 });
    const runs = { n: 0 };
    const order: string[] = [];
    let changes = 1;
    const changing = {
      ...spec(userId, 'take-key-000001', { a: 1 }, 200, runs),
      deliver: async (_trx: Db, _r: unknown, newBalance: number) => {
        order.push('deliver');
        return { new_balance: newBalance, run: runs.n };
      },
      take: async () => {
        order.push('take');
        if (changes-- > 0) throw new RetryPurchase(new HttpError(409, 'Изменился', { code: 'sale_changed' }));
      },
    };
    // The first try's writes rolled back with it: one debit, one key.
    expect(await purchase(ctx, changing)).toEqual({ new_balance: 800, run: 2 });
    expect(order).toEqual(['deliver', 'take', 'deliver', 'take']);
    expect((await purchaseRows(userId)).length).toBe(1);
    const never = {
      ...spec(userId, 'take-key-000002', { a: 2 }, 200, runs),
      take: async () => {
        throw new RetryPurchase(new HttpError(409, 'Изменился', { code: 'sale_changed' }));
      },
    };
    expect(await refusal(purchase(ctx, never))).toEqual({ status: 409, code: 'sale_changed', message: 'Изменился' });
    expect(await balance(userId)).toBe(800);
    expect((await purchaseRows(userId)).length).toBe(1);
  });

  it('answers a key the previous release wrote to its own table during the rolling restart', async () => {
    const userId = await seedUser(t, 'Legacy');
    const now = Date.now();
    const answer = { new_balance: 12.5, message: 'Покупка совершена! Предмет будет выдан в игре.', order_id: 77 };
    await t.handle.db
      .insertInto('shop_idempotency')
      .values([
        { user_id: userId, key: 'legacy-key-0001', request: '5:2', response: JSON.stringify(answer), created_at: now },
        { user_id: userId, key: 'legacy-key-old1', request: '5:2', response: '{"order_id":1}', created_at: now - KEY_TTL_MS - 1000 },
      ])
      .execute();
    const run = () => Promise.reject(new Error('must not run'));
    expect(
      await idempotent(t.handle.db, { userId, key: 'legacy-key-0001', kind: 'shop', request: { shop_id: 5, quantity: 2 } }, run),
    ).toEqual(answer);
    expect(
      (await refusal(idempotent(t.handle.db, { userId, key: 'legacy-key-0001', kind: 'shop', request: { shop_id: 5, quantity: 1 } }, run)))
        .code,
    ).toBe('idempotency_key_reused');
    // One older than a week is gone, as it would be from the new table.
    expect(
      await idempotent(
        t.handle.db,
        { userId, key: 'legacy-key-old1', kind: 'shop', request: { shop_id: 5, quantity: 2 } },
        async () => 'new',
      ),
    ).toBe('new');
  });

  it('the cleanup job drops keys older than a week, and only those', async () => {
    const userId = await seedUser(t, 'Cleaner');
    const now = Date.now();
    const row = (key: string, age: number) => ({ user_id: userId, key, kind: 'shop', request: 'x', response: '{}', created_at: now - age });
    await t.handle.db
      .insertInto('purchase_keys')
      .values([row('clean-old-00001', 8 * DAY_MS), row('clean-new-00001', 6 * DAY_MS)])
      .execute();
    await keyCleanupJob(t.handle.db).run(new AbortController().signal);
    expect((await t.handle.db.selectFrom('purchase_keys').select('key').where('user_id', '=', userId).execute()).map((r) => r.key)).toEqual(
      ['clean-new-00001'],
    );
  });

  it('the migration moves the live keys of both old tables, so a retry across the upgrade replays', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kubik-keys-'));
    const pgDb = kind === 'pg' ? await createPgDatabase() : null;
    const handle = openDatabase({ databaseUrl: pgDb?.url, sqlitePath: path.join(dir, 'db.sqlite') });
    try {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const db = handle.db as unknown as Kysely<any>;
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      const names = Object.keys(migrations).sort();
      const before = await migrator.migrateTo(names[names.indexOf('2026112620_purchase_keys') - 1]!);
      expect(before.error).toBeUndefined();
      const now = Date.now();
      const user = (name: string) => ({
        username: name,
        username_lower: name.toLowerCase(),
        email: `${name.toLowerCase()}@x.ru`,
        email_lower: `${name.toLowerCase()}@x.ru`,
        password_hash: 'x',
        is_admin: 0,
        balance: 0,
        created_at: now,
        uuid: `00000000-0000-3000-8000-00000000000${name.length}`,
      });
      const { id: steve } = await db.insertInto('users').values(user('Steve')).returning('id').executeTakeFirstOrThrow();
      const { id: alex } = await db.insertInto('users').values(user('Alex_X')).returning('id').executeTakeFirstOrThrow();
      const shopAnswer = { new_balance: 75, message: 'Покупка совершена! Предмет будет выдан в игре.', order_id: 3 };
      const tierAnswer = {
        new_balance: 50,
        message: 'Привилегия VIP куплена! Команды будут выполнены в игре.',
        expires_at: now,
        privilege_id: 1,
      };
      await db
        .insertInto('shop_idempotency')
        .values([
          {
            user_id: steve,
            key: 'buy-live-000001',
            request: '12:2',
            order_id: 3,
            response: JSON.stringify(shopAnswer),
            created_at: now - DAY_MS,
          },
          { user_id: steve, key: 'buy-stale-00001', request: '12:1', order_id: 2, response: '{}', created_at: now - 8 * DAY_MS },
          // A key used for an item and then a tier: the first use stays.
          {
            user_id: alex,
            key: 'both-tables-001',
            request: '4:1',
            order_id: 4,
            response: JSON.stringify(shopAnswer),
            created_at: now - 2000,
          },
        ])
        .execute();
      await db
        .insertInto('privilege_idempotency')
        .values([
          { user_id: steve, key: 'tier-live-00001', request: '7:3', response: JSON.stringify(tierAnswer), created_at: now - 1000 },
          { user_id: alex, key: 'both-tables-001', request: '7:1', response: JSON.stringify(tierAnswer), created_at: now - 1000 },
        ])
        .execute();

      const after = await migrator.migrateToLatest();
      expect(after.error).toBeUndefined();
      const moved = await handle.db.selectFrom('purchase_keys').selectAll().orderBy('key').execute();
      expect(moved.map((r) => [r.user_id, r.key, r.kind])).toEqual([
        [alex, 'both-tables-001', 'shop'],
        [steve, 'buy-live-000001', 'shop'],
        [steve, 'tier-live-00001', 'tier'],
      ]);
      expect(moved.find((r) => r.key === 'buy-live-000001')?.request).toBe(requestFingerprint('shop', { shop_id: 12, quantity: 2 }));

      // The helper answers them as their first answers, before the old tables are even asked.
      await handle.db.deleteFrom('shop_idempotency').execute();
      await handle.db.deleteFrom('privilege_idempotency').execute();
      const run = () => Promise.reject(new Error('must not run'));
      expect(
        await idempotent(handle.db, { userId: steve, key: 'buy-live-000001', kind: 'shop', request: { shop_id: 12, quantity: 2 } }, run),
      ).toEqual(shopAnswer);
      expect(
        await idempotent(handle.db, { userId: steve, key: 'tier-live-00001', kind: 'tier', request: { tier_id: 7, months: 3 } }, run),
      ).toEqual(tierAnswer);
      expect(
        (
          await refusal(
            idempotent(handle.db, { userId: alex, key: 'both-tables-001', kind: 'tier', request: { tier_id: 7, months: 1 } }, run),
          )
        ).code,
      ).toBe('idempotency_key_reused');
    } finally {
      await handle.close();
      await pgDb?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
