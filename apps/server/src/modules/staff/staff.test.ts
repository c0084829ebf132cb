import { PERMISSIONS, type Permission } from '@kubik/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';

/** Placeholder path parameters: valid in shape, naming nothing that exists. */
function fillParams(url: string): string {
  return url
    .replace(/:id\b/g, '999999')
    .replace(/:grantId\b/g, '999999')
    .replace(/:hash\b/g, 'a'.repeat(64))
    .replace(/:slug\b/g, 'no-such-page')
    .replace(/:(\w+)/g, '999999');
}

describe.each(dbKinds)('staff roles on %s', (kind) => {
  let t: TestApp;
  let owner: string;
  /** A staff member per permission, holding that one only. */
  const single = new Map<Permission, string>();
  const roleIds = new Map<Permission, number>();
  const ids = new Map<string, number>();

  const call = (token: string | null, method: string, url: string, payload?: unknown) =>
    t.app.inject(asUser(token, { method: method as 'GET', url, ...(payload === undefined ? {} : { payload: payload as object }) }));

  beforeAll(async () => {
    t = await createTestApp(kind, { rateLimits: { enabled: false }, workers: false });
    ids.set('Owner', await seedUser(t, 'Owner', { admin: true }));
    owner = await loginAs(t, 'Owner');
    for (const p of PERMISSIONS) {
      const name = `S_${p.replace('.', '_')}`.slice(0, 16);
      const id = await seedUser(t, name);
      ids.set(name, id);
      const role = await call(owner, 'POST', '/api/admin/roles', { name: `Только ${p}`, permissions: [p] });
      expect(role.statusCode, role.body).toBe(200);
      roleIds.set(p, role.json().id);
      const given = await call(owner, 'PUT', `/api/admin/users/${id}/role`, { role_id: role.json().id });
      expect(given.statusCode, given.body).toBe(200);
      single.set(p, await loginAs(t, name));
    }
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it('every admin route declares a known permission', () => {
    const admin = t.app.apiRoutes.filter((r) => r.access === 'admin');
    expect(admin.length).toBeGreaterThan(40);
    for (const r of admin) expect([...PERMISSIONS, 'owner'], `${r.method} ${r.url}`).toContain(r.permission);
  });

  it('the permission matrix: each admin route admits the owner and only staff holding its permission', async () => {
    const failures: string[] = [];
    const routes = t.app.apiRoutes.filter((r) => r.access === 'admin');
    for (const route of routes) {
      const url = fillParams(route.url);
      const payload = route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
      const asOwner = await call(owner, route.method, url, payload);
      if (asOwner.statusCode === 401 || asOwner.statusCode === 403 || asOwner.statusCode >= 500)
        failures.push(`${route.method} ${route.url} as owner: ${asOwner.statusCode} ${asOwner.body.slice(0, 100)}`);
      // Refused staff are turned away before any handler runs, so these may go together.
      const answers = await Promise.all(PERMISSIONS.map(async (p) => [p, await call(single.get(p)!, route.method, url, payload)] as const));
      for (const [p, res] of answers) {
        const allowed = route.permission === p;
        const ok = allowed ? res.statusCode !== 401 && res.statusCode !== 403 && res.statusCode < 500 : res.statusCode === 403;
        if (!ok) failures.push(`${route.method} ${route.url} (${route.permission}) as ${p}: ${res.statusCode} ${res.body.slice(0, 100)}`);
      }
    }
    expect(failures).toEqual([]);
  }, 240_000);

  it("/api/user/me lists the caller's permissions", async () => {
    const me = (token: string) => call(token, 'GET', '/api/user/me').then((r) => r.json());
    expect((await me(owner)).permissions).toEqual([...PERMISSIONS]);
    expect(await me(single.get('bans')!)).toMatchObject({ is_admin: false, permissions: ['bans'], role: 'Только bans' });
    await seedUser(t, 'Plain');
    expect(await me(await loginAs(t, 'Plain'))).toMatchObject({ permissions: [], role: null });
  });

  it('only the owner manages roles; a role change applies at once', async () => {
    const rolesViewer = single.get('roles')!;
    expect((await call(rolesViewer, 'GET', '/api/admin/roles')).statusCode).toBe(200);
    const raise = await call(rolesViewer, 'PUT', `/api/admin/roles/${roleIds.get('roles')}`, {
      name: 'Всё',
      permissions: [...PERMISSIONS],
    });
    expect(raise.statusCode).toBe(403);
    expect(raise.json().code).toBe('owner_only');
    expect((await call(rolesViewer, 'POST', '/api/admin/roles', { name: 'X', permissions: ['audit'] })).statusCode).toBe(403);
    expect(
      (await call(rolesViewer, 'PUT', `/api/admin/users/${ids.get('S_roles')}/role`, { role_id: roleIds.get('audit') })).statusCode,
    ).toBe(403);

    // The owner widens the news role: its holder may read the audit log on the next request.
    const news = single.get('news')!;
    expect((await call(news, 'GET', '/api/admin/audit')).statusCode).toBe(403);
    const widened = await call(owner, 'PUT', `/api/admin/roles/${roleIds.get('news')}`, {
      name: 'Редактор',
      permissions: ['news', 'audit'],
    });
    expect(widened.json()).toMatchObject({ name: 'Редактор', permissions: ['news', 'audit'], members: 1 });
    expect((await call(news, 'GET', '/api/admin/audit')).statusCode).toBe(200);

    // Names are unique regardless of case; bad bodies are 400.
    const dup = await call(owner, 'POST', '/api/admin/roles', { name: 'редактор', permissions: [] });
    expect([dup.statusCode, dup.json().code]).toEqual([409, 'role_exists']);
    expect((await call(owner, 'POST', '/api/admin/roles', { name: 'Y', permissions: ['everything'] })).statusCode).toBe(400);
    expect((await call(owner, 'PUT', `/api/admin/users/${ids.get('Owner')}/role`, { role_id: roleIds.get('news') })).statusCode).toBe(409);

    // Deleting a role takes it from its holders.
    const removed = await call(owner, 'DELETE', `/api/admin/roles/${roleIds.get('news')}`);
    expect(removed.statusCode).toBe(200);
    expect((await call(news, 'GET', '/api/tidings/all')).statusCode).toBeLessThan(400);
    const me = await call(news, 'GET', '/api/user/me');
    expect(me.json()).toMatchObject({ permissions: [], role: null });
    expect((await call(news, 'POST', '/api/tidings/news', {})).statusCode).toBe(403);
  });

  it("staff cannot touch the owner's or staff accounts, nor make owners", async () => {
    const players = single.get('players.balance')!;
    const ownerId = ids.get('Owner')!;
    const self = ids.get('S_players_balanc')!;
    for (const [method, url, payload] of [
      ['PUT', `/api/user/${ownerId}`, { password: 'a new long password 1' }],
      ['POST', `/api/admin/users/${ownerId}/balance`, { amount: 5, comment: 'подарок' }],
      ['DELETE', `/api/user/${ownerId}`, undefined],
      ['PUT', `/api/user/${self}`, { is_admin: true }],
      ['PUT', `/api/user/${ids.get('S_bans')}`, { email: 'mine@example.com' }],
    ] as const) {
      const res = await call(players, method, url, payload);
      expect([res.statusCode, res.json().code], `${method} ${url}`).toEqual([403, 'owner_only']);
    }
    const plain = await seedUser(t, 'Player2');
    expect((await call(players, 'PUT', `/api/user/${plain}`, { is_admin: true })).json().code).toBe('owner_only');
    expect((await call(players, 'POST', `/api/admin/users/${plain}/balance`, { amount: 5, comment: 'бонус' })).statusCode).toBe(200);
    const ban = await call(single.get('bans')!, 'POST', `/api/admin/users/${ids.get('S_audit')}/ban`, {
      note: 'читы в игре',
      until: null,
    });
    expect([ban.statusCode, ban.json().code]).toEqual([403, 'owner_only']);
  });

  it("staff with `settings` set a provider's bounds, but its shop, keys and addresses are the owner's", async () => {
    const settings = single.get('settings')!;
    const bounds = await call(settings, 'PUT', '/api/admin/payment-providers/tbank', { enabled: false, min: 50, max: 5000 });
    expect(bounds.statusCode, bounds.body).toBe(200);
    for (const [url, payload, field] of [
      ['/api/admin/payment-providers/tbank', { fields: { terminal_key: 'T1' } }, 'fields.terminal_key'],
      ['/api/admin/payment-providers/tbank', { secrets: { password: 'p' } }, 'secrets.password'],
      ['/api/admin/payment-providers/tbank', { enabled: true }, 'enabled'],
      ['/api/admin/payment-providers/tbank', { fields: { api_url: 'https://securepay.tbank.ru/v2' } }, 'fields.api_url'],
      ['/api/admin/payment-providers/yoomoney', { fields: { form_url: 'https://yoomoney.ru/quickpay/other' } }, 'fields.form_url'],
      ['/api/admin/social-settings', { vk_base_url: 'https://id.vk.com/other' }, 'vk_base_url'],
    ] as const) {
      const res = await call(settings, 'PUT', url, payload);
      expect([res.statusCode, res.json().code, res.json().field], url).toEqual([403, 'owner_only', field]);
      expect((await call(owner, 'PUT', url, payload)).statusCode, url).toBe(200);
    }
  });

  it('the audit log names who did what', async () => {
    const log = await call(owner, 'GET', '/api/admin/audit?entity=role');
    expect(log.statusCode).toBe(200);
    const entries = log.json().entries as { action: string; actor: unknown }[];
    expect(entries.some((e) => e.action === 'role.create')).toBe(true);
    expect(JSON.stringify(entries[0])).toContain('Owner');
  });
});
