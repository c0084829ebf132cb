import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { closeTestApp } from './shop.test-helpers.ts';

const SERVER_DIR = path.resolve(import.meta.dirname, '../../..');

describe.each(dbKinds)('npm run check:ledger on %s', (kind) => {
  let t: TestApp;
  let dataDir: string;
  let steve: number;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'kubik-ledger-'));
    t = await createTestApp(kind, { workers: false, dataDir, sqlitePath: path.join(dataDir, 'kubik.sqlite') });
    await seedUser(t, 'Admin', { admin: true });
    steve = await seedUser(t, 'Steve', { balanceKopecks: 10_000 });
    const admin = await loginAs(t, 'Admin');
    const player = await loginAs(t, 'Steve');
    const item = await t.app.inject(
      asUser(admin, { method: 'POST', url: '/api/shop/admin/create', payload: { name: 'Меч', price: 12.34, count: 5, icon: '/s.png' } }),
    );
    expect(
      (await t.app.inject(asUser(player, { method: 'POST', url: '/api/shop/buy', payload: { shop_id: item.json().id, quantity: 2 } })))
        .statusCode,
    ).toBe(200);
  });
  afterAll(async () => {
    await closeTestApp(t);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const check = () => {
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      ...(kind === 'pg' ? { DATABASE_URL: t.app.ctx.config.databaseUrl } : {}),
    };
    const res = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/check-ledger.ts'], { cwd: SERVER_DIR, env, encoding: 'utf8' });
    return { status: res.status, out: res.stdout + res.stderr };
  };

  it('reports a consistent ledger and exits 0', () => {
    const { status, out } = check();
    expect(out).toContain('Проверено пользователей: 2, записей в журнале баланса: 2.');
    expect(out).toContain('Итог: расхождений нет.');
    expect(status).toBe(0);
  });

  it('names the user whose balance differs from their rows, and a purchase without its row, and exits 1', async () => {
    await t.handle.db
      .updateTable('users')
      .set({ balance: sql<number>`balance + 1` })
      .where('id', '=', steve)
      .execute();
    let res = check();
    expect(res.status).toBe(1);
    expect(res.out).toMatch(/Steve \(id \d+\): баланс 75,33\s₽, сумма по журналу 75,32\s₽, разница 0,01\s₽/);
    expect(res.out).toContain('Итог: найдены расхождения.');

    // Balances agree again, but the purchase's row is gone (and its amount booked as something else).
    await t.handle.db
      .updateTable('users')
      .set({ balance: sql<number>`balance - 1` })
      .where('id', '=', steve)
      .execute();
    await t.handle.db.updateTable('ledger').set({ reason: 'adjustment' }).where('reason', '=', 'purchase').execute();
    res = check();
    expect(res.status).toBe(1);
    expect(res.out).toMatch(/Заказ №\d+: записей о покупке в журнале 0/);
    expect(res.out).toContain('Балансы: все совпадают');
  });
});
