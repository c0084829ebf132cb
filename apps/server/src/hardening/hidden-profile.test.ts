import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../test/test-app.ts';
import { seedSigningKey } from '../test/game-auth.ts';
import { postLedger } from '../modules/ledger/ledger.service.ts';
import { addServer } from '../modules/shop/shop.test-helpers.ts';

/**
 * What a hidden profile shows, walked over the app's own route table: every route anyone may call
 * without staff rights ('public', which a signed-in player calls too) is called as a visitor and
 * as another player, with the player's name or UUID wherever a path names a player. Two players
 * have the same life on the site — registered, seen in game, top-ups, a purchase, votes, online
 * in a server's list, banned with a public reason and an internal note — and one of them hid
 * their profile:
 *
 * - the hidden player's UUID, e-mail, dates and ban appear in no answer, and the name only where
 *   the request asked for that name (the profile by name, the head by name) or in the game's own
 *   protocols (Yggdrasil, GravitLauncher: the launcher and the game server look players up by
 *   name and UUID, docs/players.md);
 * - the other player's name, UUID, date and public reason do show up — on the routes listed in
 *   CONTROL — so the walk is known to reach every list the first could leak through;
 * - nobody's e-mail or internal ban note appears anywhere.
 *
 * A new public route is called like the others; if it names the hidden player, this fails.
 */

/** Epoch ms no clock would give by chance: a date found in an answer is this player's. */
const ALICE = {
  name: 'GhostAlice',
  createdAt: 1_500_000_000_123,
  lastSeen: 1_600_000_000_789,
  reason: 'Публичная причина Альфа',
  note: 'Заметка персонала Омега возврат платежа',
};
const BOB = {
  name: 'OpenBob',
  createdAt: 1_500_000_000_456,
  lastSeen: 1_600_000_000_321,
  reason: 'Публичная причина Бета',
  note: 'Заметка персонала Сигма жалоба модератора',
};

/** One row of the app's route table. */
type ApiRoute = TestApp['app']['apiRoutes'][number];
type Seed = typeof ALICE;
interface Subject extends Seed {
  id: number;
  uuid: string;
  email: string;
}

/** The game's protocols: launchers and game servers find players there by name and UUID. */
const isGameProtocol = (url: string) => url.startsWith('/api/yggdrasil') || url.startsWith('/api/gravit/');

/** Path parameters that name a player get the subject; the rest get something valid in shape. */
function pathFor(route: ApiRoute, s: Subject, ids: { server: number; voteSite: number }): string {
  return route.url
    .replace(/:(username|name)\b/g, s.name)
    .replace(/:uuid\b/g, route.url.startsWith('/api/gravit/') ? s.uuid : s.uuid.replaceAll('-', ''))
    .replace(
      /:id\b/g,
      route.url.startsWith('/api/servers/') ? String(ids.server) : route.url.startsWith('/api/votes/') ? String(ids.voteSite) : '999999',
    )
    .replace(/:token\b/g, 'x'.repeat(43))
    .replace(/:provider\b/g, 'discord')
    .replace(/:(\w+)/g, 'x1')
    .replace(/\*$/, 'x');
}

/** Where a route needs more than its path to say anything about a player. */
const QUERY: Record<string, (s: Subject) => string> = {
  '/api/yggdrasil/sessionserver/session/minecraft/hasJoined': (s) => `?username=${s.name}&serverId=walk`,
};
const BODY: Record<string, (s: Subject) => unknown> = {
  '/api/yggdrasil/api/profiles/minecraft': (s) => [s.name],
  '/api/user/login': (s) => ({ username: s.name, password: 'not-the-password-1' }),
  '/api/user/forgot-password': (s) => ({ email: s.email }),
};

/** Routes on which the open player's data must show (so the walk reaches them), as `kind route`. */
const CONTROL = [
  'uuid GET /api/user/:username/profile',
  'created_at GET /api/user/:username/profile',
  'created_at GET /api/players/:name',
  'last_seen GET /api/players/:name',
  'reason GET /api/players/:name',
  'reason GET /api/user/:username/profile',
  'name GET /api/votes/top',
  'name GET /api/home/showcase',
  'name GET /api/servers',
];

