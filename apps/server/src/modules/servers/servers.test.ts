import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultStatus, StatusPeer } from '../../../../../testing/minecraft-status-peer.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { ServerMonitor, thinHistory } from './servers.monitor.ts';

const SECRET = 'hunter2-rcon-Секрет';
const base = {
  name: 'Выживание',
  description: 'Ванильное выживание 1.21',
  image_url: '',
  ip_address: '127.0.0.1',
  port: 25565,
  max_online: 100,
};

describe.each(dbKinds)('servers API on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let player: string;
  let adminId: number;
  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false, monitor: { intervalMs: 60_000, timeoutMs: 400, concurrency: 4 } });
    adminId = await seedUser(t, 'Admin', { admin: true });
    await seedUser(t, 'Player');
    admin = await loginAs(t, 'Admin');
    player = await loginAs(t, 'Player');
  });
  afterAll(async () => {
    await t?.close();
  });

  const call = (token: string | null, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject(asUser(token, { method, url, ...(payload === undefined ? {} : { payload: payload as object }) }));
  const list = async () => (await call(null, 'GET', '/api/servers/')).json<{ servers: Record<string, unknown>[]; total_online: number }>();
  const count = async () =>
    Number(
      (
        await t.handle.db
          .selectFrom('servers')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const create = async (body: Record<string, unknown> = {}) => {
    const res = await call(admin, 'POST', '/api/servers/', { ...base, ...body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ server: Record<string, unknown> & { id: number } }>().server;
  };
  const clear = async () => {
    await t.handle.db.deleteFrom('server_online_history').execute();
    await t.handle.db.deleteFrom('servers').execute();
    await t.app.ctx.publicCache.invalidate('servers');
  };

  it('lets everyone read the list and only administrators change it', async () => {
    await clear();
    const empty = await call(null, 'GET', '/api/servers/');
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({ servers: [], total_online: 0 });
    expect((await call(null, 'GET', '/api/servers')).statusCode).toBe(200);

    for (const [token, status] of [
      [null, 401],
      [player, 403],
    ] as const) {
      expect((await call(token, 'POST', '/api/servers/', base)).statusCode).toBe(status);
      expect((await call(token, 'PUT', '/api/servers/1', base)).statusCode).toBe(status);
      expect((await call(token, 'DELETE', '/api/servers/1')).statusCode).toBe(status);
      expect((await call(token, 'POST', '/api/servers/monitor')).statusCode).toBe(status);
      expect((await call(token, 'GET', '/api/servers/admin')).statusCode).toBe(status);
    }
    expect(errorOf(await call(player, 'POST', '/api/servers/', base))).toBe('Доступно только администраторам');
    expect(await count()).toBe(0);

    const res = await call(admin, 'POST', '/api/servers/', { name: 'Лобби', description: 'Вход на сеть' });
    expect(res.statusCode).toBe(201);
    expect(res.json().message).toBe('Сервер добавлен');
    expect(res.json().server).toMatchObject({
      name: 'Лобби',
      ip_address: '',
      port: 25565,
      max_online: 100,
      maxOnline: 100,
      online: 0,
      current_online: 0,
      status: 'offline',
      last_checked_at: null,
      has_rcon_password: false,
      rcon_configured: false,
      command_template: 'give {player} minecraft:{item} {quantity}',
    });

    const { servers } = await list();
    expect(servers).toHaveLength(1);
    expect(servers[0]).toMatchObject({
      name: 'Лобби',
      description: 'Вход на сеть',
      status: 'offline',
      max_online: 100,
      maxOnline: 100,
      online: 0,
      current_online: 0,
    });
    expect((servers[0]!.history as { points: unknown[] }).points).toHaveLength(48);
  });

  it('edits and deletes, with an audit row for each change, and the list follows at once', async () => {
    await clear();
    const s = await create();
    await list(); // fill the cache
    const put = await call(admin, 'PUT', `/api/servers/${s.id}`, { ...base, name: 'Выживание 2', max_online: 200 });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ message: 'Сервер обновлён', server: { name: 'Выживание 2', max_online: 200 } });
    expect((await list()).servers[0]).toMatchObject({ name: 'Выживание 2', max_online: 200, maxOnline: 200 });

    expect((await call(admin, 'PUT', '/api/servers/999999', base)).statusCode).toBe(404);
    expect(errorOf(await call(admin, 'PUT', '/api/servers/999999', base))).toBe('Сервер не найден');
    expect((await call(admin, 'PUT', '/api/servers/abc', base)).statusCode).toBe(400);
    expect((await call(admin, 'DELETE', '/api/servers/999999')).statusCode).toBe(404);

    const del = await call(admin, 'DELETE', `/api/servers/${s.id}`);
    expect(del.statusCode).toBe(200);
    expect(del.json().message).toBe('Сервер удалён');
    expect((await list()).servers).toEqual([]);

    const audit = await t.handle.db
      .selectFrom('audit_log')
      .selectAll()
      .where('entity', '=', 'server')
      .where('entity_id', '=', String(s.id))
      .orderBy('id')
      .execute();
    expect(audit.map((a) => a.action)).toEqual(['server.create', 'server.update', 'server.delete']);
    expect(audit.every((a) => a.actor_id === adminId)).toBe(true);
    expect(JSON.parse(audit[1]!.before_json!).name).toBe('Выживание');
    expect(JSON.parse(audit[1]!.after_json!).name).toBe('Выживание 2');
  });

  it('refuses bad input of any shape with a Russian 400 and changes nothing', async () => {
    await clear();
    const s = await create();
    const bad: [unknown, RegExp][] = [
      [{ ...base, name: undefined }, /Введите название сервера/],
      [{ ...base, name: '   ' }, /Введите название сервера/],
      [{ ...base, name: 'x'.repeat(101) }, /не длиннее 100/],
      [{ ...base, description: '' }, /Введите описание сервера/],
      [{ ...base, description: 42 }, /Введите описание сервера/],
      [{ ...base, name: 'a\u0000b' }, /без управляющих символов|Недопустимые символы/],
      [{ ...base, name: 'две\nстроки' }, /одна строка/],
      [{ ...base, description: 'x\u0000' }, /без управляющих символов|Недопустимые символы/],
      [{ ...base, port: 0 }, /Порт — целое число от 1 до 65535/],
      [{ ...base, port: 65536 }, /Порт — целое число от 1 до 65535/],
      [{ ...base, port: 25565.5 }, /Порт — целое число/],
      [{ ...base, port: 'abc' }, /Порт — целое число/],
      [{ ...base, port: true }, /Порт — целое число/],
      [{ ...base, port: '' }, /Порт — целое число/],
      [{ ...base, max_online: 0 }, /Максимальный онлайн/],
      [{ ...base, max_online: -5 }, /Максимальный онлайн/],
      [{ ...base, max_online: 1e12 }, /Максимальный онлайн/],
      [{ ...base, ip_address: 'mc.example.com:25565' }, /доменное имя или IP-адрес/],
      [{ ...base, ip_address: 'http://mc.example.com' }, /доменное имя или IP-адрес/],
      [{ ...base, ip_address: '300.1.1.1' }, /доменное имя или IP-адрес/],
      [{ ...base, ip_address: 'bad host' }, /доменное имя или IP-адрес/],
      [{ ...base, ip_address: '-x.example.com' }, /доменное имя или IP-адрес/],
      [{ ...base, image_url: 'javascript:alert(1)' }, /Ссылка на изображение/],
      [{ ...base, image_url: '//evil.example/x.png' }, /Ссылка на изображение/],
      [{ ...base, image_url: 'ftp://x.example/a.png' }, /Ссылка на изображение/],
      [{ ...base, image_url: '/a\u0000.png' }, /Ссылка на изображение|Недопустимые символы/],
      [{ ...base, rcon_port: 70000 }, /Порт RCON/],
      [{ ...base, rcon_host: 'a b' }, /Адрес RCON/],
      [{ ...base, rcon_password: 'line\nbreak' }, /Пароль RCON/],
      [{ ...base, rcon_password: 123 }, /Пароль RCON/],
      [{ ...base, command_template: 'give {player} diamond 1\nop {player}' }, /Шаблон команды: недопустимый символ U\+000A/],
      // What the sender would refuse later is refused when saved: NEL, line separator, a newline at the end, invisible marks.
      [{ ...base, command_template: 'give {player} diamond 1\u0085op {player}' }, /недопустимый символ U\+0085/],
      [{ ...base, command_template: 'give {player} diamond 1\u2028op {player}' }, /недопустимый символ U\+2028/],
      [{ ...base, command_template: 'give {player} diamond 1\n' }, /недопустимый символ U\+000A/],
      [{ ...base, command_template: '\u2029' }, /недопустимый символ U\+2029/],
      [{ ...base, command_template: 'give {player}\u202e diamond 1' }, /недопустимый символ U\+202E/],
      [{ ...base, command_template: 'eco give {player} {money}' }, /неизвестная подстановка \{money\}/],
      [{ ...base, command_template: 'say hello' }, /нужна подстановка \{player\} или \{uuid\}/],
      [{ ...base, command_template: `give {player} ${'€'.repeat(470)}` }, /не уместиться в 1446 байт/],
      [{ ...base, is_admin: true }, /./],
      [[], /./],
      [null, /./],
    ];
    for (const [body, text] of bad) {
      for (const [method, url] of [
        ['POST', '/api/servers/'],
        ['PUT', `/api/servers/${s.id}`],
      ] as const) {
        const res = await call(admin, method, url, body);
        expect(res.statusCode, `${method} ${JSON.stringify(body)}: ${res.body}`).toBe(400);
        expect(errorOf(res)).toMatch(text);
        expect(errorOf(res)).toMatch(/[а-яё]/i);
      }
    }
    const raw = await t.app.inject(
      asUser(admin, { method: 'POST', url: '/api/servers/', headers: { 'content-type': 'application/json' }, payload: '{"name": ' }),
    );
    expect(raw.statusCode).toBe(400);
    const text = await t.app.inject(
      asUser(admin, { method: 'POST', url: '/api/servers/', headers: { 'content-type': 'text/plain' }, payload: 'name=x' }),
    );
    expect(text.statusCode).toBeGreaterThanOrEqual(400);
    expect(text.statusCode).toBeLessThan(500);
    expect(errorOf(text)).toMatch(/[а-яё]/i);
    expect(await count()).toBe(1);
    expect((await list()).servers[0]).toMatchObject({ name: base.name, port: 25565, ip_address: '127.0.0.1' });
  });

  it('accepts what people really type: Cyrillic domains, IPv6, numeric strings, site paths, NBT in commands', async () => {
    await clear();
    const s = await create({
      ip_address: ' майнкрафт.рф ',
      port: '25570',
      max_online: '50',
      image_url: '/uploads/server.png',
      command_template: 'give {player} minecraft:{item}{Unbreakable:1b} {quantity}',
    });
    expect(s).toMatchObject({
      ip_address: 'майнкрафт.рф',
      port: 25570,
      max_online: 50,
      image_url: '/uploads/server.png',
      command_template: 'give {player} minecraft:{item}{Unbreakable:1b} {quantity}',
    });
    const v6 = await create({ ip_address: '::1', image_url: 'https://cdn.example.com/a.png' });
    expect(v6.ip_address).toBe('::1');
  });

  it('keeps the RCON password write-only: never in an answer, masked in the audit log', async () => {
    await clear();
    const res = await call(admin, 'POST', '/api/servers/', {
      ...base,
      rcon_password: SECRET,
      command_template: 'give {player} {item} {quantity}',
    });
    expect(res.statusCode).toBe(201);
    expect(res.body).not.toContain(SECRET);
    const s = res.json().server as { id: number };
    expect(res.json().server).toMatchObject({ has_rcon_password: true, rcon_configured: true, rcon_host: null, rcon_port: 25575 });
    expect(res.json().server).not.toHaveProperty('rcon_password');

    const adminList = await call(admin, 'GET', '/api/servers/admin');
    expect(adminList.statusCode).toBe(200);
    expect(adminList.body).not.toContain(SECRET);
    expect(adminList.json().servers[0]).toMatchObject({
      has_rcon_password: true,
      rcon_configured: true,
      rcon_port: 25575,
      command_template: 'give {player} {item} {quantity}',
    });

    const pub = await call(null, 'GET', '/api/servers/');
    expect(pub.body).not.toContain(SECRET);
    expect(pub.body).not.toMatch(/rcon|command_template|has_rcon|fail_count|last_error/);

    const stored = async () =>
      t.handle.db
        .selectFrom('servers')
        .select(['rcon_password', 'rcon_host', 'rcon_port', 'command_template'])
        .where('id', '=', s.id)
        .executeTakeFirstOrThrow();
    expect((await stored()).rcon_password).toBe(SECRET);

    // Empty or omitted keeps the password; the six fields of the spec's client leave RCON alone.
    expect((await call(admin, 'PUT', `/api/servers/${s.id}`, { ...base, rcon_password: '' })).statusCode).toBe(200);
    expect((await call(admin, 'PUT', `/api/servers/${s.id}`, base)).statusCode).toBe(200);
    expect(await stored()).toEqual({
      rcon_password: SECRET,
      rcon_host: null,
      rcon_port: 25575,
      command_template: 'give {player} {item} {quantity}',
    });

    const changed = await call(admin, 'PUT', `/api/servers/${s.id}`, {
      ...base,
      rcon_password: 'new-secret',
      rcon_host: 'rcon.example.com',
      rcon_port: 25580,
      command_template: '',
    });
    expect(changed.body).not.toContain('new-secret');
    expect(await stored()).toEqual({
      rcon_password: 'new-secret',
      rcon_host: 'rcon.example.com',
      rcon_port: 25580,
      command_template: 'give {player} minecraft:{item} {quantity}',
    });

    const removed = await call(admin, 'PUT', `/api/servers/${s.id}`, { ...base, rcon_password: null });
    expect(removed.json().server).toMatchObject({ has_rcon_password: false, rcon_configured: false });
    expect((await stored()).rcon_password).toBeNull();

    const audit = await t.handle.db.selectFrom('audit_log').select(['before_json', 'after_json']).where('entity', '=', 'server').execute();
    const text = JSON.stringify(audit);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('new-secret');
    expect(text).toContain('***');
  });

  it('documents every servers route in OpenAPI, without the RCON password in any answer schema', async () => {
    const res = await call(null, 'GET', '/api/docs/json');
    expect(res.statusCode).toBe(200);
    const doc = res.json<{ paths: Record<string, Record<string, { responses: Record<string, { content?: unknown }> }>> }>();
    for (const [path, method] of [
      ['/api/servers/', 'get'],
      ['/api/servers/', 'post'],
      ['/api/servers/admin', 'get'],
      ['/api/servers/monitor', 'post'],
      ['/api/servers/{id}', 'put'],
      ['/api/servers/{id}', 'delete'],
      ['/api/servers/{id}/history', 'get'],
    ] as const) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    expect(doc.paths['/api/servers/{id}']!.put!.responses['404']).toBeDefined();
    const answers = JSON.stringify(Object.values(doc.paths).flatMap((p) => Object.values(p).map((m) => m.responses)));
    expect(answers).toContain('has_rcon_password');
    expect(answers).not.toContain('"rcon_password"');
  });

  describe('monitor', () => {
    it('turns a server offline after two failed checks and online again when it is back', async () => {
      await clear();
      const peer = await new StatusPeer({
        status: { ...(defaultStatus(7, 40, { text: '§aДобро пожаловать' }) as object), favicon: 'data:image/png;base64,iVBORw0KGgo=' },
      }).start();
      const port = peer.port;
      const s = await create({ port, max_online: 50 });
      const monitor = async () => {
        const res = await call(admin, 'POST', '/api/servers/monitor');
        expect(res.statusCode, res.body).toBe(200);
        return res.json<{ checked: number; online: number; offline: number }>();
      };
      const mine = async () => (await list()).servers.find((x) => x.id === s.id)!;

      expect(await monitor()).toMatchObject({ checked: 1, online: 1, offline: 0 });
      const up = await mine();
      expect(up).toMatchObject({
        status: 'online',
        online: 7,
        current_online: 7,
        // The limit the server reports (40), not the owner's guess (50); the admin form keeps the owner's.
        max_online: 40,
        maxOnline: 40,
        version: '1.21.4',
        motd: 'Добро пожаловать',
      });
      expect(up.last_checked_at).toBeGreaterThan(Date.now() - 10_000);
      expect((await list()).total_online).toBe(7);
      const icon = await call(null, 'GET', up.favicon_url as string);
      expect(icon.statusCode).toBe(200);
      expect(icon.headers['content-type']).toBe('image/png');

      await peer.stop();
      await monitor();
      // One failed check is not enough: a lost packet must not flap the status.
      expect(await mine()).toMatchObject({ status: 'online', online: 7 });
      await monitor();
      expect(await mine()).toMatchObject({ status: 'offline', online: 0, current_online: 0 });
      // Going down is an event others may announce (announce writes it down), once.
      const events = async () =>
        (await t.handle.db.selectFrom('announce_outbox').select(['event', 'text']).where('channel', '=', 'event').orderBy('id').execute())
          .filter((e) => (JSON.parse(e.text) as { id: number }).id === s.id)
          .map((e) => e.event);
      expect(await events()).toEqual(['server_down']);
      const adminView = (await call(admin, 'GET', '/api/servers/admin')).json().servers[0];
      expect(adminView).toMatchObject({ fail_count: 2, last_error: 'Соединение отклонено: порт закрыт', max_online: 50 });

      const back = await new StatusPeer({ status: defaultStatus(2, 40) }).start(port);
      try {
        await monitor();
        expect(await mine()).toMatchObject({ status: 'online', online: 2 });
        expect(await events()).toEqual(['server_down', 'server_up']);
      } finally {
        await back.stop();
      }

      const history = await call(null, 'GET', `/api/servers/${s.id}/history?hours=24`);
      expect(history.statusCode).toBe(200);
      const points = history.json().points as { online: number | null }[];
      expect(points.length).toBeGreaterThanOrEqual(1);
      expect(points.at(-1)!.online).toBe(7);
      const rows = await t.handle.db
        .selectFrom('server_online_history')
        .select('online')
        .where('server_id', '=', s.id)
        .orderBy('id')
        .execute();
      expect(rows.map((r) => r.online)).toEqual([7, null, null, 2]);
      const chart = (await mine()).history as { points: (number | null)[] };
      expect(chart.points.at(-1)).toBe(7);
      expect((await call(null, 'GET', `/api/servers/${s.id}/history?hours=0`)).statusCode).toBe(400);
      expect((await call(null, 'GET', '/api/servers/999999/history')).statusCode).toBe(404);
    });

    it('answers the list from stored results while a check hangs', async () => {
      await clear();
      const silent = await new StatusPeer({ mode: 'silent' }).start();
      try {
        await create({ port: silent.port });
        const sweep = call(admin, 'POST', '/api/servers/monitor');
        await new Promise((r) => setTimeout(r, 50));
        const started = performance.now();
        const res = await call(null, 'GET', '/api/servers/');
        expect(res.statusCode).toBe(200);
        expect(performance.now() - started).toBeLessThan(300);
        // One deadline (400 ms here) per check, however the server misbehaves.
        const swept = performance.now();
        expect((await sweep).statusCode).toBe(200);
        expect(performance.now() - swept).toBeLessThan(1000);
      } finally {
        await silent.stop();
      }
    });

    it('checks a server once when two instances sweep at the same time', async () => {
      await clear();
      const slow = await new StatusPeer({ pongDelayMs: 500 }).start();
      try {
        const s = await create({ port: slow.port });
        const historyRows = async () =>
          (await t.handle.db.selectFrom('server_online_history').selectAll().where('server_id', '=', s.id).execute()).length;
        const a = new ServerMonitor(t.app.ctx, t.app.log);
        const b = new ServerMonitor(t.app.ctx, t.app.log);
        const results = await Promise.all([a.sweep(false), b.sweep(false), a.sweep(true)]);
        expect(await historyRows()).toBe(1);
        // Whichever instance claimed it checked it; the other one found it taken.
        expect(results.some((r) => r.checked === 1)).toBe(true);
        // A background sweep right after skips a server checked moments ago.
        expect((await b.sweep(false)).checked).toBe(0);
        // Even the admin's button on another instance leaves a running check alone.
        const running = a.sweep(true);
        await new Promise((r) => setTimeout(r, 150));
        expect((await b.sweep(true)).checked).toBe(0);
        await running;
        expect(await historyRows()).toBe(2);
        const row = await t.handle.db
          .selectFrom('servers')
          .select(['checking_until', 'status'])
          .where('id', '=', s.id)
          .executeTakeFirstOrThrow();
        expect(row).toEqual({ checking_until: null, status: 'online' });
      } finally {
        await slow.stop();
      }
    });

    it('keeps a week of checks and then only hourly peaks', async () => {
      await clear();
      const s = await create();
      const now = Date.now();
      const hour = 3_600_000;
      const old = Math.floor((now - 10 * 86_400_000) / hour) * hour;
      const values = [
        { server_id: s.id, at: old + 1000, online: 3 },
        { server_id: s.id, at: old + 2000, online: 9 },
        { server_id: s.id, at: old + 3000, online: null },
        { server_id: s.id, at: old + hour + 5, online: null },
        { server_id: s.id, at: now - 400 * 86_400_000, online: 1 },
        { server_id: s.id, at: now - 60_000, online: 4 },
        { server_id: s.id, at: now - 30_000, online: 5 },
      ];
      await t.handle.db.insertInto('server_online_history').values(values).execute();
      await thinHistory(t.handle.db, now);
      const rows = await t.handle.db
        .selectFrom('server_online_history')
        .select(['at', 'online'])
        .where('server_id', '=', s.id)
        .orderBy('at')
        .execute();
      expect(rows.map((r) => [Number(r.at), r.online])).toEqual([
        [old + 2000, 9],
        [old + hour + 5, null],
        [now - 60_000, 4],
        [now - 30_000, 5],
      ]);
    });
  });
});

