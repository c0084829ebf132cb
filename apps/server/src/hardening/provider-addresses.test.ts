import type http from 'node:http';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { close, listen, readBody } from '../../../../testing/payments/http-util.ts';
import { FakeYooKassa } from '../../../../testing/payments/yookassa-server.ts';
import { FakeDiscord } from '../../../../testing/social/discord-server.ts';
import { findLedgerMismatches } from '../modules/ledger/ledger.service.ts';
import { findPaymentLedgerMismatches } from '../modules/payments/payments.ledger-check.ts';
import { paymentsConfig } from '../test/payments.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../test/test-app.ts';

const SITE = 'http://kubik.test';

/** A listener of a staff member's own: it records whatever the site sends it and answers nothing useful. */
async function startListener() {
  const seen: { method: string; path: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  const { server, url } = await listen(
    (req, res) =>
      void readBody(req).then(({ text }) => {
        seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: text });
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{}');
      }),
  );
  return { url, seen, stop: () => close(server) };
}

/*
 * A staff member holding only `settings` tries three attacks on the provider addresses: (a) point
 * ЮKassa's API address at a listener and press «Проверить подключение» to receive the stored
 * secret key; (b) point Discord's base address at it so the next login sends the client secret;
 * (c) point ЮKassa at a ЮKassa of their own, top up 100 000 ₽, «pay» there and be credited.
 * Provider addresses are the owner's alone, https only and on the provider's own host (or the one
 * the environment names), and changing one drops the secrets stored for it.
 */
