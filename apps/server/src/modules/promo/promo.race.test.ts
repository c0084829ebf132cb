import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, startInstance, type TestApp } from '../../test/test-app.ts';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { findShopLedgerMismatches } from '../shop/shop.service.ts';
import { addServer, balanceOf, closeTestApp, quickPlayer } from '../shop/shop.test-helpers.ts';

// A promo code's limits — per player and in all — hold when purchases race, on PostgreSQL also
// when they race across two instances of the site on one database.
describe.each(dbKinds)('promo code limits under racing purchases on %s', (kind) => {
  let t: TestApp;
  let other: Awaited<ReturnType<typeof startInstance>> | null = null;
  let admin: string;
  let itemId: number;
  let tierId: number;
  let seq = 0;

  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
    if (kind === 'pg') other = await startInstance(t.app.ctx.config.databaseUrl!);
    await seedUser(t, 'Admin', { admin: true });
    admin = await loginAs(t, 'Admin');
    const serverId = await addServer(t, { name: 'Выживание', rcon_port: 25575, rcon_password: 'pw' });
    const item = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/shop/admin/create',
        payload: { name: 'Алмаз', price: 100, count: null, icon: 'https://example.com/icons/diamond.png' },
      }),
    );
    expect(item.statusCode, item.body).toBe(201);
    itemId = item.json<{ id: number }>().id;
    const tier = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/donate/add',
        payload: {
          title: 'VIP',
          content: 'Для тех, кто играет каждый день',
          amount: 300,
          currency: '₽',
          server_ids: [serverId],
          grant_commands: ['say grant {player} {tier}'],
          revoke_commands: ['say revoke {player} {tier}'],
        },
      }),
    );
    expect(tier.statusCode, tier.body).toBe(201);
    tierId = tier.json<{ id: number }>().id;
  }, 120_000);
  afterAll(async () => {
    await other?.close();
    await closeTestApp(t);
  });

  /** Every other request goes to the second instance (on PostgreSQL). */
  const app = (i: number) => (i % 2 === 1 && other ? other.app : t.app);
  const newPromo = async (fields: object) => {
    const res = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/admin/promo-codes',
        payload: { code: `RACE${kind}${++seq}`, kind: 'percent', value: 20, applies_to: 'all', ...fields },
      }),
    );
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: number; code: string }>();
  };
  const usesOf = async (promoId: number) => {
    const row = await t.handle.db.selectFrom('promo_codes').select('uses').where('id', '=', promoId).executeTakeFirstOrThrow();
    const rows = await t.handle.db.selectFrom('promo_uses').select('user_id').where('promo_id', '=', promoId).execute();
    return { counted: Number(row.uses), rows: rows.map((r) => Number(r.user_id)) };
  };
  const ledgerClean = async () => {
    expect(await findLedgerMismatches(t.handle.db)).toEqual([]);
    expect(await findShopLedgerMismatches(t.handle.db)).toEqual([]);
  };

  it('one player racing a per_player 2 code through the shop and the tiers gets it exactly twice', async () => {
    const promo = await newPromo({ per_player: 2 });
    const p = await quickPlayer(t, `Hasty${kind}`, 1_000_000);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        app(i).inject(
          asUser(p.token, {
            method: 'POST',
            ...(i < 4
              ? { url: '/api/shop/checkout', payload: { lines: [{ shop_id: itemId, quantity: 1 }], promo_code: promo.code } }
              : { url: `/api/donate/${tierId}/buy`, payload: { months: 1, promo_code: promo.code } }),
          }),
        ),
      ),
    );
    const ok = results.map((r, i) => [r.statusCode, i] as const).filter(([s]) => s === 200);
    expect(ok).toHaveLength(2);
    for (const r of results.filter((x) => x.statusCode !== 200)) expect([r.statusCode, r.json().code], r.body).toEqual([409, 'promo_used']);
    // 20 % off: 80 ₽ for the item, 240 ₽ for the tier.
    const spent = ok.reduce((s, [, i]) => s + (i < 4 ? 8_000 : 24_000), 0);
    expect(await balanceOf(t, p.id)).toBe(1_000_000 - spent);
    expect(await usesOf(promo.id)).toEqual({ counted: 2, rows: [p.id, p.id] });
    await ledgerClean();
  });

  it('players racing for the last 3 uses of a code get exactly 3', async () => {
    const promo = await newPromo({ max_uses: 3 });
    const players = await Promise.all(Array.from({ length: 10 }, (_, i) => quickPlayer(t, `Crowd${kind}${i}`, 100_000)));
    const results = await Promise.all(
      players.map((p, i) =>
        app(i).inject(
          asUser(p.token, {
            method: 'POST',
            url: '/api/shop/checkout',
            payload: { lines: [{ shop_id: itemId, quantity: 1 }], promo_code: promo.code },
          }),
        ),
      ),
    );
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(3);
    for (const r of results.filter((x) => x.statusCode !== 200))
      expect([r.statusCode, r.json().code], r.body).toEqual([409, 'promo_exhausted']);
    const balances = await Promise.all(players.map((p) => balanceOf(t, p.id)));
    expect(balances.filter((b) => b === 100_000 - 8_000)).toHaveLength(3);
    expect(balances.filter((b) => b === 100_000)).toHaveLength(7);
    const uses = await usesOf(promo.id);
    expect(uses.counted).toBe(3);
    expect(new Set(uses.rows).size).toBe(3);
    await ledgerClean();
  });
});
