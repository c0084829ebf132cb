import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { AdminDelivery, AdminServer, PlayerDelivery } from '@kubik/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AzLinkPlugin, offlinePlayerUuid } from '../../../../../testing/azlink-plugin.ts';
import { asUser, createPgDatabase, createTestApp, dbKinds, loginAs, seedUser, startInstance, type TestApp } from '../../test/test-app.ts';
import { handToPlugin } from '../deliveries/deliveries.plugin.ts';
import { answerFetch, callingServer } from './servers.azlink.ts';
import { enqueueDelivery, enqueueDeliveries, type DeliveryRequest } from '../deliveries/deliveries.queue.ts';
import { drainDeliveries } from '../deliveries/deliveries.worker.ts';
import { addServer, closeTestApp } from '../shop/shop.test-helpers.ts';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** A clock the plugin doubles share: each step passes AzLink's 5 s skip. */
function clock() {
  let t = Date.now();
  return { now: () => t, step: () => (t += 6000) };
}

describe.each(dbKinds)('the AzLink plugin link on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let player: string;
  let steveId: number;
  let alexId: number;
  let base: string;
  const time = clock();

  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false, delivery: { intervalMs: 1000, timeoutMs: 2000 } });
    await seedUser(t, 'Admin', { admin: true });
    steveId = await seedUser(t, 'Steve');
    alexId = await seedUser(t, 'Alex');
    await seedUser(t, 'Moder');
    admin = await loginAs(t, 'Admin');
    player = await loginAs(t, 'Steve');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => closeTestApp(t));

  const link = async (serverId: number, token = admin) =>
    t.app.inject(asUser(token, { method: 'POST', url: `/api/servers/${serverId}/link` }));
  const adminServer = async (id: number) => {
    const res = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/servers/admin' }));
    return res.json<{ servers: AdminServer[] }>().servers.find((s) => s.id === id)!;
  };
  const serverRow = (id: number) => t.handle.db.selectFrom('servers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const delivery = (id: number) => t.handle.db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  /** A server without RCON, linked; a plugin double set up with its command. */
  async function linked(name: string, options: ConstructorParameters<typeof AzLinkPlugin>[0] = {}) {
    const serverId = await addServer(t, { name });
    const res = await link(serverId);
    expect(res.statusCode, res.body).toBe(200);
    const { token, command } = res.json<{ token: string; command: string }>();
    const plugin = new AzLinkPlugin({ now: time.now, ...options });
    const [, sub, url, key] = command.split(' ');
    expect(sub).toBe('setup');
    await plugin.setup(url!.replace('http://kubik.test', base), key!);
    return { serverId, token, plugin };
  }

  const give = (serverId: number, userId: number, extra: Partial<DeliveryRequest> = {}): Promise<number[]> =>
    t.handle.db.transaction().execute((trx) =>
      enqueueDelivery(trx, {
        source: 'shop',
        sourceId: null,
        userId,
        label: 'Алмаз',
        server: serverId,
        commands: ['give {player} diamond 1'],
        ...extra,
      }),
    );

  it('links a server: a token of 48 letters and digits shown once, kept as its sha256, and the exact command; a new link replaces it', async () => {
    const serverId = await addServer(t, { name: 'Ссылка' });
    expect((await link(serverId, player)).statusCode).toBe(403);
    expect((await link(serverId, null as unknown as string)).statusCode).toBe(401);
    const res = await link(serverId);
    expect(res.statusCode).toBe(200);
    const body = res.json<{ token: string; command: string; server: AdminServer }>();
    expect(body.token).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(body.command).toBe(`/azlink setup http://kubik.test ${body.token}`);
    expect(res.headers['cache-control']).toBe('no-store');
    const row = await serverRow(serverId);
    expect(row.link_token_hash).toBe(sha256(body.token));
    expect(JSON.stringify(row)).not.toContain(body.token);
    // No RCON: the plugin delivers.
    expect(body.server.delivery_channel).toBe('plugin');
    expect(body.server.link).toMatchObject({ linked: true, online: false, last_call_at: null });

    const again = (await link(serverId)).json<{ token: string }>();
    expect(again.token).not.toBe(body.token);
    const old = new AzLinkPlugin({ now: time.now });
    await expect(old.setup(base, body.token)).rejects.toThrow('Unexpected HTTP error 403');
    const fresh = new AzLinkPlugin({ now: time.now });
    await fresh.setup(`${base}/`, again.token);
    expect((await adminServer(serverId)).link.last_call_at).not.toBeNull();

    const off = await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/servers/${serverId}/link` }));
    expect(off.statusCode).toBe(200);
    expect(off.json<{ server: AdminServer }>().server).toMatchObject({ delivery_channel: 'rcon', link: { linked: false } });
    await expect(fresh.verifyStatus()).rejects.toThrow('Unexpected HTTP error 403');
    expect((await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/servers/${serverId}/link` }))).statusCode).toBe(400);
  });

  it('takes the token from the Azuriom-Link-Token header only: none is 401, an unknown one 403, a query string counts for nothing; never a redirect', async () => {
    const { token } = await linked('Заголовок');
    const call = (method: 'GET' | 'POST', url: string, headers: Record<string, string> = {}) =>
      t.app.inject({
        method,
        url,
        headers: { accept: 'application/json', ...headers },
        ...(method === 'POST' && { payload: { players: [] } }),
      });
    expect((await call('GET', '/api/azlink')).statusCode).toBe(401);
    expect((await call('POST', '/api/azlink')).statusCode).toBe(401);
    expect((await call('GET', `/api/azlink?token=${token}`)).statusCode).toBe(401);
    expect((await call('POST', `/api/azlink?Azuriom-Link-Token=${token}`)).statusCode).toBe(401);
    expect((await call('GET', '/api/azlink', { 'azuriom-link-token': 'x'.repeat(48) })).statusCode).toBe(403);
    const wrong = await call('POST', '/api/azlink', { 'azuriom-link-token': token.slice(1) });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json<{ error: string }>().error).toMatch(/ключ/i);
    expect((await call('GET', '/api/azlink', { 'azuriom-link-token': token })).statusCode).toBe(200);
    const ok = await call('POST', '/api/azlink', { 'azuriom-link-token': token });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ commands: {} });
    // With the slash too (an address typed with two); never a redirect, which AzLink refuses.
    expect((await call('POST', '/api/azlink/', { 'azuriom-link-token': token })).statusCode).toBe(200);
    expect((await call('GET', '/api/azlink/', { 'azuriom-link-token': token })).statusCode).toBe(200);
    expect((await call('POST', '/api/azlink//', { 'azuriom-link-token': token })).statusCode).toBe(404);
  });

  it('hands a delivery only while its player is online, matched by UUID or name, and never twice', async () => {
    const { serverId, plugin } = await linked('Выживание');
    const [id] = await give(serverId, steveId);
    time.step();
    // Steve is away: the answer has no commands, the delivery waits for him.
    expect(await plugin.fetch()).toEqual({ commands: {} });
    expect(await delivery(id!)).toMatchObject({ state: 'pending', waiting: 'player_offline' });
    const mine = await t.app.inject(asUser(player, { method: 'GET', url: '/api/user/deliveries' }));
    expect(mine.json<{ deliveries: PlayerDelivery[] }>().deliveries.find((d) => d.id === id)?.waiting_text).toContain(
      'Зайдите на сервер «Выживание»',
    );

    // Within 5 s of the previous fetch the plugin does not call.
    plugin.join('Steve');
    expect(await plugin.fetch()).toBeUndefined();
    time.step();
    const answer = await plugin.fetch();
    expect(answer).toEqual({ commands: { Steve: ['give Steve diamond 1'] } });
    expect(plugin.console).toEqual(['give Steve diamond 1']);
    const row = await delivery(id!);
    expect(row).toMatchObject({ state: 'done', channel: 'plugin', waiting: null, reply: 'Передано плагину' });
    const list = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/admin/deliveries' }));
    const seen = list.json<AdminDelivery[]>().find((d) => d.id === id)!;
    expect(seen.handed_to_plugin_at).toBe(Number(row.done_at));
    time.step();
    expect(await plugin.fetch()).toEqual({ commands: {} });

    // The owner resends: it goes out once more at the next call.
    const resend = await t.app.inject(asUser(admin, { method: 'POST', url: `/api/admin/deliveries/${id}/resend` }));
    expect(resend.statusCode, resend.body).toBe(200);
    time.step();
    await plugin.fetch();
    expect(plugin.console).toEqual(['give Steve diamond 1', 'give Steve diamond 1']);

    // By UUID: the game knows Alex under another name (a rename on the site), with his profile UUID.
    const alex = await t.handle.db.selectFrom('users').select('uuid').where('id', '=', alexId).executeTakeFirstOrThrow();
    const [a] = await give(serverId, alexId, { commands: ['eco give {player} 5', 'tell {uuid} hi'] });
    plugin.join('alex_old', alex.uuid);
    time.step();
    expect(await plugin.fetch()).toEqual({ commands: { alex_old: ['eco give alex_old 5', `tell ${alex.uuid} hi`] } });
    expect((await delivery(a!)).state).toBe('done');
    // By name, case as the game has it.
    plugin.leave('alex_old');
    plugin.join('ALEX', '00000000-0000-4000-8000-000000000001');
    const [b] = await give(serverId, alexId);
    time.step();
    expect((await plugin.fetch())?.commands).toEqual({ ALEX: ['give ALEX diamond 1'] });
    expect((await delivery(b!)).state).toBe('done');

    // A row backing off from RCON days goes as soon as its player is here; one queued for later waits for its time.
    const [c] = await give(serverId, alexId, { commands: ['say backoff {player}'] });
    await t.handle.db
      .updateTable('deliveries')
      .set({ waiting: 'server_down', retries: 4, next_attempt_at: Date.now() + 600_000 })
      .where('id', '=', c!)
      .execute();
    const [d] = await give(serverId, alexId, { commands: ['say later {player}'], notBefore: Date.now() + 600_000 });
    time.step();
    expect((await plugin.fetch())?.commands).toEqual({ ALEX: ['say backoff ALEX'] });
    expect((await delivery(c!)).state).toBe('done');
    expect((await delivery(d!)).state).toBe('pending');
  });

  it('hands revokes and bans without their player, at most 100 commands per answer, and the RCON worker leaves plugin servers alone', async () => {
    const { serverId, plugin } = await linked('Лимит');
    const [revoke] = await give(serverId, alexId, { source: 'privilege_revoke', commands: ['lp user {player} parent remove vip'] });
    const many: DeliveryRequest[] = Array.from({ length: 150 }, () => ({
      source: 'shop',
      sourceId: null,
      userId: steveId,
      label: 'Алмаз',
      server: serverId,
      commands: ['give {player} diamond 1'],
    }));
    await t.handle.db.transaction().execute((trx) => enqueueDeliveries(trx, many));
    // The RCON worker sends nothing to a plugin server.
    const stats = await drainDeliveries(t.handle.db, { intervalMs: 1000, timeoutMs: 2000 }, t.app.log);
    expect(stats.done + stats.failed + stats.unknown).toBe(0);
    expect((await delivery(revoke!)).state).toBe('pending');

    time.step();
    expect((await plugin.fetch())?.commands).toEqual({ Alex: ['lp user Alex parent remove vip'] });
    plugin.join('Steve');
    time.step();
    const first = await plugin.fetch();
    expect(first?.commands.Steve).toHaveLength(100);
    time.step();
    expect((await plugin.fetch())?.commands.Steve).toHaveLength(50);
    time.step();
    expect(await plugin.fetch()).toEqual({ commands: {} });
  });

  it('never gives one command to two calls at once (a retried call, a copied config)', async () => {
    const { serverId, token } = await linked('Дубли');
    const requests: DeliveryRequest[] = Array.from({ length: 120 }, (_, i) => ({
      source: 'shop',
      sourceId: null,
      userId: i % 2 ? steveId : alexId,
      label: 'Алмаз',
      server: serverId,
      commands: [`give {player} diamond ${i + 1}`],
    }));
    await t.handle.db.transaction().execute((trx) => enqueueDeliveries(trx, requests));
    const plugins = [0, 1, 2].map(() => new AzLinkPlugin({ now: time.now }));
    for (const p of plugins) {
      await p.setup(base, token);
      p.join('Steve');
      p.join('Alex');
    }
    for (let round = 0; round < 4; round++) {
      time.step();
      await Promise.all(plugins.map((p) => p.fetch()));
    }
    const ran = plugins.flatMap((p) => p.console);
    expect(ran).toHaveLength(120);
    expect(new Set(ran).size).toBe(120);
  });

  it('answers a fetch in the same few statements whether it hands 2 commands or 60, and a fetch with nothing due in two', async () => {
    const { serverId, token } = await linked('Счёт запросов');
    const names = Array.from({ length: 60 }, (_, i) => `Counted_${i}`);
    const now0 = Date.now();
    const users = await t.handle.db
      .insertInto('users')
      .values(
        names.map((n) => ({
          username: n,
          username_lower: n.toLowerCase(),
          email: `${n.toLowerCase()}@example.com`,
          email_lower: `${n.toLowerCase()}@example.com`,
          password_hash: 'not-a-hash',
          is_admin: 0,
          balance: 0,
          email_verified_at: now0,
          created_at: now0,
          deleted_at: null,
          uuid: offlinePlayerUuid(n),
        })),
      )
      .returning('id')
      .execute();
    let statements = 0;
    const counted = t.handle.db.withPlugin({
      transformQuery: (args) => {
        statements++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    const quiet = { warn: () => {} };
    let at = now0;
    let order = 5000;
    // Statements of one fetch by the first `online` players, after `due` deliveries for them (one
    // purchase each) and `away` for the last player, who is not online.
    const fetch = async (online: number, due: number, away = 0) => {
      await t.handle.db.transaction().execute((trx) =>
        enqueueDeliveries(
          trx,
          Array.from({ length: due + away }, (_, i) => ({
            source: 'shop' as const,
            sourceId: order++,
            userId: i < due ? users[i % online]!.id : users.at(-1)!.id,
            label: 'Алмаз',
            server: serverId,
            commands: ['give {player} diamond 1'],
          })),
        ),
      );
      // Within the minute of the first call: no history point, no «seen in game» after the answer.
      at = Math.max(Date.now(), at + 1000);
      const caller = await callingServer(t.app.ctx, token);
      const report = { players: names.slice(0, online).map((name) => ({ name, uuid: offlinePlayerUuid(name) })) };
      statements = 0;
      const answer = await answerFetch({ ...t.app.ctx, db: counted }, quiet, caller, report, at);
      expect(Object.values(answer.commands).flat()).toHaveLength(due);
      return statements;
    };
    await answerFetch(t.app.ctx, quiet, await callingServer(t.app.ctx, token), { players: [] }, at);
    const small = await fetch(2, 2);
    const big = await fetch(60, 60);
    expect(big).toBe(small);
    // The server's row, the due rows' accounts and the rows, the hand-over, the purchases still on
    // the way, the notices (with their signals on PostgreSQL).
    expect(small).toBeLessThanOrEqual(6);
    // Nothing due: the server's row and one read.
    expect(await fetch(60, 0)).toBe(2);
    // A player away: his rows are marked waiting by one more statement, once; later fetches leave them be.
    expect(await fetch(2, 2, 3)).toBe(small + 1);
    const waiting = await t.handle.db
      .selectFrom('deliveries')
      .select('waiting')
      .where('user_id', '=', users.at(-1)!.id)
      .where('state', '=', 'pending')
      .execute();
    expect(waiting.map((w) => w.waiting)).toEqual(['player_offline', 'player_offline', 'player_offline']);
    expect(await fetch(2, 2)).toBe(small);
    // One history point, the first call's: the others were within its minute.
    const history = await t.handle.db
      .selectFrom('server_online_history')
      .select(['online', 'tps'])
      .where('server_id', '=', serverId)
      .execute();
    expect(history).toEqual([{ online: 0, tps: null }]);
  });

  it('a plugin calling every 5 seconds still leaves a history point each minute', async () => {
    const { serverId, token } = await linked('Частый');
    const quiet = { warn: () => {} };
    const start = Date.now();
    for (let s = 0; s <= 120; s += 5) {
      const caller = await callingServer(t.app.ctx, token);
      await answerFetch(t.app.ctx, quiet, caller, { players: [] }, start + s * 1000);
    }
    const points = await t.handle.db
      .selectFrom('server_online_history')
      .select('at')
      .where('server_id', '=', serverId)
      .orderBy('at')
      .execute();
    expect(points.map((p) => (Number(p.at) - start) / 1000)).toEqual([0, 50, 100]);
  });

  it('refuses a body that is not AzLink’s with 400 or 413, never a 500, and changes nothing', async () => {
    const { serverId, token } = await linked('Мусор');
    const [id] = await give(serverId, steveId);
    const before = await serverRow(serverId);
    const post = (payload: unknown) =>
      t.app.inject({
        method: 'POST',
        url: '/api/azlink',
        headers: { 'azuriom-link-token': token, 'content-type': 'application/json' },
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });
    const steve = { name: 'Steve', uuid: offlinePlayerUuid('Steve') };
    const bad: [string, unknown, number[]][] = [
      ['players not a list', { players: 'Steve' }, [400]],
      ['no players', { maxPlayers: 10 }, [400]],
      ['a name with a space', { players: [{ name: 'St eve', uuid: steve.uuid }] }, [400]],
      ['a long name', { players: [{ name: 'S'.repeat(17), uuid: steve.uuid }] }, [400]],
      ['a bad uuid', { players: [{ name: 'Steve', uuid: 'nope' }] }, [400]],
      ['a number for a name', { players: [{ name: 5, uuid: steve.uuid }] }, [400]],
      ['maxPlayers as text', { players: [steve], maxPlayers: 'many' }, [400]],
      ['tps as text', { players: [steve], full: true, worlds: { tps: 'fast' } }, [400]],
      ['2001 players', { players: Array.from({ length: 2001 }, (_, i) => ({ name: `p${i}`, uuid: steve.uuid })) }, [400]],
      ['10,000 players', { players: Array.from({ length: 10_000 }, (_, i) => ({ name: `Player_${i}`, uuid: steve.uuid })) }, [400, 413]],
      ['1 MB', { players: [steve], pad: 'x'.repeat(1024 * 1024) }, [413]],
      ['broken JSON', '{"players": [', [400]],
      ['not an object', '[]', [400]],
    ];
    for (const [what, payload, codes] of bad) {
      const res = await post(payload);
      expect(codes, `${what}: ${res.statusCode} ${res.body.slice(0, 200)}`).toContain(res.statusCode);
      expect(res.json<{ error: string }>().error, what).toBeTruthy();
    }
    expect(await delivery(id!)).toMatchObject({ state: 'pending', waiting: null });
    const after = await serverRow(serverId);
    expect(after.link_data_at).toBe(before.link_data_at);
    expect(after.status).toBe(before.status);
  });

  it('records what the plugin reports: players, max players, platform, and TPS, RAM and CPU of a full fetch in the history; the monitor leaves the server be', async () => {
    const { serverId, plugin } = await linked('Живые данные', { maxPlayers: 250, platformType: 'BUNGEE', platformName: 'Waterfall' });
    await seedUser(t, 'Builder');
    const profile = async () => (await t.app.inject({ method: 'GET', url: '/api/players/Builder' })).json<{ in_game?: string | null }>();
    expect((await profile()).in_game).toBeNull();
    plugin.join('builder');
    plugin.join('Notch');
    time.step();
    await plugin.fetch(true);
    const card = await adminServer(serverId);
    expect(card).toMatchObject({ status: 'online', online: 2, players: ['builder', 'Notch'] });
    // «Сейчас в игре» on the player's profile, matched regardless of case.
    expect((await profile()).in_game).toBe('Живые данные');
    expect(card.link).toMatchObject({
      linked: true,
      online: true,
      platform: 'BUNGEE',
      platform_name: 'Waterfall',
      plugin_version: '1.3.7',
      players: ['builder', 'Notch'],
      tps: 19.97,
      ram_mb: 512.5,
      cpu_percent: 12.5,
    });
    const list = await t.app.inject({ method: 'GET', url: '/api/servers/' });
    expect(
      list.json<{ servers: { id: number; max_online: number; online: number }[] }>().servers.find((s) => s.id === serverId),
    ).toMatchObject({
      online: 2,
      max_online: 250,
    });
    const history = await t.handle.db.selectFrom('server_online_history').selectAll().where('server_id', '=', serverId).execute();
    expect(history.at(-1)).toMatchObject({ online: 2, tps: 19.97, ram: 512.5, cpu: 12.5 });
    // The status check skips it: the plugin's report is its status (a Server List Ping to it would fail).
    const monitor = await t.app.inject(asUser(admin, { method: 'POST', url: '/api/servers/monitor', payload: {} }));
    expect(monitor.statusCode).toBe(200);
    expect((await serverRow(serverId)).status).toBe('online');
    expect((await serverRow(serverId)).fail_count).toBe(0);
  });

  it('lets the owner choose RCON or the plugin when both exist, and asks the plugin to fetch at once when told to', async () => {
    const serverId = await addServer(t, { name: 'Оба', rcon_host: '127.0.0.1', rcon_port: 1, rcon_password: 'pw' });
    const linkedRes = (await link(serverId)).json<{ token: string; server: AdminServer }>();
    // RCON stays the way until the owner switches.
    expect(linkedRes.server.delivery_channel).toBe('rcon');
    const patch = (payload: object) => t.app.inject(asUser(admin, { method: 'PUT', url: `/api/servers/${serverId}/link`, payload }));
    expect((await patch({ delivery_channel: 'telepathy' })).statusCode).toBe(400);
    expect((await patch({ ping_port: 70000 })).statusCode).toBe(400);
    const plugin = new AzLinkPlugin({ now: time.now });
    await plugin.setup(base, linkedRes.token);
    const port = await plugin.listen(0);
    try {
      const res = await patch({ delivery_channel: 'plugin', instant_ping: true, ping_port: port });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json<{ server: AdminServer }>().server).toMatchObject({
        delivery_channel: 'plugin',
        link: { instant_ping: true, ping_port: port },
      });
      plugin.join('Steve');
      const [id] = await give(serverId, steveId);
      time.step();
      // The worker's pass pings the plugin; the plugin fetches and runs the command.
      await drainDeliveries(t.handle.db, { intervalMs: 1000, timeoutMs: 2000 }, t.app.log);
      const end = Date.now() + 5000;
      // The row is marked in the transaction, before the answer reaches the plugin: wait for the console.
      while (plugin.console.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      expect(plugin.pings, plugin.log.join('\n')).toBeGreaterThanOrEqual(1);
      expect(plugin.log.filter((l) => l.startsWith('Unable'))).toEqual([]);
      expect(plugin.console).toEqual(['give Steve diamond 1']);
      expect((await delivery(id!)).state).toBe('done');
    } finally {
      await plugin.close();
    }
  });

  it('makes and updates site accounts from in-game registrations only when the owner turned it on, never a staff account', async () => {
    const { serverId, token } = await linked('Аккаунты');
    const call = (path: string, payload: object) =>
      t.app.inject({ method: 'POST', url: `/api/azlink/${path}`, headers: { 'azuriom-link-token': token }, payload });
    const user = (name: string) =>
      t.handle.db.selectFrom('users').selectAll().where('username_lower', '=', name.toLowerCase()).executeTakeFirst();
    // A game's address is unconfirmed: the right password gets «confirm your address» (403), a wrong one 401.
    const login = async (username: string, password: string) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { username, password, bearer: true } });
      return res.statusCode === 403 && res.json<{ code: string }>().code === 'email_not_confirmed' ? 'right' : res.statusCode;
    };
    const crafter = { name: 'Crafter', game_id: offlinePlayerUuid('Crafter'), password: 'рыжая лиса прыгает высоко', ip: '10.0.0.5' };

    // Off by default: nothing is made.
    const off = await call('register', crafter);
    expect(off.statusCode).toBe(403);
    expect(await user('Crafter')).toBeUndefined();
    // The owner's switch only (a staff member with the servers permission cannot turn it on).
    const on = await t.app.inject(
      asUser(admin, { method: 'PUT', url: `/api/servers/${serverId}/link/accounts`, payload: { enabled: true } }),
    );
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json<{ server: AdminServer }>().server.link.game_accounts).toBe(true);
    expect(
      (await t.app.inject(asUser(player, { method: 'PUT', url: `/api/servers/${serverId}/link/accounts`, payload: { enabled: true } })))
        .statusCode,
    ).toBe(403);

    expect((await call('register', { ...crafter, password: 'abc' })).statusCode).toBe(400);
    expect((await call('register', { ...crafter, name: 'Cr after' })).statusCode).toBe(400);
    const made = await call('register', crafter);
    expect(made.statusCode, made.body).toBe(200);
    const row = (await user('Crafter'))!;
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(row).toMatchObject({ is_admin: 0, role_id: null, uuid: crafter.game_id, email_verified_at: null });
    expect(await login('Crafter', crafter.password)).toBe('right');
    const audit = await t.handle.db.selectFrom('audit_log').selectAll().where('action', 'like', 'user.game_%').execute();
    expect(JSON.stringify(audit)).not.toContain(crafter.password);

    // Another account of that name is left alone; a staff account is never touched.
    const steveHash = (await user('Steve'))!.password_hash;
    expect(
      (await call('register', { name: 'Steve', game_id: '00000000-0000-4000-8000-0000000000aa', password: 'совсем другой пароль игрока' }))
        .statusCode,
    ).toBe(409);
    expect((await user('Steve'))!.password_hash).toBe(steveHash);
    const adminRow = (await user('Admin'))!;
    expect((await call('register', { name: 'Admin', game_id: adminRow.uuid, password: 'захват админки не пройдёт' })).statusCode).toBe(403);
    expect((await call('password', { game_id: adminRow.uuid, password: 'захват админки не пройдёт' })).statusCode).toBe(403);
    expect((await user('Admin'))!.password_hash).toBe(adminRow.password_hash);

    // A new password and address typed in the game.
    const changed = await call('password', { game_id: crafter.game_id, password: 'новый пароль из игры 2026' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(await login('Crafter', 'новый пароль из игры 2026')).toBe('right');
    expect(await login('Crafter', crafter.password)).toBe(401);
    expect((await call('email', { game_id: crafter.game_id, email: 'crafter@example.org' })).statusCode).toBe(200);
    expect((await user('Crafter'))!.email).toBe('crafter@example.org');
    expect((await call('email', { game_id: crafter.game_id, email: 'steve@example.com' })).statusCode).toBe(409);
    expect((await call('email', { game_id: '00000000-0000-4000-8000-0000000000bb', email: 'x@example.org' })).statusCode).toBe(400);
    // A wrong token changes nothing.
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/azlink/password',
      headers: { 'azuriom-link-token': 'nope' },
      payload: { game_id: crafter.game_id, password: 'третий пароль из игры 2026' },
    });
    expect(bad.statusCode).toBe(403);
    expect(await login('Crafter', 'новый пароль из игры 2026')).toBe('right');

    // Rate-limited per server: a flood of calls ends in 429.
    const codes: number[] = [];
    for (let i = 0; i < 40; i++) codes.push((await call('email', { game_id: crafter.game_id, email: 'steve@example.com' })).statusCode);
    expect(codes).toContain(429);
    expect(codes.filter((c) => c !== 409 && c !== 429)).toEqual([]);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('two instances on one PostgreSQL database answering AzLink', () => {
  it('hands a delivery to one of two transactions that both read it (the conditional update), not to both', async () => {
    const pg = await createPgDatabase();
    const a = await startInstance(pg.url);
    const b = await startInstance(pg.url);
    try {
      const ta = a as unknown as TestApp;
      const steve = await seedUser(ta, 'Steve');
      const serverId = await addServer(ta, { name: 'Гонка' });
      await a.handle.db.transaction().execute((trx) =>
        enqueueDeliveries(
          trx,
          Array.from({ length: 10 }, (_, i) => ({
            source: 'shop' as const,
            sourceId: null,
            userId: steve,
            label: 'Алмаз',
            server: serverId,
            commands: [`give {player} diamond ${i + 1}`],
          })),
        ),
      );
      const players = [{ name: 'Steve', uuid: offlinePlayerUuid('Steve') }];
      const server = { id: serverId, template: null };
      // The first holds its transaction open after handing out; the second reads the same rows meanwhile.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let firstDone!: () => void;
      const firstHanded = new Promise<void>((r) => (firstDone = r));
      const first = a.handle.db.transaction().execute(async (trx) => {
        const answer = await handToPlugin(trx, server, players, Date.now());
        firstDone();
        await held;
        return answer;
      });
      await firstHanded;
      const second = b.handle.db.transaction().execute((trx) => handToPlugin(trx, server, players, Date.now()));
      // The second's update waits for the first's row locks; let the first commit.
      await new Promise((r) => setTimeout(r, 200));
      release();
      const [one, two] = await Promise.all([first, second]);
      expect(one.Steve).toHaveLength(10);
      expect(two).toEqual({});
    } finally {
      await a.close();
      await b.close();
      await pg.drop();
    }
  });

  it('never hands one command twice while both answer fetches at once', async () => {
    const pg = await createPgDatabase();
    const a = await startInstance(pg.url);
    const b = await startInstance(pg.url);
    try {
      await a.app.listen({ port: 0, host: '127.0.0.1' });
      await b.app.listen({ port: 0, host: '127.0.0.1' });
      const urls = [a, b].map((x) => `http://127.0.0.1:${(x.app.server.address() as AddressInfo).port}`);
      const ta = a as unknown as TestApp;
      await seedUser(ta, 'Admin', { admin: true });
      const names = Array.from({ length: 20 }, (_, i) => `Player${i}`);
      const ids: number[] = [];
      for (const n of names) ids.push(await seedUser(ta, n));
      const adminToken = await loginAs(ta, 'Admin');
      const serverId = await addServer(ta, { name: 'Сеть' });
      const { token } = (await a.app.inject(asUser(adminToken, { method: 'POST', url: `/api/servers/${serverId}/link` }))).json<{
        token: string;
      }>();
      const requests: DeliveryRequest[] = [];
      for (let i = 0; i < 300; i++)
        requests.push({
          source: 'shop',
          sourceId: null,
          userId: ids[i % ids.length]!,
          label: 'Алмаз',
          server: serverId,
          commands: [`give {player} diamond ${i + 1}`],
        });
      await a.handle.db.transaction().execute((trx) => enqueueDeliveries(trx, requests));

      // Four plugins with the same key (a retried call, a copied config), two per instance.
      const time = clock();
      const plugins = [0, 1, 2, 3].map(() => new AzLinkPlugin({ now: time.now }));
      for (const [i, p] of plugins.entries()) {
        await p.setup(urls[i % 2]!, token);
        for (const n of names) p.join(n);
      }
      for (let round = 0; round < 10; round++) {
        time.step();
        await Promise.all(plugins.map((p) => p.fetch()));
      }
      const ran = plugins.flatMap((p) => p.console);
      expect(ran).toHaveLength(300);
      expect(new Set(ran).size).toBe(300);
      const left = await a.handle.db.selectFrom('deliveries').select('id').where('state', '!=', 'done').execute();
      expect(left).toEqual([]);
    } finally {
      await a.close();
      await b.close();
      await pg.drop();
    }
  });
});
