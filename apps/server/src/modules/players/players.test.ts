import type { HomeShowcase, PlayerProfile } from '@kubik/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusPeer, defaultStatus } from '../../../../../testing/minecraft-status-peer.ts';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { postLedger, type LedgerReason } from '../ledger/ledger.service.ts';
import { addServer, closeTestApp, quickPlayer } from '../shop/shop.test-helpers.ts';
import { monthStart } from './players.service.ts';

describe.each(dbKinds)('players on show on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let miner: { id: number; token: string };
  let builder: { id: number; token: string };
  const ledger = (userId: number, amount: number, reason: LedgerReason, note: string | null = null) =>
    t.handle.db.transaction().execute((trx) => postLedger(trx, { userId, amount, reason, authorId: userId, note }));
  const showcase = async () => {
    // The widgets are memoised for a few seconds; a settings change or a privacy change drops them.
    const res = await t.app.inject({ method: 'GET', url: '/api/home/showcase' });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<HomeShowcase>();
  };
  const profile = (name: string) => t.app.inject({ method: 'GET', url: `/api/players/${encodeURIComponent(name)}` });

  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false, monitor: { intervalMs: 60_000, timeoutMs: 1500, concurrency: 2 } });
    await seedUser(t, 'ShowChief', { admin: true });
    admin = await loginAs(t, 'ShowChief');
    miner = await quickPlayer(t, 'ShowMiner', 0);
    builder = await quickPlayer(t, 'ShowBuilder', 0);
    await ledger(miner.id, 50_000, 'topup');
    await ledger(builder.id, 90_000, 'topup');
    // Last month's top-up counts for nothing this month.
    await ledger(miner.id, 1_000_000, 'topup');
    await t.handle.db
      .updateTable('ledger')
      .set({ created_at: monthStart(Date.now(), t.app.ctx.config.timeZone) - 1 })
      .where('amount', '=', 1_000_000)
      .execute();
    await ledger(miner.id, -9_900, 'purchase', 'Алмазы × 16');
    await ledger(builder.id, -30_000, 'purchase', 'VIP на 1 мес. (зачтено 120 ₽)');
  });
  afterAll(() => closeTestApp(t));

  it('shows the latest purchases and the month’s biggest top-ups by name, never amounts', async () => {
    const s = await showcase();
    expect(s.recent_purchases).toEqual([
      { player: 'ShowBuilder', item: 'VIP на 1 мес.', at: expect.any(Number) },
      { player: 'ShowMiner', item: 'Алмазы × 16', at: expect.any(Number) },
    ]);
    // 900 ₽ beats 500 ₽ this month (the miner's 10 000 ₽ was last month).
    expect(s.top_donors).toEqual([
      { place: 1, player: 'ShowBuilder' },
      { place: 2, player: 'ShowMiner' },
    ]);
    for (const row of [...s.recent_purchases!, ...s.top_donors!]) expect(Object.keys(row).sort()).not.toContain('amount');
    expect(Object.keys(s.top_donors![0]!).sort()).toEqual(['place', 'player']);
  });

  it('a player who hides their profile shows no name on the home page and only the name at /u', async () => {
    const visible = await profile('showminer');
    expect(visible.statusCode, visible.body).toBe(200);
    expect(visible.json<PlayerProfile>()).toMatchObject({ username: 'ShowMiner', hidden: false, is_admin: false, tier: null, ban: null });
    expect(visible.json<PlayerProfile>().created_at).toEqual(expect.any(Number));

    const hide = await t.app.inject(asUser(miner.token, { method: 'PUT', url: '/api/user/privacy', payload: { hidden: true } }));
    expect(hide.statusCode, hide.body).toBe(200);
    expect((await t.app.inject(asUser(miner.token, { method: 'GET', url: '/api/user/privacy' }))).json()).toEqual({ hidden: true });

    const hidden = (await profile('ShowMiner')).json<PlayerProfile>();
    expect(hidden).toMatchObject({ username: 'ShowMiner', hidden: true, created_at: null, tier: null, skin_url: null });
    // The short profile by name hides the same: no UUID, date, role or ban.
    const short = await t.app.inject({ method: 'GET', url: '/api/user/showminer/profile' });
    expect(short.json()).toEqual({ username: 'ShowMiner', hidden: true, uuid: null, is_admin: false, created_at: null, ban: null });
    const s = await showcase();
    expect(s.recent_purchases?.[1]).toMatchObject({ player: null, item: 'Алмазы × 16' });
    expect(s.top_donors?.[1]).toEqual({ place: 2, player: null });

    await t.app.inject(asUser(miner.token, { method: 'PUT', url: '/api/user/privacy', payload: { hidden: false } }));
    expect((await profile('ShowMiner')).json<PlayerProfile>().hidden).toBe(false);
    expect((await t.app.inject({ method: 'GET', url: '/api/user/ShowMiner/profile' })).json()).toMatchObject({
      hidden: false,
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      created_at: expect.any(String),
    });
  });

  it('refuses unknown, deleted and impossible names with a Russian 404, and bad bodies with 400', async () => {
    for (const name of ['NoSuchPlayer', 'a', 'bad name', 'x\u0000y', 'Ш'.repeat(70)]) {
      const res = await profile(name);
      expect([400, 404], `${name}: ${res.body}`).toContain(res.statusCode);
      expect(res.json<{ error: string }>().error).toMatch(/[а-я]/i);
    }
    expect((await profile('NoSuchPlayer')).json()).toMatchObject({ code: 'player_not_found', error: 'Игрок не найден' });
    const gone = await quickPlayer(t, 'ShowGone', 0);
    await t.handle.db.updateTable('users').set({ deleted_at: Date.now() }).where('id', '=', gone.id).execute();
    expect((await profile('ShowGone')).statusCode).toBe(404);

    for (const payload of [{}, { hidden: 'yes' }, { hidden: true, extra: 1 }, null, [1]]) {
      const res = await t.app.inject(asUser(builder.token, { method: 'PUT', url: '/api/user/privacy', payload: payload as object }));
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    }
    expect((await t.app.inject({ method: 'PUT', url: '/api/user/privacy', payload: { hidden: true } })).statusCode).toBe(401);
  });

  it('the owner turns each widget off; players may not', async () => {
    const put = (token: string, payload: object) =>
      t.app.inject(asUser(token, { method: 'PUT', url: '/api/admin/home-settings', payload }));
    expect((await put(miner.token, { top_donors: false })).statusCode).toBe(403);
    const res = await put(admin, { recent_purchases: false });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ recent_purchases: false, top_donors: true });
    const s = await showcase();
    expect(s.recent_purchases).toBeNull();
    expect(s.top_donors).toHaveLength(2);
    expect((await put(admin, { recent_purchases: 'no' })).statusCode).toBe(400);
    await put(admin, { recent_purchases: true, top_donors: false });
    expect((await showcase()).top_donors).toBeNull();
    await put(admin, { top_donors: true });
  });

  it('names the players a server lists in its status reply, skipping anonymous entries, and remembers when they were seen', async () => {
    // Vanilla lists up to 12 random players; those who turned off «Allow Server Listings» come as
    // "Anonymous Player" with the all-zero UUID, and plugins put coloured text lines there.
    const peer = await new StatusPeer({
      status: {
        ...(defaultStatus(3, 20) as object),
        players: {
          max: 20,
          online: 3,
          sample: [
            { name: 'ShowBuilder', id: '4566e69f-c907-48ee-8d71-d7ba5aa00d20' },
            { name: 'Anonymous Player', id: '00000000-0000-0000-0000-000000000000' },
            { name: '§aДобро пожаловать', id: '00000000-0000-0000-0000-000000000000' },
            { name: 'Stranger_1', id: 'e2c1c0d4-3c6d-4c34-9a34-1b9e8d2b6a11' },
          ],
        },
      },
    }).start();
    try {
      const serverId = await addServer(t, { name: 'Витрина' });
      await t.handle.db.updateTable('servers').set({ port: peer.port }).where('id', '=', serverId).execute();
      const before = Date.now();
      expect((await t.app.inject(asUser(admin, { method: 'POST', url: '/api/servers/monitor' }))).statusCode).toBe(200);
      const list = (await t.app.inject({ method: 'GET', url: '/api/servers' })).json<{ servers: { id: number; players: string[] }[] }>();
      expect(list.servers.find((s) => s.id === serverId)?.players).toEqual(['ShowBuilder', 'Stranger_1']);
      const seen = (await profile('ShowBuilder')).json<PlayerProfile>().last_seen_at;
      expect(seen).toBeGreaterThanOrEqual(before);
      // Never seen: not known.
      expect((await profile('ShowChief')).json<PlayerProfile>().last_seen_at).toBeNull();

      // A player who hides their profile leaves the site's list at once (the kept answer is dropped),
      // and comes back when they show it again.
      const players = async () =>
        (await t.app.inject({ method: 'GET', url: '/api/servers' }))
          .json<{ servers: { id: number; players: string[] }[] }>()
          .servers.find((s) => s.id === serverId)?.players;
      const privacy = (hidden: boolean) =>
        t.app.inject(asUser(builder.token, { method: 'PUT', url: '/api/user/privacy', payload: { hidden } }));
      expect((await privacy(true)).statusCode).toBe(200);
      expect(await players()).toEqual(['Stranger_1']);
      expect((await privacy(false)).statusCode).toBe(200);
      expect(await players()).toEqual(['ShowBuilder', 'Stranger_1']);
    } finally {
      await peer.stop();
    }
  });
});
