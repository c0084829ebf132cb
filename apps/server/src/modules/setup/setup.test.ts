import { readFileSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultStatus, StatusPeer } from '../../../../../testing/minecraft-status-peer.ts';
import { createTestApp, dbKinds, postBrokenJson, seedUser, type TestApp } from '../../test/test-app.ts';

const owner = (code: string, n = 0) => ({
  code,
  username: `Owner${n}`,
  email: `owner${n}@example.com`,
  password: 'a long owner password',
  site_name: 'Мой сервер',
  game_address: 'play.example.ru',
});

describe.each(dbKinds)('first-run setup on %s', (kind) => {
  let t: TestApp;
  let limited: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { rateLimits: { enabled: false }, workers: false });
    limited = await createTestApp(kind, { workers: false });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await limited?.close();
  });

  const codeOf = (app: TestApp) => readFileSync(path.join(app.dataDir, 'setup-code'), 'utf8').trim();

  it('a fresh site asks for setup and keeps the code in a private file', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/setup' })).json()).toEqual({ needed: true });
    const file = path.join(t.dataDir, 'setup-code');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(codeOf(t)).toMatch(/^[A-Z2-9]{12}$/);
  });

  it('refuses a wrong code and bad input without creating anyone', async () => {
    const wrong = await t.app.inject({ method: 'POST', url: '/api/setup', payload: owner('WRONGCODE234') });
    expect([wrong.statusCode, wrong.json().code, wrong.json().field]).toEqual([403, 'bad_setup_code', 'code']);
    const bad = await t.app.inject({ method: 'POST', url: '/api/setup', payload: { ...owner(codeOf(t)), username: 'x' } });
    expect([bad.statusCode, bad.json().field]).toEqual([400, 'username']);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/setup', payload: 'nonsense', headers: { 'content-type': 'application/json' } }))
        .statusCode,
    ).toBe(400);
    const admins = await t.handle.db.selectFrom('users').select('id').where('is_admin', '=', 1).execute();
    expect(admins).toEqual([]);
  });

  it('parallel requests create exactly one owner; then both calls refuse', async () => {
    const code = codeOf(t);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => t.app.inject({ method: 'POST', url: '/api/setup', payload: owner(code.toLowerCase(), i) })),
    );
    const ok = results.filter((r) => r.statusCode === 200);
    expect(ok).toHaveLength(1);
    for (const r of results.filter((r) => r.statusCode !== 200)) expect([r.statusCode, r.json().code]).toEqual([409, 'setup_done']);
    const admins = await t.handle.db.selectFrom('users').select(['username', 'is_admin']).where('is_admin', '=', 1).execute();
    expect(admins).toHaveLength(1);

    // The owner is signed in by the answer's cookie.
    const cookie = ok[0]!.cookies.find((c) => c.name === 'kubik_session')!;
    const me = await t.app.inject({ method: 'GET', url: '/api/user/me', cookies: { kubik_session: cookie.value } });
    expect(me.json()).toMatchObject({ username: admins[0]!.username, is_admin: true });
    const site = (await t.app.inject({ method: 'GET', url: '/api/site/settings' })).json();
    expect(site).toMatchObject({ name: 'Мой сервер', game_address: 'play.example.ru' });

    expect((await t.app.inject({ method: 'GET', url: '/api/setup' })).json()).toEqual({ needed: false });
    const again = await t.app.inject({ method: 'POST', url: '/api/setup', payload: owner(code, 9) });
    expect([again.statusCode, again.json().code]).toEqual([409, 'setup_done']);
    expect(existsSync(path.join(t.dataDir, 'setup-code'))).toBe(false);
    const audit = await t.handle.db.selectFrom('audit_log').select(['action', 'actor_id']).where('action', '=', 'setup.done').execute();
    expect(audit).toHaveLength(1);
  });

  it('rate-limits code guesses; an administrator made by admin:create ends setup', async () => {
    // From one IPv6 /64, a new address each time: counted as one client.
    const statuses: number[] = [];
    for (let i = 1; i <= 12; i++)
      statuses.push(
        (
          await limited.app.inject({
            method: 'POST',
            url: '/api/setup',
            payload: owner('GUESSGUESS23'),
            remoteAddress: `2001:db8:26::${i}`,
          })
        ).statusCode,
      );
    expect(statuses.slice(0, 10).every((s) => s === 403)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    // Over the limit, refused before the body is read: broken JSON is not a 400.
    const broken = await postBrokenJson(limited, '/api/setup', '2001:db8:26::ffff');
    expect([broken.statusCode, broken.json().code]).toEqual([429, 'rate_limited']);
    // Another network still may try.
    expect(
      (await limited.app.inject({ method: 'POST', url: '/api/setup', payload: owner('GUESSGUESS23'), remoteAddress: '2001:db8:27::1' }))
        .statusCode,
    ).toBe(403);
    await seedUser(limited, 'CliAdmin', { admin: true });
    expect((await limited.app.inject({ method: 'GET', url: '/api/setup' })).json()).toEqual({ needed: false });
  });

  it('never refuses the right code by the limit everyone shares; the per-address one holds for everyone', async () => {
    const site = await createTestApp(kind, { workers: false });
    try {
      const tryCode = (code: string, address: string, n = 0) =>
        site.app.inject({ method: 'POST', url: '/api/setup', payload: owner(code, n), remoteAddress: address });
      // 10 wrong codes from each of 11 addresses: the first 100 are wrong, the rest over the shared limit.
      const statuses: number[] = [];
      for (let a = 1; a <= 11; a++)
        for (let i = 0; i < 10; i++) statuses.push((await tryCode('WRONGWRONG23', `203.0.113.${a}`)).statusCode);
      expect(statuses.slice(0, 100)).toEqual(Array(100).fill(403));
      expect(statuses.slice(100)).toEqual(Array(10).fill(429));
      // A wrong code from yet another address is still refused by the shared limit.
      const wrong = await tryCode('WRONGWRONG23', '203.0.113.13');
      expect([wrong.statusCode, wrong.json().retry_after > 0]).toEqual([429, true]);
      // An address that used up its own tries is refused even the right code.
      const spent = await tryCode(codeOf(site), '203.0.113.1');
      expect(spent.statusCode).toBe(429);
      expect(await site.handle.db.selectFrom('users').select('id').execute()).toEqual([]);

      const right = await tryCode(codeOf(site), '203.0.113.12', 1);
      expect(right.statusCode, right.body).toBe(200);
      const admins = await site.handle.db.selectFrom('users').select('username').where('is_admin', '=', 1).execute();
      expect(admins).toEqual([{ username: 'Owner1' }]);
    } finally {
      await site.close();
    }
  });

  it('creates the first server with the owner and checks its status at once', async () => {
    const peer = await new StatusPeer({ status: defaultStatus(5, 30) }).start();
    const site = await createTestApp(kind, { rateLimits: { enabled: false } });
    try {
      const code = codeOf(site);
      // A bad server field refuses the whole setup, naming the field; nobody is created.
      const bad = await site.app.inject({
        method: 'POST',
        url: '/api/setup',
        payload: { ...owner(code), server: { name: 'Выживание', ip_address: '127.0.0.1', port: 70000 } },
      });
      expect([bad.statusCode, bad.json().field]).toEqual([400, 'server.port']);
      const noHost = await site.app.inject({
        method: 'POST',
        url: '/api/setup',
        payload: { ...owner(code), server: { name: 'Выживание', ip_address: '' } },
      });
      expect([noHost.statusCode, noHost.json().field]).toEqual([400, 'server.ip_address']);
      expect(await site.handle.db.selectFrom('users').select('id').execute()).toEqual([]);

      const res = await site.app.inject({
        method: 'POST',
        url: '/api/setup',
        payload: { ...owner(code), server: { name: 'Выживание', ip_address: '127.0.0.1', port: peer.port, rcon_password: 'rcon-secret' } },
      });
      expect(res.statusCode, res.body).toBe(200);
      const servers = await site.handle.db
        .selectFrom('servers')
        .select(['name', 'ip_address', 'port', 'rcon_port', 'rcon_password'])
        .execute();
      expect(servers).toEqual([
        { name: 'Выживание', ip_address: '127.0.0.1', port: peer.port, rcon_port: 25575, rcon_password: 'rcon-secret' },
      ]);
      const ownerId = (await site.handle.db.selectFrom('users').select('id').executeTakeFirstOrThrow()).id;
      const audit = await site.handle.db
        .selectFrom('audit_log')
        .select(['action', 'actor_id'])
        .where('action', '=', 'server.create')
        .execute();
      expect(audit).toEqual([{ action: 'server.create', actor_id: ownerId }]);
      // Checked at once (not after MONITOR_INTERVAL_SEC): the public list shows it online.
      await expect
        .poll(async () => (await site.app.inject({ method: 'GET', url: '/api/servers/' })).json().servers[0], { timeout: 10_000 })
        .toMatchObject({ name: 'Выживание', status: 'online', online: 5 });
    } finally {
      await site.close();
      await peer.stop();
    }
  });
});
