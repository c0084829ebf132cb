import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminVoteSite, VoteSiteBody, VotesResponse, VoteTopResponse } from '@kubik/contract';
import { asUser, createTestApp, dbKinds, loginAs, postBrokenJson, seedUser, startInstance, type TestApp } from '../../test/test-app.ts';
import { findLedgerMismatches } from '../ledger/ledger.service.ts';
import { payMonthPrizes } from './votes.prizes.ts';
import { RECENT_KEPT } from './votes.repo.ts';
import { CALLBACKS_PER_IP, monthOf, monthRange, previousMonth } from './votes.service.ts';

const hex = (alg: string, s: string) => createHash(alg).update(s).digest('hex');
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const TOP_IP = '198.51.100.7';

describe.each(dbKinds)('vote tops on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let steveId: number;
  let player: string;
  const sites: Record<string, AdminVoteSite> = {};

  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
    await seedUser(t, 'Owner', { admin: true });
    admin = await loginAs(t, 'Owner');
    steveId = await seedUser(t, 'Steve');
    player = await loginAs(t, 'Steve');
    for (const name of ['Alex', 'Notch', 'Jeb']) await seedUser(t, name);
  });
  afterAll(() => t?.close());

  const db = () => t.handle.db;
  const balanceOf = async (name: string) =>
    Number((await db().selectFrom('users').select('balance').where('username', '=', name).executeTakeFirstOrThrow()).balance);
  const addSite = async (body: VoteSiteBody, token = admin) =>
    t.app.inject(asUser(token, { method: 'POST', url: '/api/admin/vote-sites', payload: body }));
  const form = (id: number, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: `/api/votes/callback/${id}`,
      headers: { ...FORM, ...headers },
      payload: new URLSearchParams(fields).toString(),
      remoteAddress: TOP_IP,
    });
  const topcraft = (site: AdminVoteSite, username: string, secret: string, ts = Math.floor(Date.now() / 1000)) =>
    form(site.id, { username, timestamp: String(ts), signature: hex('sha1', `${username}${ts}${secret}`) });
  const outcomes = async (id: number) => {
    const list = (await t.app.inject(asUser(admin, { method: 'GET', url: '/api/admin/vote-sites' }))).json<AdminVoteSite[]>();
    return list.find((s) => s.id === id)!;
  };

  it('is the owner’s: players get 403, guests 401; a bad top is refused with the field named', async () => {
    const body: VoteSiteBody = { kind: 'topcraft', title: 'TopCraft', url: 'https://topcraft.ru/servers/1/', secret: 'tc-secret' };
    expect((await addSite(body, player)).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'POST', url: '/api/admin/vote-sites', payload: body })).statusCode).toBe(401);
    const bad = await addSite({ ...body, kind: 'nope' as 'topcraft' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid', field: 'kind' });
    const noSecret = await addSite({ ...body, secret: '' });
    expect(noSecret.json()).toMatchObject({ code: 'invalid', field: 'secret' });
    const custom = await addSite({ ...body, kind: 'custom' });
    expect(custom.json()).toMatchObject({ code: 'invalid', field: 'custom' });
  });

  it('adds a top and gives its callback address; the secret is never sent back', async () => {
    const res = await addSite({
      kind: 'topcraft',
      title: 'TopCraft',
      url: 'https://topcraft.ru/servers/1/',
      secret: 'tc-secret',
      reward_amount: 5,
      reward_commands: ['give {player} diamond 1'],
    });
    expect(res.statusCode, res.body).toBe(201);
    sites.topcraft = res.json<AdminVoteSite>();
    expect(sites.topcraft).toMatchObject({
      kind: 'topcraft',
      cooldown_hours: 24,
      enabled: true,
      reward_amount: 5,
      secret_hint: '••••cret',
    });
    expect(sites.topcraft.callback_url).toBe(`http://kubik.test/api/votes/callback/${sites.topcraft.id}`);
    expect(res.body).not.toContain('tc-secret');
  });

  it('TopCraft: a signed vote pays once; its replay, a second vote within the cooldown and a forged one pay nothing', async () => {
    const site = sites.topcraft!;
    const ts = Math.floor(Date.now() / 1000);
    const first = await topcraft(site, 'Steve', 'tc-secret', ts);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.body).toBe('ok');
    expect(await balanceOf('Steve')).toBe(500);
    const ledger = await db().selectFrom('ledger').selectAll().where('user_id', '=', steveId).where('reason', '=', 'vote_reward').execute();
    expect(ledger).toHaveLength(1);
    expect(ledger[0]!.ref).toMatch(/^vote:\d+$/);
    const delivery = await db().selectFrom('deliveries').selectAll().where('user_id', '=', steveId).where('source', '=', 'vote').execute();
    expect(delivery).toHaveLength(1);
    expect(JSON.parse(delivery[0]!.commands!)).toEqual(['give {player} diamond 1']);
    const notices = await db().selectFrom('notices').selectAll().where('user_id', '=', steveId).where('kind', '=', 'vote_reward').execute();
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ title: 'Спасибо за голос в «TopCraft»!', link: '/vote' });

    expect((await topcraft(site, 'Steve', 'tc-secret', ts)).body).toBe('ok'); // replay
    expect((await topcraft(site, 'steve', 'tc-secret', ts + 5)).body).toBe('ok'); // within the cooldown
    const forged = await topcraft(site, 'Steve', 'wrong-secret', ts + 9);
    expect(forged.statusCode).toBe(403);
    const stale = await topcraft(site, 'Steve', 'tc-secret', ts - 3600);
    expect(stale.statusCode).toBe(400);
    const unknown = await topcraft(site, 'Nobody', 'tc-secret', ts);
    expect(unknown.statusCode).toBe(200);
    const broken = await form(site.id, { username: 'Steve' });
    expect(broken.statusCode).toBe(400);
    expect(await balanceOf('Steve')).toBe(500);

    const seen = await outcomes(site.id);
    expect(seen.counts).toEqual({ accepted: 1, replay: 1, cooldown: 1, bad_signature: 1, stale: 1, unknown_name: 1, bad_request: 1 });
    expect(seen.recent.map((r) => r.outcome)).toEqual([
      'bad_request',
      'unknown_name',
      'stale',
      'bad_signature',
      'cooldown',
      'replay',
      'accepted',
    ]);
    expect(seen.recent[1]).toMatchObject({ username: 'Nobody', ip: TOP_IP });
  });

  it('McTOP: token = md5(nickname + secret), no time: the cooldown stops a repeat', async () => {
    const res = await addSite({ kind: 'mctop', title: 'McTOP', url: 'https://mctop.su/servers/1/', secret: 'mc-secret', reward_amount: 2 });
    const site = (sites.mctop = res.json<AdminVoteSite>());
    const call = (nickname: string, secret = 'mc-secret') => form(site.id, { nickname, token: hex('md5', `${nickname}${secret}`) });
    const before = await balanceOf('Alex');
    expect((await call('Alex')).body).toBe('OK');
    expect((await call('Alex')).body).toBe('OK');
    expect((await call('Alex', 'other')).statusCode).toBe(403);
    expect(await balanceOf('Alex')).toBe(before + 200);
    // GET with the fields in the query works the same.
    const viaGet = await t.app.inject({
      method: 'GET',
      url: `/api/votes/callback/${site.id}?nickname=Notch&token=${hex('md5', 'Notchmc-secret')}`,
      remoteAddress: TOP_IP,
    });
    expect(viaGet.body).toBe('OK');
    expect((await outcomes(site.id)).counts).toEqual({ accepted: 2, cooldown: 1, bad_signature: 1 });
  });

  it('MinecraftRating: TopCraft’s signature plus the voter’s address', async () => {
    const res = await addSite({
      kind: 'minecraftrating',
      title: 'MinecraftRating',
      url: 'https://minecraftrating.ru/projects/x/',
      secret: 'mr',
      reward_amount: 1,
    });
    const site = res.json<AdminVoteSite>();
    const ts = String(Math.floor(Date.now() / 1000));
    const ok = await form(site.id, { username: 'Jeb', timestamp: ts, signature: hex('sha1', `Jeb${ts}mr`), ip: '203.0.113.5' });
    expect(ok.body).toBe('ok');
    const bad = await form(site.id, { username: 'Jeb', timestamp: ts, signature: hex('sha1', `Jeb${ts}xx`), ip: '203.0.113.5' });
    expect(bad.statusCode).toBe(403);
    expect(await balanceOf('Jeb')).toBe(100);
  });

  it('MonitoringMinecraft: JSON with a bearer secret; its test call is answered and pays nothing', async () => {
    const res = await addSite({
      kind: 'monitoringminecraft',
      title: 'MonitoringMinecraft',
      url: 'https://monitoringminecraft.ru/top/x',
      secret: 'mm-bearer',
      reward_amount: 3,
    });
    const site = res.json<AdminVoteSite>();
    const call = (body: object, bearer = 'mm-bearer') =>
      t.app.inject({
        method: 'POST',
        url: `/api/votes/callback/${site.id}`,
        headers: { authorization: `Bearer ${bearer}` },
        payload: body,
        remoteAddress: TOP_IP,
      });
    const before = await balanceOf('Notch');
    expect((await call({ nickname: 'Notch', server_id: 5, timestamp: new Date().toISOString(), test: true })).body).toBe('OK');
    expect(await balanceOf('Notch')).toBe(before);
    expect((await call({ nickname: 'Notch', server_id: 5, timestamp: new Date().toISOString() }, 'wrong')).statusCode).toBe(403);
    expect((await call({ nickname: 'Notch', server_id: 5, timestamp: 'yesterday' })).statusCode).toBe(400);
    expect((await call({ nickname: 'Notch', server_id: 5, timestamp: new Date().toISOString() })).body).toBe('OK');
    expect(await balanceOf('Notch')).toBe(before + 300);
    expect((await outcomes(site.id)).counts).toEqual({ test: 1, bad_signature: 1, bad_request: 1, accepted: 1 });
  });

  it('a custom top: the owner’s field names and sha256 over the template', async () => {
    const res = await addSite({
      kind: 'custom',
      title: 'Мой топ',
      url: 'https://example.org/top',
      secret: 'cs',
      reward_amount: 1,
      custom: {
        username_field: 'player',
        timestamp_field: 'time',
        signature_field: 'hash',
        hash: 'sha256',
        template: '{username}|{timestamp}|{secret}',
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const site = res.json<AdminVoteSite>();
    const time = String(Date.now());
    const before = await balanceOf('Alex');
    expect((await form(site.id, { player: 'Alex', time, hash: hex('sha256', `Alex|${time}|cs`) })).body).toBe('OK');
    expect((await form(site.id, { player: 'Alex', time, hash: hex('sha1', `Alex|${time}|cs`) })).statusCode).toBe(403);
    expect(await balanceOf('Alex')).toBe(before + 100);
  });

  it('keeps counts of every callback but only the latest 50 in the list', async () => {
    const site = sites.mctop!;
    const before = (await outcomes(site.id)).counts.bad_signature ?? 0;
    for (let i = 0; i < RECENT_KEPT + 5; i++) await form(site.id, { nickname: 'Steve', token: 'f'.repeat(32) });
    const seen = await outcomes(site.id);
    expect(seen.counts.bad_signature).toBe(before + RECENT_KEPT + 5);
    expect(seen.recent).toHaveLength(RECENT_KEPT);
    expect(await db().selectFrom('vote_log').select('id').where('site_id', '=', site.id).execute()).toHaveLength(RECENT_KEPT);
  });

  it('a disabled top refuses its callbacks; edits keep the secret when none is sent', async () => {
    const site = sites.mctop!;
    const edit = await t.app.inject(
      asUser(admin, {
        method: 'PUT',
        url: `/api/admin/vote-sites/${site.id}`,
        payload: { kind: 'mctop', title: 'McTOP 2', url: site.url, secret: '', reward_amount: 2, cooldown_hours: 1 },
      }),
    );
    expect(edit.statusCode, edit.body).toBe(200);
    expect(edit.json()).toMatchObject({ title: 'McTOP 2', cooldown_hours: 1, secret_hint: '••••cret' });
    expect((await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/admin/vote-sites/${site.id}` }))).statusCode).toBe(200);
    const off = await form(site.id, { nickname: 'Jeb', token: hex('md5', 'Jebmc-secret') });
    expect(off.statusCode).toBe(404);
    const players = (await t.app.inject({ method: 'GET', url: '/api/votes' })).json<VotesResponse>();
    expect(players.sites.map((s) => s.id)).not.toContain(site.id);
    expect((await t.app.inject(asUser(admin, { method: 'DELETE', url: '/api/admin/vote-sites/99999' }))).json()).toMatchObject({
      code: 'vote_site_not_found',
    });
  });

  it('shows the player when each top can be voted on again, the month’s votes and its top', async () => {
    const me = (await t.app.inject(asUser(player, { method: 'GET', url: '/api/votes' }))).json<VotesResponse>();
    const tc = me.sites.find((s) => s.id === sites.topcraft!.id)!;
    expect(Date.parse(tc.next_vote_at!)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    expect(me.my_votes).toBe(1);
    expect(me.month).toBe(monthOf(Date.now(), t.app.ctx.config.timeZone));
    const guest = (await t.app.inject({ method: 'GET', url: '/api/votes' })).json<VotesResponse>();
    expect(guest.my_votes).toBeNull();
    expect(guest.sites.every((s) => s.next_vote_at === null)).toBe(true);
    const top = (await t.app.inject({ method: 'GET', url: '/api/votes/top' })).json<VoteTopResponse>();
    expect(top.top.map((x) => x.username)).toContain('Steve');
    expect(top.top[0]).toMatchObject({ place: 1 });
    expect((await t.app.inject({ method: 'GET', url: '/api/votes/top?month=2026-13' })).statusCode).toBe(400);
  });

  it('two callbacks at once (two instances on PostgreSQL) reward a player once per cooldown', async () => {
    const res = await addSite({ kind: 'topcraft', title: 'Race', url: 'https://topcraft.ru/servers/2/', secret: 'race', reward_amount: 1 });
    const site = res.json<AdminVoteSite>();
    const other = kind === 'pg' ? await startInstance(t.app.ctx.config.databaseUrl!) : null;
    try {
      const before = await balanceOf('Jeb');
      const now = Math.floor(Date.now() / 1000);
      const calls = Array.from({ length: 8 }, (_, i) => {
        const ts = now + i;
        const app = other && i % 2 === 1 ? other.app : t.app;
        return app.inject({
          method: 'POST',
          url: `/api/votes/callback/${site.id}`,
          headers: FORM,
          payload: new URLSearchParams({ username: 'Jeb', timestamp: String(ts), signature: hex('sha1', `Jeb${ts}race`) }).toString(),
          remoteAddress: TOP_IP,
        });
      });
      const answers = await Promise.all(calls);
      expect(answers.every((a) => a.statusCode === 200)).toBe(true);
      expect(await balanceOf('Jeb')).toBe(before + 100);
      expect((await outcomes(site.id)).counts).toEqual({ accepted: 1, cooldown: 7 });
    } finally {
      await other?.close();
    }
  });

  it('pays the month’s prizes once, after the month ended', async () => {
    const tz = t.app.ctx.config.timeZone;
    const now = Date.now();
    const last = previousMonth(monthOf(now, tz));
    const { start } = monthRange(last, tz);
    const ids = Object.fromEntries(
      (await db().selectFrom('users').select(['id', 'username']).execute()).map((u) => [u.username, u.id] as const),
    );
    const site = sites.topcraft!.id;
    // Alex 3 votes, Notch 2, Jeb 2 (Notch got there first), Steve 1.
    const rows = [
      ['Alex', 1],
      ['Alex', 2],
      ['Alex', 3],
      ['Notch', 4],
      ['Notch', 5],
      ['Jeb', 6],
      ['Jeb', 7],
      ['Steve', 8],
    ] as const;
    for (const [name, n] of rows)
      await db()
        .insertInto('votes')
        .values({ site_id: site, user_id: ids[name]!, dedupe: `${name}:old:${n}`, created_at: start + n * 60_000 })
        .execute();
    const prizes = await t.app.inject(asUser(admin, { method: 'PUT', url: '/api/admin/vote-prizes', payload: { prizes: [100, 50, 10] } }));
    expect(prizes.statusCode, prizes.body).toBe(200);
    const before = {
      Alex: await balanceOf('Alex'),
      Notch: await balanceOf('Notch'),
      Jeb: await balanceOf('Jeb'),
      Steve: await balanceOf('Steve'),
    };
    const runs = await Promise.all([payMonthPrizes(t.app.ctx, now), payMonthPrizes(t.app.ctx, now), payMonthPrizes(t.app.ctx, now)]);
    expect(runs.filter((r) => r !== null)).toHaveLength(1);
    expect(await payMonthPrizes(t.app.ctx, now)).toBeNull();
    expect(await balanceOf('Alex')).toBe(before.Alex + 10_000);
    expect(await balanceOf('Notch')).toBe(before.Notch + 5_000);
    expect(await balanceOf('Jeb')).toBe(before.Jeb + 1_000);
    expect(await balanceOf('Steve')).toBe(before.Steve);
    const top = (await t.app.inject({ method: 'GET', url: `/api/votes/top?month=${last}` })).json<VoteTopResponse>();
    expect(top).toMatchObject({ month: last, paid: true });
    expect(top.top.slice(0, 3).map((x) => [x.username, x.votes, x.prize])).toEqual([
      ['Alex', 3, 100],
      ['Notch', 2, 50],
      ['Jeb', 2, 10],
    ]);
    // A player who hides their profile keeps their place, votes and prize, without the name.
    const notch = await loginAs(t, 'Notch');
    const privacy = (hidden: boolean) => t.app.inject(asUser(notch, { method: 'PUT', url: '/api/user/privacy', payload: { hidden } }));
    expect((await privacy(true)).statusCode).toBe(200);
    for (const token of [null, player]) {
      const hidden = (await t.app.inject(asUser(token, { method: 'GET', url: `/api/votes/top?month=${last}` }))).json<VoteTopResponse>();
      expect(hidden.top.slice(0, 3).map((x) => [x.place, x.username, x.votes, x.prize])).toEqual([
        [1, 'Alex', 3, 100],
        [2, null, 2, 50],
        [3, 'Jeb', 2, 10],
      ]);
      expect(JSON.stringify(hidden)).not.toMatch(/notch/i);
    }
    expect((await privacy(false)).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `/api/votes/top?month=${last}` })).json<VoteTopResponse>().top[1]?.username).toBe(
      'Notch',
    );
    expect(await findLedgerMismatches(db())).toEqual([]);
  });

  it('queues the reward commands only on the servers the top names (server_ids), on every server when it names none', async () => {
    const mk = async (name: string) =>
      (
        await t.app.inject(
          asUser(admin, {
            method: 'POST',
            url: '/api/servers/',
            payload: { name, description: name, ip_address: '127.0.0.1', port: 25565, rcon_password: 'pw' },
          }),
        )
      ).json<{ server: { id: number } }>().server.id;
    const [one, two] = [await mk('Один'), await mk('Два')];
    const missing = await addSite({ kind: 'topcraft', title: 'Bad', url: 'https://b.example/', secret: 's', server_ids: [999_999] });
    expect(missing.json()).toMatchObject({ code: 'invalid', field: 'server_ids' });
    const res = await addSite({
      kind: 'topcraft',
      title: 'Only two',
      url: 'https://two.example/',
      secret: 'two-secret',
      reward_commands: ['give {player} apple 1'],
      server_ids: [two],
    });
    expect(res.statusCode, res.body).toBe(201);
    const site = res.json<AdminVoteSite>();
    expect(site.server_ids).toEqual([two]);
    const alex = (await db().selectFrom('users').select('id').where('username', '=', 'Alex').executeTakeFirstOrThrow()).id;
    expect((await topcraft(site, 'Alex', 'two-secret')).body).toBe('ok');
    const rows = await db()
      .selectFrom('deliveries')
      .select(['server_id', 'server_scope'])
      .where('user_id', '=', alex)
      .where('source', '=', 'vote')
      .execute();
    expect(rows).toEqual([{ server_id: two, server_scope: 'server' }]);
    expect(rows.some((r) => r.server_id === one)).toBe(false);

    // Edited to name both: the next vote (another player) goes to both.
    const edited = await t.app.inject(
      asUser(admin, {
        method: 'PUT',
        url: `/api/admin/vote-sites/${site.id}`,
        payload: {
          kind: 'topcraft',
          title: 'Only two',
          url: 'https://two.example/',
          secret: '',
          reward_commands: ['give {player} apple 1'],
          server_ids: [one, two],
        },
      }),
    );
    expect(edited.statusCode, edited.body).toBe(200);
    const jeb = (await db().selectFrom('users').select('id').where('username', '=', 'Jeb').executeTakeFirstOrThrow()).id;
    expect((await topcraft(site, 'Jeb', 'two-secret')).body).toBe('ok');
    const both = await db()
      .selectFrom('deliveries')
      .select('server_id')
      .where('user_id', '=', jeb)
      .where('source', '=', 'vote')
      .orderBy('server_id')
      .execute();
    expect(both.map((r) => r.server_id).filter((id) => id === one || id === two)).toEqual([one, two].sort((a, b) => a - b));
  });
  it('counts callbacks per address, an IPv6 client by its /64, and refuses one over the limit before reading its body', async () => {
    const site = sites.topcraft!;
    const url = `/api/votes/callback/${site.id}`;
    const logged = async () => (await db().selectFrom('vote_log').select('id').where('site_id', '=', site.id).execute()).length;
    // One subscriber's /64, a new address for every callback (issue 29: full addresses let it rotate).
    const statuses: number[] = [];
    for (let i = 1; i <= CALLBACKS_PER_IP + 1; i++)
      statuses.push(
        (
          await t.app.inject({
            method: 'POST',
            url,
            headers: FORM,
            payload: 'username=Nobody',
            remoteAddress: `2001:db8:77:1::${i.toString(16)}`,
          })
        ).statusCode,
      );
    expect(statuses.slice(0, CALLBACKS_PER_IP).includes(429)).toBe(false);
    expect(statuses.at(-1)).toBe(429);
    // Over the limit: refused before the body is parsed (broken JSON is not a 400) and nothing is logged.
    const before = await logged();
    const broken = await postBrokenJson(t, url, '2001:db8:77:1:ffff:ffff:ffff:1');
    expect(broken.statusCode).toBe(429);
    expect(Number(broken.headers['retry-after'])).toBeGreaterThan(0);
    expect(broken.json()).toMatchObject({ code: 'rate_limited' });
    expect(await logged()).toBe(before);
    // The next /64 and an IPv4 address are counted apart.
    for (const remoteAddress of ['2001:db8:77:2::1', '203.0.113.44'])
      expect((await t.app.inject({ method: 'POST', url, headers: FORM, payload: 'username=Nobody', remoteAddress })).statusCode).not.toBe(
        429,
      );
  });
});
