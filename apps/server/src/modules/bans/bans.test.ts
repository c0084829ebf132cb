import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { VanillaRconServer } from '../../../../../testing/rcon/vanilla-server.ts';
import { asUser, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { listeningSite } from '../../test/game-auth.ts';
import { dbKinds } from '../../test/test-app.ts';
import { drainDeliveries } from '../deliveries/deliveries.worker.ts';
import { addServer } from '../shop/shop.test-helpers.ts';
import { banEndText } from '../users/ban-status.ts';
import { banExpiryJob, liftExpiredBans } from './bans.service.ts';

const GRAVIT_SECRET = 'bans-test-gravit-secret-0123456789';
const PASSWORD = 'kubik-pass-42';
const DELIVERY = { intervalMs: 1000, timeoutMs: 4000 };
const HOUR = 3_600_000;

describe.each(dbKinds)('bans on %s', (kind) => {
  let t: TestApp & { base: string };
  let admin: string;
  let adminId: number;
  let rconA: VanillaRconServer;
  let rconB: VanillaRconServer;
  let serverA: number;
  let serverB: number;
  let serverNoRcon: number;

  beforeAll(async () => {
    t = await listeningSite(kind, { gravitSecret: GRAVIT_SECRET, delivery: DELIVERY, rateLimits: { enabled: false } });
    adminId = await seedUser(t, 'Admin', { admin: true, password: PASSWORD });
    await seedUser(t, 'Admin2', { admin: true, password: PASSWORD });
    admin = await loginAs(t, 'Admin', PASSWORD);
    rconA = new VanillaRconServer({ password: 'rcon-a' });
    rconB = new VanillaRconServer({ password: 'rcon-b' });
    await rconA.start(0);
    await rconB.start(0);
    serverA = await addServer(t, { name: 'Выживание', rcon_host: '127.0.0.1', rcon_port: rconA.port, rcon_password: 'rcon-a' });
    serverB = await addServer(t, { name: 'Креатив', rcon_host: '127.0.0.1', rcon_port: rconB.port, rcon_password: 'rcon-b' });
    serverNoRcon = await addServer(t, { name: 'Без RCON' });
  });
  afterAll(async () => {
    await rconA?.stop();
    await rconB?.stop();
    await t?.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const ban = (token: string | null, id: number, body: unknown) =>
    t.app.inject(asUser(token, { method: 'POST', url: `/api/admin/users/${id}/ban`, payload: body as object }));
  const unban = (token: string | null, id: number) => t.app.inject(asUser(token, { method: 'DELETE', url: `/api/admin/users/${id}/ban` }));
  const siteLogin = (username: string, password = PASSWORD) =>
    t.app.inject({ method: 'POST', url: '/api/user/login', payload: { username, password, bearer: true } });
  const me = (token: string) => t.app.inject(asUser(token, { method: 'GET', url: '/api/user/me' }));
  const ygg = (path: string, body: unknown) =>
    fetch(`${t.base}/api/yggdrasil/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const gravit = (path: string, body: unknown) =>
    fetch(`${t.base}/api/gravit/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${GRAVIT_SECRET}` },
      body: JSON.stringify(body),
    });
  const drain = () => drainDeliveries(t.handle.db, DELIVERY, t.app.log);
  const auditOf = (userId: number) =>
    t.handle.db
      .selectFrom('audit_log')
      .selectAll()
      .where('entity', '=', 'user')
      .where('entity_id', '=', String(userId))
      .orderBy('id')
      .execute();

  it('only administrators ban; nobody bans themselves or another administrator; bad input is refused in Russian', async () => {
    const id = await seedUser(t, 'Victim', { password: PASSWORD });
    const player = await loginAs(t, 'Victim', PASSWORD);
    const otherId = await seedUser(t, 'Bystander', { password: PASSWORD });

    expect((await ban(null, otherId, { note: 'x', until: null })).statusCode).toBe(401);
    const byPlayer = await ban(player, otherId, { note: 'x', until: null });
    expect(byPlayer.statusCode).toBe(403);
    expect((await unban(player, otherId)).statusCode).toBe(403);

    const self = await ban(admin, adminId, { note: 'Тест', until: null });
    expect(self.statusCode).toBe(409);
    expect(self.json()).toMatchObject({ code: 'cannot_ban_self', error: 'Нельзя заблокировать самого себя' });
    const admin2 = (await t.handle.db.selectFrom('users').select('id').where('username', '=', 'Admin2').executeTakeFirstOrThrow()).id;
    const other = await ban(admin, admin2, { note: 'Тест', until: null });
    expect(other.statusCode).toBe(409);
    expect(other.json().code).toBe('cannot_ban_admin');

    const past = await ban(admin, id, { note: 'Гриф', until: Date.now() - 1000 });
    expect(past.statusCode).toBe(400);
    expect(past.json()).toMatchObject({ field: 'until' });
    // The internal note is required (every ban keeps its why); the public reason is not.
    const noNote = await ban(admin, id, { reason: 'Гриф', note: '   ', until: null });
    expect(noNote.statusCode).toBe(400);
    expect(noNote.json()).toMatchObject({ field: 'note' });
    expect(errorOf(noNote)).toMatch(/внутреннюю заметку/);
    // A caller that still sends only `reason` is refused, so its text never turns public unasked.
    const oldShape = await ban(admin, id, { reason: 'Гриф', until: null });
    expect(oldShape.statusCode).toBe(400);
    expect(oldShape.json()).toMatchObject({ field: 'note' });
    for (const body of [
      { reason: 'a\nb', note: 'x', until: null },
      { note: 'a\nb', until: null },
      { reason: 'я'.repeat(201), note: 'x', until: null },
      { note: 'я'.repeat(501), until: null },
      { reason: 5, note: 'x', until: null },
    ]) {
      const res = await ban(admin, id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorOf(res)).toMatch(/[а-я]/i);
    }
    expect((await ban(admin, 999_999, { note: 'Гриф', until: null })).statusCode).toBe(404);
    expect((await unban(admin, id)).json()).toMatchObject({ code: 'not_banned' });
    // Nothing of that banned anyone.
    expect((await me(player)).statusCode).toBe(200);
  });

  it('a ban ends the session at once and refuses the site login, Yggdrasil and GravitLauncher with the public reason and the end', async () => {
    const id = await seedUser(t, 'Griefer', { password: PASSWORD });
    const session = await loginAs(t, 'Griefer', PASSWORD);
    expect((await me(session)).statusCode).toBe(200);
    // A game login before the ban, and a join the game server has not checked yet.
    const auth = await ygg('authserver/authenticate', { username: 'Griefer', password: PASSWORD, clientToken: 'c1' });
    expect(auth.status).toBe(200);
    const { accessToken, selectedProfile } = (await auth.json()) as { accessToken: string; selectedProfile: { id: string } };
    const serverId = 'abcdef0123456789';
    expect((await ygg('sessionserver/session/minecraft/join', { accessToken, selectedProfile: selectedProfile.id, serverId })).status).toBe(
      204,
    );
    const gravitAuth = await gravit('authorize', { login: 'Griefer', password: PASSWORD });
    expect(gravitAuth.status).toBe(200);
    const gravitToken = ((await gravitAuth.json()) as { accessToken: string }).accessToken;

    const until = Date.now() + 7 * 24 * HOUR;
    const note = 'SECRET internal reason: chargeback fraud';
    const res = await ban(admin, id, { reason: 'Гриф базы', note, until });
    expect(res.statusCode, res.body).toBe(200);
    const text = `Аккаунт заблокирован до ${banEndText(until)}: Гриф базы`;
    // The admin who banned gets the note back; nobody else below does.
    expect(res.json()).toMatchObject({ message: 'Игрок заблокирован', ban: { reason: 'Гриф базы', note, until, text } });
    expect(text).toMatch(/^Аккаунт заблокирован до \d\d\.\d\d\.\d{4}, \d\d:\d\d \(МСК\): Гриф базы$/);

    // The cookie's session is refused on the very next request.
    const after = await me(session);
    expect(after.statusCode).toBe(401);
    expect(errorOf(after)).toBe('Invalid token');
    // Site login: 403 with the reason and end, after the password (a wrong one still reads as wrong).
    const login = await siteLogin('Griefer');
    expect(login.statusCode).toBe(403);
    expect(login.json()).toMatchObject({ error: text, code: 'banned', ban: { reason: 'Гриф базы', until } });
    expect(login.body).not.toContain('SECRET');
    expect((await siteLogin('Griefer', 'wrong-password-1')).statusCode).toBe(401);
    expect((await siteLogin('griefer@example.com')).json().code).toBe('banned');

    // Yggdrasil: the token is gone, a new login is refused in the protocol's shape.
    expect((await ygg('authserver/validate', { accessToken })).status).toBe(403);
    const refresh = await ygg('authserver/refresh', { accessToken, clientToken: 'c1' });
    expect(refresh.status).toBe(403);
    expect(await refresh.json()).toEqual({ error: 'ForbiddenOperationException', errorMessage: 'Invalid token.' });
    const again = await ygg('authserver/authenticate', { username: 'Griefer', password: PASSWORD });
    expect(again.status).toBe(403);
    expect(await again.json()).toEqual({ error: 'ForbiddenOperationException', errorMessage: text });
    // The game server's check of the earlier join fails: the player cannot enter.
    const joined = await fetch(`${t.base}/api/yggdrasil/sessionserver/session/minecraft/hasJoined?username=Griefer&serverId=${serverId}`);
    expect(joined.status).toBe(204);
    // GravitLauncher: the old session is gone, a new login gets the reason.
    const byToken = await gravit('user/by-token', { accessToken: gravitToken });
    expect(byToken.status).not.toBe(200);
    const gAgain = await gravit('authorize', { login: 'Griefer', password: PASSWORD });
    expect(gAgain.status).toBe(400);
    expect(await gAgain.json()).toMatchObject({ error: text });
    expect(await t.handle.db.selectFrom('game_tokens').select('user_id').where('user_id', '=', id).execute()).toEqual([]);

    // The public profiles and the admin list say so, with the public reason alone.
    const profile = await t.app.inject({ method: 'GET', url: '/api/user/griefer/profile' });
    expect(profile.statusCode).toBe(200);
    expect(profile.json()).toMatchObject({ username: 'Griefer', hidden: false, ban: { reason: 'Гриф базы', until, text } });
    const page = await t.app.inject({ method: 'GET', url: '/api/players/Griefer' });
    expect(page.json()).toMatchObject({ ban: { reason: 'Гриф базы', until, text } });
    for (const answer of [profile, page]) expect(answer.body).not.toContain('SECRET');
    // What the player reads in the bell when the ban ends.
    const bell = await t.handle.db.selectFrom('notices').select('body').where('user_id', '=', id).where('kind', '=', 'ban').execute();
    expect(bell).toEqual([{ body: text }]);
    const list = (await t.app.inject(asUser(admin, { method: 'GET', url: '/api/user/all' }))).json() as {
      username: string;
      ban: unknown;
    }[];
    expect(list.find((u) => u.username === 'Griefer')?.ban).toMatchObject({ reason: 'Гриф базы', until });
    expect(list.find((u) => u.username === 'Admin')?.ban).toBeNull();
    expect((await t.app.inject({ method: 'GET', url: '/api/user/Nobody_here/profile' })).statusCode).toBe(404);

    // Audited with words the admin reads.
    const entries = await auditOf(id);
    expect(entries.at(-1)).toMatchObject({ action: 'user.ban', actor_id: adminId });
    expect(JSON.parse(entries.at(-1)!.after_json!)).toEqual({
      username: 'Griefer',
      reason: 'Гриф базы',
      note,
      term: `до ${banEndText(until)}`,
    });

    // Banning again changes the terms; the account stays banned. Without a public reason the
    // player is told the term alone. Unbanning lets the player in.
    const forever = await ban(admin, id, { note: 'Читы: повторно, по жалобе', until: null });
    expect(forever.json()).toMatchObject({
      message: 'Блокировка изменена',
      ban: { reason: '', note: 'Читы: повторно, по жалобе', until: null, text: 'Аккаунт заблокирован навсегда' },
    });
    expect((await siteLogin('Griefer')).json().error).toBe('Аккаунт заблокирован навсегда');
    expect((await t.app.inject({ method: 'GET', url: '/api/user/Griefer/profile' })).json().ban).toMatchObject({
      reason: '',
      text: 'Аккаунт заблокирован навсегда',
    });
    expect(JSON.parse((await auditOf(id)).at(-1)!.before_json!)).toMatchObject({ reason: 'Гриф базы', note });
    const lifted = await unban(admin, id);
    expect(lifted.statusCode).toBe(200);
    expect(lifted.json().message).toBe('Блокировка снята');
    expect((await siteLogin('Griefer')).statusCode).toBe(200);
    expect((await ygg('authserver/authenticate', { username: 'Griefer', password: PASSWORD })).status).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/user/Griefer/profile' })).json().ban).toBeNull();
    expect((await auditOf(id)).map((e) => e.action).slice(-3)).toEqual(['user.ban', 'user.ban.update', 'user.unban']);
    const history = (await t.app.inject(asUser(admin, { method: 'GET', url: `/api/admin/bans?user_id=${id}` }))).json();
    expect(history).toEqual([
      expect.objectContaining({
        username: 'Griefer',
        reason: '',
        note: 'Читы: повторно, по жалобе',
        until: null,
        created_by: 'Admin',
        lifted_by: 'Admin',
        lift_reason: 'admin',
        active: false,
      }),
    ]);
  });

  it('sends the in-game ban and unban only to servers where they are set and RCON works; the reason cannot add a command', async () => {
    const bad = await t.app.inject(
      asUser(admin, {
        method: 'PUT',
        url: `/api/admin/bans/commands/${serverA}`,
        payload: { ban_command: 'ban {name}', unban_command: null },
      }),
    );
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad)).toMatch(/неизвестная подстановка \{name\}/);
    const noPlayer = await t.app.inject(
      asUser(admin, { method: 'PUT', url: `/api/admin/bans/commands/${serverA}`, payload: { ban_command: 'say hi', unban_command: null } }),
    );
    expect(noPlayer.statusCode).toBe(400);
    const set = await t.app.inject(
      asUser(admin, {
        method: 'PUT',
        url: `/api/admin/bans/commands/${serverA}`,
        payload: { ban_command: 'ban {player} {reason}', unban_command: 'pardon {player}' },
      }),
    );
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toEqual({
      server_id: serverA,
      server_name: 'Выживание',
      rcon: true,
      ban_command: 'ban {player} {reason}',
      unban_command: 'pardon {player}',
    });
    // A server without RCON keeps its commands but is never sent to.
    expect(
      (
        await t.app.inject(
          asUser(admin, {
            method: 'PUT',
            url: `/api/admin/bans/commands/${serverNoRcon}`,
            payload: { ban_command: 'ban {player}', unban_command: '' },
          }),
        )
      ).json(),
    ).toMatchObject({ rcon: false, unban_command: null });
    expect(
      (
        await t.app.inject(
          asUser(admin, { method: 'PUT', url: '/api/admin/bans/commands/999999', payload: { ban_command: null, unban_command: null } }),
        )
      ).statusCode,
    ).toBe(404);
    const listed = (await t.app.inject(asUser(admin, { method: 'GET', url: '/api/admin/bans/commands' }))).json() as {
      server_id: number;
    }[];
    expect(listed.map((s) => s.server_id)).toEqual(expect.arrayContaining([serverA, serverB, serverNoRcon]));

    const id = await seedUser(t, 'Cheater', { password: PASSWORD });
    const res = await ban(admin, id, { reason: 'Читы /op @a -s {x} "кавычки"', note: 'SECRET возврат платежа', until: null });
    expect(res.statusCode, res.body).toBe(200);
    await drain();
    // The game shows {reason} to the player (the kick and the ban screen): the public reason only.
    expect(rconA.commands).toContain('ban Cheater Читы op a s x кавычки');
    expect(rconA.banned.has('cheater')).toBe(true);
    expect(rconB.commands.filter((c) => c.includes('Cheater'))).toEqual([]);
    const rows = await t.handle.db.selectFrom('deliveries').select(['source', 'server_id', 'state']).where('user_id', '=', id).execute();
    expect(rows).toEqual([{ source: 'ban', server_id: serverA, state: 'done' }]);

    expect((await unban(admin, id)).statusCode).toBe(200);
    await drain();
    expect(rconA.commands).toContain('pardon Cheater');
    expect(rconA.banned.has('cheater')).toBe(false);
    // Without a public reason the game gets a neutral one, never the note.
    const quiet = await seedUser(t, 'Quiet', { password: PASSWORD });
    expect((await ban(admin, quiet, { note: 'SECRET жалоба от игрока', until: null })).statusCode).toBe(200);
    await drain();
    expect(rconA.commands).toContain('ban Quiet Нарушение правил');
    expect(rconA.commands.filter((c) => /SECRET/i.test(c))).toEqual([]);
    const queued = await t.handle.db.selectFrom('deliveries').select('params').where('user_id', 'in', [id, quiet]).execute();
    expect(queued.filter((d) => /SECRET/.test(d.params))).toEqual([]);
    expect(rconB.commands).toEqual([]);
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action'])
      .where('entity', '=', 'server')
      .where('entity_id', '=', String(serverA))
      .execute();
    expect(audit.map((a) => a.action)).toEqual(['server.ban_commands']);
  });

  it('lifts a ban at its end by the scheduled job (fake time): unban commands sent once, audited, the player logs in again', async () => {
    const id = await seedUser(t, 'Tempban', { password: PASSWORD });
    const until = Date.now() + 2 * HOUR;
    expect((await ban(admin, id, { reason: 'Флуд', note: 'Флуд в чате, три предупреждения', until })).statusCode).toBe(200);
    await drain();
    expect(rconA.commands).toContain('ban Tempban Флуд');
    // Before the end nothing is lifted.
    expect(await liftExpiredBans(t.handle.db, until - 1000)).toBe(0);
    expect((await siteLogin('Tempban')).statusCode).toBe(403);

    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(until + 1000);
    // The end passed: logins work even before the job ran.
    expect((await siteLogin('Tempban')).statusCode).toBe(200);
    expect(await t.app.ctx.schedule.runIfDue(banExpiryJob(t.app.ctx))).toBe('ran');
    // A second pass (another instance, a restart) finds nothing to do.
    expect(await liftExpiredBans(t.handle.db, until + 2000)).toBe(0);
    // The unban command was queued at the (fake) end: send it at that time.
    await drain();
    vi.useRealTimers();

    const user = await t.handle.db
      .selectFrom('users')
      .select(['banned_at', 'ban_until', 'ban_reason'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(user).toEqual({ banned_at: null, ban_until: null, ban_reason: null });
    const row = await t.handle.db.selectFrom('bans').selectAll().where('user_id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ lift_reason: 'expired', lifted_by: null });
    const last = (await auditOf(id)).at(-1)!;
    expect(last).toMatchObject({ action: 'user.unban', actor_id: null });
    expect(JSON.parse(last.after_json!)).toMatchObject({ lift_reason: 'Срок блокировки истёк' });
    expect(rconA.commands.filter((c) => c === 'pardon Tempban')).toHaveLength(1);
    expect(rconB.commands).toEqual([]);
  });

  it.runIf(kind === 'pg')('drops a banned session on every instance at once', async () => {
    const { startInstance } = await import('../../test/test-app.ts');
    const other = await startInstance(t.app.ctx.config.databaseUrl!);
    try {
      const id = await seedUser(t, 'Roamer', { password: PASSWORD });
      const session = await loginAs(t, 'Roamer', PASSWORD);
      const viaOther = () => other.app.inject(asUser(session, { method: 'GET', url: '/api/user/me' }));
      // The other instance has the session in its memory now.
      expect((await viaOther()).statusCode).toBe(200);
      expect((await viaOther()).statusCode).toBe(200);
      expect((await ban(admin, id, { note: 'Гриф', until: null })).statusCode).toBe(200);
      let status = 200;
      for (let i = 0; i < 50 && status === 200; i++) {
        status = (await viaOther()).statusCode;
        if (status === 200) await new Promise((r) => setTimeout(r, 20));
      }
      expect(status).toBe(401);
    } finally {
      await other.close();
    }
  });
});