describe.each(dbKinds)('provider addresses and their secrets on %s', (kind) => {
  let t: TestApp;
  let yoo: FakeYooKassa;
  let discord: FakeDiscord;
  let listener: Awaited<ReturnType<typeof startListener>>;
  let owner: string;
  let staff: string;
  let staffId: number;

  const call = (token: string | null, method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown) =>
    t.app.inject(asUser(token, { method, url, ...(payload === undefined ? {} : { payload: payload as object }) }));
  const providers = async () =>
    (await call(owner, 'GET', '/api/admin/payment-providers')).json() as {
      id: string;
      enabled: boolean;
      fields: Record<string, string>;
      secrets: Record<string, string>;
      secrets_dropped: Record<string, number>;
    }[];
  const yookassa = async () => (await providers()).find((p) => p.id === 'yookassa')!;
  const sentSecrets = () => listener.seen.filter((r) => r.headers.authorization || r.body.includes('client_secret'));
  const ownerOnly = (res: LightMyRequestResponse, field: string) => {
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json()).toMatchObject({ code: 'owner_only', field });
    expect(errorOf(res)).toMatch(/только владелец/);
  };

  beforeAll(async () => {
    [yoo, discord, listener] = await Promise.all([
      new FakeYooKassa().start(),
      new FakeDiscord('1234567890123456789', 'discord-client-secret-0123456789', [`${SITE}/api/auth/discord/callback`]).start(),
      startListener(),
    ]);
    t = await createTestApp(kind, {
      rateLimits: { enabled: false },
      workers: false,
      secretsKey: 'test-secrets-key-0123456789abcdef0123',
      payments: paymentsConfig(yoo, null),
      social: {
        vk: { clientId: '', clientSecret: '', baseUrl: 'https://id.vk.com' },
        telegram: { botToken: '', botName: '', baseUrl: 'https://oauth.telegram.org' },
        discord: { clientId: discord.clientId, clientSecret: '', baseUrl: discord.url },
      },
    });
    await seedUser(t, 'Owner', { admin: true });
    owner = await loginAs(t, 'Owner');
    staffId = await seedUser(t, 'Settings_Staff');
    const role = await call(owner, 'POST', '/api/admin/roles', { name: 'Настройки', permissions: ['settings'] });
    expect(role.statusCode, role.body).toBe(200);
    expect((await call(owner, 'PUT', `/api/admin/users/${staffId}/role`, { role_id: role.json().id })).statusCode).toBe(200);
    staff = await loginAs(t, 'Settings_Staff');
    // The owner types the keys in the admin: they are stored sealed, the addresses are the environment's.
    const keys = await call(owner, 'PUT', '/api/admin/payment-providers/yookassa', { secrets: { secret_key: yoo.secretKey } });
    expect(keys.statusCode, keys.body).toBe(200);
    const social = await call(owner, 'PUT', '/api/admin/social-settings', { discord_client_secret: discord.clientSecret });
    expect(social.statusCode, social.body).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([yoo?.stop(), discord?.stop(), listener?.stop()]);
  });

  it('(a) staff cannot point ЮKassa at their listener, and the check sends the key only to the confirmed address', async () => {
    const put = await call(staff, 'PUT', '/api/admin/payment-providers/yookassa', {
      enabled: true,
      fields: { shop_id: yoo.shopId, api_url: `${listener.url}/v3` },
      secrets: {},
    });
    ownerOnly(put, 'fields.api_url');
    expect((await yookassa()).fields.api_url).toBe(yoo.apiUrl);
    expect((await yookassa()).secrets.secret_key).toBe('set');
    const check = await call(staff, 'POST', '/api/admin/payment-providers/yookassa/check');
    expect(check.statusCode).toBe(200);
    expect(sentSecrets()).toEqual([]);

    // The web form sends every field back as it was shown: an unchanged address is no change.
    const same = await call(staff, 'PUT', '/api/admin/payment-providers/yookassa', {
      enabled: true,
      fields: { shop_id: yoo.shopId, api_url: yoo.apiUrl },
      secrets: {},
    });
    expect(same.statusCode, same.body).toBe(200);
    expect((await yookassa()).secrets.secret_key).toBe('set');
    // So is «back to the environment's» while the environment's applies.
    expect((await call(staff, 'PUT', '/api/admin/payment-providers/yookassa', { fields: { api_url: null } })).statusCode).toBe(200);
  });

  it('(b) staff cannot point Discord at their listener; the next login sends the client secret to Discord only', async () => {
    const put = await call(staff, 'PUT', '/api/admin/social-settings', { discord_base_url: listener.url });
    ownerOnly(put, 'discord_base_url');
    const view = (await call(owner, 'GET', '/api/admin/social-settings')).json();
    expect(view.discord).toMatchObject({ base_url: discord.url, client_secret: 'set' });

    const start = await t.app.inject({ method: 'GET', url: '/api/auth/discord/start' });
    expect(start.statusCode).toBe(302);
    const authorize = start.headers.location as string;
    expect(authorize.startsWith(`${discord.url}/oauth2/authorize?`)).toBe(true);
    const cookies = Object.fromEntries((start.cookies as { name: string; value: string }[]).map((c) => [c.name, c.value]));
    const back = new URL(discord.consent(authorize));
    const callback = await t.app.inject({ method: 'GET', url: back.pathname + back.search, cookies });
    expect(callback.statusCode).toBe(302);
    expect(discord.exchanges.at(-1)?.fields.client_secret).toBe(discord.clientSecret);
    expect(sentSecrets()).toEqual([]);
  });

  it('(c) staff cannot top up 100 000 ₽ on a ЮKassa of their own and be credited', async () => {
    // Their own ЮKassa takes whatever key the site sends and says «paid» when they like.
    const theirs = await new FakeYooKassa(yoo.shopId, yoo.secretKey).start();
    try {
      const put = await call(staff, 'PUT', '/api/admin/payment-providers/yookassa', {
        enabled: true,
        fields: { api_url: theirs.apiUrl },
        secrets: {},
      });
      ownerOnly(put, 'fields.api_url');
      const created = await call(staff, 'POST', '/api/payments', { provider: 'yookassa', amount: 100_000 });
      expect(created.statusCode, created.body).toBe(201);
      for (const id of theirs.payments.keys()) theirs.pay(id);
      const seen = await call(staff, 'GET', `/api/payments/${created.json().id}`);
      expect(seen.statusCode).toBe(200);
      expect(seen.json().status).toBe('pending');
      expect(theirs.requests).toEqual([]);
      const user = await t.handle.db.selectFrom('users').select('balance').where('id', '=', staffId).executeTakeFirstOrThrow();
      expect(Number(user.balance)).toBe(0);
      expect(await findLedgerMismatches(t.handle.db)).toEqual([]);
      expect(await findPaymentLedgerMismatches(t.handle.db)).toEqual([]);
    } finally {
      await theirs.stop();
    }
  });

  it('(d) staff cannot put a shop, wallet or key of their own in place of the owner’s, nor switch a provider on', async () => {
    // Each would send players' money to a shop of the staff member's (or credit a top-up they paid
    // to themselves, less the commission), or make the site trust notifications signed by them.
    for (const [id, body, field] of [
      ['yookassa', { fields: { shop_id: '654321' } }, 'fields.shop_id'],
      ['yookassa', { secrets: { secret_key: 'their_secret_key' } }, 'secrets.secret_key'],
      ['yookassa', { secrets: { secret_key: null } }, 'secrets.secret_key'],
      ['yookassa', { fields: { shop_id: yoo.shopId }, secrets: { secret_key: 'their_secret_key' } }, 'secrets.secret_key'],
      ['tbank', { fields: { terminal_key: 'TheirTerminal' } }, 'fields.terminal_key'],
      ['tbank', { secrets: { password: 'their-password' } }, 'secrets.password'],
      ['tbank', { enabled: true }, 'enabled'],
      ['yoomoney', { fields: { wallet: '4100111111111111' } }, 'fields.wallet'],
      ['yoomoney', { secrets: { notification_secret: 'theirs' } }, 'secrets.notification_secret'],
      ['yoomoney', { secrets: { oauth_token: 'theirs' } }, 'secrets.oauth_token'],
      ['freekassa', { fields: { merchant_id: '777' } }, 'fields.merchant_id'],
      ['freekassa', { secrets: { secret1: 'theirs' } }, 'secrets.secret1'],
      ['freekassa', { secrets: { secret2: 'theirs' } }, 'secrets.secret2'],
      ['freekassa', { secrets: { api_key: 'theirs' } }, 'secrets.api_key'],
    ] as const) {
      const res = await call(staff, 'PUT', `/api/admin/payment-providers/${id}`, body);
      expect(res.statusCode, `${id} ${JSON.stringify(body)}: ${res.body}`).toBe(403);
      expect(res.json(), JSON.stringify(body)).toMatchObject({ code: 'owner_only', field });
      expect(errorOf(res)).toMatch(/только владелец/);
    }
    // Nothing of it was stored: a player's top-up still goes to the owner's shop with the owner's key.
    const before = await yookassa();
    expect(before.fields.shop_id).toBe(yoo.shopId);
    expect(before.secrets.secret_key).toBe('set');
    const tbank = (await providers()).find((p) => p.id === 'tbank')!;
    expect([tbank.enabled, tbank.fields.terminal_key, tbank.secrets.password]).toEqual([false, '', 'unset']);
    const seen = yoo.requests.length;
    const paid = await call(staff, 'POST', '/api/payments', { provider: 'yookassa', amount: 100 });
    expect(paid.statusCode, paid.body).toBe(201);
    const sent = yoo.requests.slice(seen).find((r) => r.method === 'POST');
    expect(sent?.headers.authorization).toBe(`Basic ${Buffer.from(`${yoo.shopId}:${yoo.secretKey}`).toString('base64')}`);

    // What decides neither where money goes nor whom the site trusts stays with staff: the bounds,
    // the receipts, and switching a provider off.
    const harmless = await call(staff, 'PUT', '/api/admin/payment-providers/yookassa', { min: 50, max: 5000, receipts: true });
    expect(harmless.statusCode, harmless.body).toBe(200);
    expect(await yookassa()).toMatchObject({ min: 50, max: 5000, receipts: true });
    const off = await call(staff, 'PUT', '/api/admin/payment-providers/yookassa', { enabled: false });
    expect(off.statusCode, off.body).toBe(200);
    expect((await yookassa()).enabled).toBe(false);
    ownerOnly(await call(staff, 'PUT', '/api/admin/payment-providers/yookassa', { enabled: true }), 'enabled');
    // The form sends back what it shows: unchanged keys of the owner's are no change.
    const form = await call(staff, 'PUT', '/api/admin/payment-providers/yookassa', {
      enabled: false,
      receipts: false,
      min: null,
      max: null,
      fields: { shop_id: yoo.shopId, api_url: yoo.apiUrl },
      secrets: {},
    });
    expect(form.statusCode, form.body).toBe(200);
    // The owner may do all of it.
    for (const [id, body] of [
      ['yookassa', { enabled: true, fields: { shop_id: '654321' }, secrets: { secret_key: 'another_key' } }],
      ['yookassa', { fields: { shop_id: yoo.shopId }, secrets: { secret_key: yoo.secretKey } }],
      ['tbank', { enabled: true }],
      ['tbank', { enabled: false }],
    ] as const) {
      const res = await call(owner, 'PUT', `/api/admin/payment-providers/${id}`, body);
      expect(res.statusCode, `${id} ${JSON.stringify(body)}: ${res.body}`).toBe(200);
    }
    expect(await yookassa()).toMatchObject({ enabled: true, fields: { shop_id: yoo.shopId }, secrets: { secret_key: 'set' } });
    expect((await call(owner, 'POST', '/api/admin/payment-providers/yookassa/check')).json()).toMatchObject({ ok: true });
  });

  it('(e) staff cannot swap a social login’s app or keys for their own', async () => {
    for (const [body, field] of [
      [{ discord_client_id: '999999999999999999' }, 'discord_client_id'],
      [{ discord_client_secret: 'their-discord-secret' }, 'discord_client_secret'],
      [{ discord_client_secret: null }, 'discord_client_secret'],
      [{ vk_client_id: '54321' }, 'vk_client_id'],
      [{ vk_client_secret: 'their-vk-key' }, 'vk_client_secret'],
      [{ telegram_bot_name: 'their_bot' }, 'telegram_bot_name'],
      [{ telegram_bot_token: '123456:their-token' }, 'telegram_bot_token'],
    ] as const) {
      const res = await call(staff, 'PUT', '/api/admin/social-settings', body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(403);
      expect(res.json(), JSON.stringify(body)).toMatchObject({ code: 'owner_only', field });
    }
    const view = (await call(owner, 'GET', '/api/admin/social-settings')).json();
    expect(view.discord).toMatchObject({ client_id: discord.clientId, client_secret: 'set' });
    expect([view.vk.client_id, view.telegram.bot_name, view.vk.client_secret, view.telegram.bot_token]).toEqual(['', '', 'unset', 'unset']);
    // The form sends back what it shows (secrets left empty): no change, no refusal.
    const same = await call(staff, 'PUT', '/api/admin/social-settings', {
      vk_client_id: null,
      telegram_bot_name: null,
      discord_client_id: discord.clientId,
    });
    expect(same.statusCode, same.body).toBe(200);
    const changed = await call(owner, 'PUT', '/api/admin/social-settings', { vk_client_id: '54321', telegram_bot_name: 'kubik_bot' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ vk: { client_id: '54321' }, telegram: { bot_name: 'kubik_bot' } });
    expect((await call(owner, 'PUT', '/api/admin/social-settings', { vk_client_id: null, telegram_bot_name: null })).statusCode).toBe(200);
  });

  it('the owner may type only https on the provider’s own host or the environment’s', async () => {
    for (const [api_url, text] of [
      [`${listener.url}/v3`, /https:\/\//],
      ['https://127.0.0.1/v3', /api\.yookassa\.ru/],
      ['https://api.yookassa.ru.evil.example/v3', /api\.yookassa\.ru/],
      ['https://user:pass@api.yookassa.ru/v3', /api\.yookassa\.ru/],
      ['https://api.yookassa.ru:8443/v3', /api\.yookassa\.ru/],
      ['http://api.yookassa.ru/v3', /https:\/\//],
      ['api.yookassa.ru/v3', /https:\/\//],
    ] as const) {
      const res = await call(owner, 'PUT', '/api/admin/payment-providers/yookassa', { fields: { api_url } });
      expect(res.statusCode, api_url).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid', field: 'fields.api_url' });
      expect(errorOf(res), api_url).toMatch(text);
    }
    for (const [body, field] of [
      [{ discord_base_url: listener.url }, 'discord_base_url'],
      [{ discord_base_url: 'https://discord.com.evil.example' }, 'discord_base_url'],
      [{ vk_base_url: 'https://oauth.vk.com.example' }, 'vk_base_url'],
      [{ telegram_base_url: 'https://telegram.org.example' }, 'telegram_base_url'],
    ] as const) {
      const res = await call(owner, 'PUT', '/api/admin/social-settings', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid', field });
    }
    // Nothing of it was stored: the keys are still there.
    expect((await yookassa()).secrets.secret_key).toBe('set');
    expect((await call(owner, 'GET', '/api/admin/social-settings')).json().discord.client_secret).toBe('set');
    expect(sentSecrets()).toEqual([]);
  });

  it('an owner’s change of address drops the keys stored for it, in the audit log, unless given anew', async () => {
    const moved = await call(owner, 'PUT', '/api/admin/payment-providers/yookassa', { fields: { api_url: 'https://api.yookassa.ru/v3' } });
    expect(moved.statusCode, moved.body).toBe(200);
    const after = (moved.json() as { id: string; secrets: object; secrets_dropped: Record<string, number> }[]).find(
      (p) => p.id === 'yookassa',
    )!;
    // The environment's key of the test config applies again; the typed one is gone.
    expect(after.secrets).toEqual({ secret_key: 'env' });
    expect(Object.keys(after.secrets_dropped)).toEqual(['secret_key']);
    const row = await t.handle.db.selectFrom('payment_providers').selectAll().where('provider', '=', 'yookassa').executeTakeFirstOrThrow();
    expect(JSON.parse(row.secrets)).toEqual({});
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'payment.provider')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(audit.after_json).toContain('https://api.yookassa.ru/v3');
    expect(audit.after_json).toContain('Секретный ключ: удалён');
    // Back to the environment's address is a change of address too: not for staff.
    ownerOnly(await call(staff, 'PUT', '/api/admin/payment-providers/yookassa', { fields: { api_url: null } }), 'fields.api_url');

    // Back to the environment's address with the key in the same request: it is kept for it.
    const back = await call(owner, 'PUT', '/api/admin/payment-providers/yookassa', {
      fields: { api_url: yoo.apiUrl },
      secrets: { secret_key: yoo.secretKey },
    });
    expect(back.statusCode, back.body).toBe(200);
    expect((await yookassa()).secrets).toEqual({ secret_key: 'set' });
    expect((await yookassa()).secrets_dropped).toEqual({});
    expect((await call(owner, 'POST', '/api/admin/payment-providers/yookassa/check')).json()).toMatchObject({ ok: true });

    // Discord: the same.
    const ds = await call(owner, 'PUT', '/api/admin/social-settings', { discord_base_url: 'https://discord.com' });
    expect(ds.statusCode, ds.body).toBe(200);
    expect(ds.json().discord).toMatchObject({ base_url: 'https://discord.com', client_secret: 'unset' });
    expect(ds.json().discord.client_secret_dropped_at).toEqual(expect.any(Number));
    const settingsAudit = await t.handle.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'settings.update')
      .where('entity_id', '=', 'social')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(settingsAudit.before_json).toContain('discord_client_secret_sealed');
    expect(settingsAudit.after_json).not.toContain('discord_client_secret_sealed');
    expect(JSON.parse(settingsAudit.after_json!)).toMatchObject({ discord_key_dropped_at: expect.any(Number) });
    const restored = await call(owner, 'PUT', '/api/admin/social-settings', {
      discord_base_url: null,
      discord_client_secret: discord.clientSecret,
    });
    expect(restored.json().discord).toMatchObject({ base_url: discord.url, client_secret: 'set', client_secret_dropped_at: null });
    expect(sentSecrets()).toEqual([]);
  });

  it('an address stored before these rules that breaks them is not used: the secret goes to the environment’s', async () => {
    await t.handle.db
      .updateTable('payment_providers')
      .set({ fields: JSON.stringify({ api_url: `${listener.url}/v3` }) })
      .where('provider', '=', 'yookassa')
      .execute();
    // Any save drops the providers cached in memory.
    expect((await call(owner, 'PUT', '/api/admin/payment-providers/yookassa', { enabled: true })).statusCode).toBe(200);
    expect((await yookassa()).fields.api_url).toBe(yoo.apiUrl);
    expect((await call(owner, 'POST', '/api/admin/payment-providers/yookassa/check')).json()).toMatchObject({ ok: true });
    expect(sentSecrets()).toEqual([]);
  });
});