describe('background monitor', () => {
  it('starts with the app, checks on its own, and stops with it without waiting for a hung check', async () => {
    const t = await createTestApp('sqlite', { workers: true, monitor: { intervalMs: 200, timeoutMs: 2000, concurrency: 2 } });
    const peer = await new StatusPeer({ status: defaultStatus(11, 20) }).start();
    const silent = await new StatusPeer({ mode: 'silent' }).start();
    try {
      const now = Date.now();
      const row = {
        description: 'd',
        image_url: '',
        online: 0,
        status: 'offline',
        fail_count: 0,
        sort_order: 0,
        created_at: now,
        updated_at: now,
        max_online: 20,
      };
      await t.handle.db
        .insertInto('servers')
        .values({ ...row, name: 'up', ip_address: '127.0.0.1', port: peer.port })
        .execute();
      await t.handle.db
        .insertInto('servers')
        .values({ ...row, name: 'hung', ip_address: '127.0.0.1', port: silent.port })
        .execute();
      const deadline = Date.now() + 5000;
      let up: { status: string; online: number } | undefined;
      while (Date.now() < deadline) {
        await t.app.ctx.publicCache.invalidate('servers');
        up = (await t.app.inject({ method: 'GET', url: '/api/servers/' })).json().servers.find((s: { name: string }) => s.name === 'up');
        if (up?.status === 'online') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(up).toMatchObject({ status: 'online', online: 11 });
    } finally {
      const started = performance.now();
      await t.close();
      // The hung check is aborted, not waited out for its 2 s deadline.
      expect(performance.now() - started).toBeLessThan(1500);
      await peer.stop();
      await silent.stop();
    }
  });
});