describe.each(dbKinds)('a hidden profile on every public route on %s', (kind) => {
  let t: TestApp;
  let viewer: string;
  let alice: Subject;
  let bob: Subject;
  const ids = { server: 0, voteSite: 0 };

  beforeAll(async () => {
    t = await createTestApp(kind, { rateLimits: { enabled: false }, workers: false, gravitSecret: 'launchserver-secret-0123456789' });
    await seedSigningKey(t);
    const db = t.handle.db;
    await seedUser(t, 'WalkAdmin', { admin: true });
    const admin = await loginAs(t, 'WalkAdmin');
    await seedUser(t, 'WalkViewer');
    viewer = await loginAs(t, 'WalkViewer');

    ids.server = await addServer(t, { name: 'Обход' });
    await db
      .updateTable('servers')
      .set({
        status: 'online',
        online: 3,
        players_sample: JSON.stringify([ALICE.name, BOB.name, 'WalkViewer']),
        last_checked_at: Date.now(),
      })
      .where('id', '=', ids.server)
      .execute();
    const now = Date.now();
    ids.voteSite = (
      await db
        .insertInto('vote_sites')
        .values({
          kind: 'topcraft',
          title: 'TopCraft',
          url: 'https://topcraft.ru/servers/1/',
          secret: 'walk-secret',
          reward_amount: 0,
          reward_commands: '[]',
          server_ids: '[]',
          cooldown_hours: 24,
          custom: null,
          enabled: 1,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;

    const make = async (seed: Seed, votes: number, hide: boolean): Promise<Subject> => {
      const id = await seedUser(t, seed.name);
      const token = await loginAs(t, seed.name);
      await db.updateTable('users').set({ created_at: seed.createdAt }).where('id', '=', id).execute();
      const hidden = await t.app.inject(asUser(token, { method: 'PUT', url: '/api/user/privacy', payload: { hidden: hide } }));
      expect(hidden.statusCode, hidden.body).toBe(200);
      await db.updateTable('player_profiles').set({ last_seen_at: seed.lastSeen }).where('user_id', '=', id).execute();
      await db.transaction().execute(async (trx) => {
        await postLedger(trx, { userId: id, amount: 50_000, reason: 'topup', authorId: id, note: null });
        await postLedger(trx, { userId: id, amount: -10_000, reason: 'purchase', authorId: id, note: `Алмазы для ${seed.name.length}` });
      });
      for (let n = 0; n < votes; n++)
        await db
          .insertInto('votes')
          .values({ site_id: ids.voteSite, user_id: id, dedupe: `${seed.name.toLowerCase()}:${n}`, created_at: now - n * 1000 })
          .execute();
      const ban = await t.app.inject(
        asUser(admin, {
          method: 'POST',
          url: `/api/admin/users/${id}/ban`,
          payload: { reason: seed.reason, note: seed.note, until: null },
        }),
      );
      expect(ban.statusCode, ban.body).toBe(200);
      const row = await db.selectFrom('users').select(['uuid', 'email']).where('id', '=', id).executeTakeFirstOrThrow();
      return { ...seed, id, uuid: row.uuid, email: row.email };
    };
    alice = await make(ALICE, 3, true);
    bob = await make(BOB, 2, false);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** What of this player an answer shows, by kind; `asked` lists what the request itself named. */
  function shown(s: Subject, body: string): Record<string, boolean> {
    const text = body.toLowerCase();
    const has = (...needles: string[]) => needles.some((n) => text.includes(n.toLowerCase()));
    return {
      name: has(s.name),
      uuid: has(s.uuid, s.uuid.replaceAll('-', '')),
      email: has(s.email),
      created_at: has(String(s.createdAt), new Date(s.createdAt).toISOString()),
      last_seen: has(String(s.lastSeen), new Date(s.lastSeen).toISOString()),
      reason: has(s.reason),
      note: has(s.note),
    };
  }

  async function walk(): Promise<{ calls: { route: ApiRoute; role: string; request: string; res: LightMyRequestResponse }[] }> {
    // Logout ends the viewer's session: last.
    const last = (r: ApiRoute) => Number(r.url === '/api/user/logout');
    const routes = t.app.apiRoutes.filter((r) => r.access === 'public').sort((a, b) => last(a) - last(b));
    const calls: { route: ApiRoute; role: string; request: string; res: LightMyRequestResponse }[] = [];
    for (const route of routes)
      for (const subject of [alice, bob])
        for (const [role, token] of [
          ['visitor', null],
          ['player', viewer],
        ] as const) {
          const url = pathFor(route, subject, ids) + (QUERY[route.url]?.(subject) ?? '');
          const method = route.method as 'GET' | 'POST' | 'PUT' | 'DELETE';
          const payload = method === 'GET' ? undefined : ((BODY[route.url]?.(subject) ?? {}) as object);
          const res = await t.app.inject(asUser(token, { method, url, payload, remoteAddress: '203.0.113.9' }));
          calls.push({ route, role, request: `${url} ${payload ? JSON.stringify(payload) : ''}`, res });
        }
    return { calls };
  }

  it('shows the hidden player only by the name asked for; the open player shows; no e-mail or internal note anywhere', async () => {
    const { calls } = await walk();
    const leaks: string[] = [];
    const control = new Set<string>();
    const serverErrors: string[] = [];
    const notFound: string[] = [];
    for (const { route, role, request, res } of calls) {
      const where = `${route.method} ${route.url}`;
      if (res.statusCode >= 500) serverErrors.push(`${where} as ${role}: ${res.statusCode} ${res.body.slice(0, 120)}`);
      const body = res.rawPayload.toString('latin1') + res.body;
      const game = isGameProtocol(route.url);
      const asked = request.toLowerCase();

      const a = shown(alice, body);
      // The key the request gave may come back; the game's protocols answer name and UUID by design.
      const askedName = asked.includes(alice.name.toLowerCase());
      const askedUuid = asked.includes(alice.uuid) || asked.includes(alice.uuid.replaceAll('-', ''));
      for (const [what, found] of Object.entries(a)) {
        if (!found) continue;
        if (what === 'name' && (askedName || game)) continue;
        if (what === 'uuid' && (askedUuid || game)) continue;
        leaks.push(`${where} as ${role} shows the hidden player's ${what}`);
      }
      const b = shown(bob, body);
      if (b.email) leaks.push(`${where} as ${role} shows the e-mail`);
      if (b.note) leaks.push(`${where} as ${role} shows the internal ban note`);
      const bobAsked = asked.includes(bob.name.toLowerCase());
      for (const what of ['uuid', 'created_at', 'last_seen', 'reason'] as const) if (b[what]) control.add(`${what} ${where}`);
      if (b.name && !bobAsked) control.add(`name ${where}`);
      // A hidden player is still a player: asked by name, they are found, not «not found».
      if (route.method === 'GET' && /:(username|name|uuid)\b/.test(route.url) && askedName && res.statusCode === 404)
        notFound.push(`${where} as ${role}: 404`);
    }
    expect(serverErrors).toEqual([]);
    expect(leaks).toEqual([]);
    expect(notFound).toEqual([]);
    expect([...control].filter((c) => CONTROL.includes(c)).sort()).toEqual([...CONTROL].sort());
  });

  it('the hidden player reads as «only the name» on both profile routes', async () => {
    const short = await t.app.inject({ method: 'GET', url: `/api/user/${alice.name.toLowerCase()}/profile` });
    expect(short.statusCode, short.body).toBe(200);
    expect(short.json()).toEqual({ username: alice.name, hidden: true, uuid: null, is_admin: false, created_at: null, ban: null });
    const open = (await t.app.inject({ method: 'GET', url: `/api/user/${bob.name}/profile` })).json();
    expect(open).toEqual({
      username: bob.name,
      hidden: false,
      uuid: bob.uuid,
      is_admin: false,
      created_at: new Date(bob.createdAt).toISOString(),
      ban: expect.objectContaining({ reason: bob.reason, text: `Аккаунт заблокирован навсегда: ${bob.reason}` }),
    });
    const top = (await t.app.inject({ method: 'GET', url: '/api/votes/top' })).json<{ top: unknown[] }>();
    expect(top.top.slice(0, 2)).toEqual([
      { place: 1, username: null, votes: 3, prize: null },
      { place: 2, username: bob.name, votes: 2, prize: null },
    ]);
    const servers = (await t.app.inject({ method: 'GET', url: '/api/servers' })).json<{ servers: { id: number; players: string[] }[] }>();
    expect(servers.servers.find((s) => s.id === ids.server)?.players).toEqual([bob.name, 'WalkViewer']);
  });
});
