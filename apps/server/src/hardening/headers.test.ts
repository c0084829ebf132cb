import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigOverrides } from '../config.ts';
import { hashToken } from '../lib/tokens.ts';
import { SESSION_COOKIE } from '../modules/users/session-tokens.ts';
import { linkIn } from '../../../../testing/smtp-catcher.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, sendQueuedMail, type TestApp } from '../test/test-app.ts';
import { diffSnapshots, snapshot } from './db-snapshot.ts';

/*
 * Headers and sessions: the Content-Security-Policy of every kind of answer, the session
 * cookie's flags, the Origin check that protects cookie-authenticated writes from other sites,
 * and the ways a session ends. (accounts.test.ts already covers: logout by bearer, a password
 * reset and a password change ending sessions, one foreign Origin on logout.)
 */

/** `default-src 'self'; img-src 'self' https:` → { 'default-src': ["'self'"], 'img-src': ["'self'", 'https:'] } */
function parseCsp(header: string | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of (header ?? '').split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) out[name.toLowerCase()] = sources;
  }
  return out;
}

/** What the site needs and nothing more: scripts, styles, fonts and calls from itself; images also from https (news). */
function cspProblems(header: string | undefined): string[] {
  if (!header) return ['no Content-Security-Policy'];
  const csp = parseCsp(header);
  const problems: string[] = [];
  const exactly = (name: string, sources: string[]) => {
    if (JSON.stringify(csp[name]) !== JSON.stringify(sources))
      problems.push(`${name} is ${JSON.stringify(csp[name])}, expected ${JSON.stringify(sources)}`);
  };
  exactly('default-src', ["'self'"]);
  exactly('script-src', ["'self'"]);
  exactly('object-src', ["'none'"]);
  exactly('frame-ancestors', ["'none'"]);
  exactly('base-uri', ["'self'"]);
  // The site's own forms, and ЮMoney's quickpay form (the top-up page posts it to ЮMoney).
  const forms = JSON.stringify(csp['form-action']);
  if (forms !== JSON.stringify(["'self'"]) && forms !== JSON.stringify(["'self'", 'https://yoomoney.ru']))
    problems.push(`form-action is ${forms}, expected 'self' (and ЮMoney's quickpay)`);
  exactly('connect-src', ["'self'"]);
  const img = csp['img-src'] ?? [];
  if (!img.includes("'self'") || !img.includes('https:'))
    problems.push(`img-src ${JSON.stringify(img)} must allow 'self' and https: (news images)`);
  // Nothing may allow any host, inline script or eval, whatever the directive.
  for (const [name, sources] of Object.entries(csp)) {
    for (const bad of ['*', "'unsafe-eval'", "'strict-dynamic'", "'wasm-unsafe-eval'"])
      if (sources.includes(bad)) problems.push(`${name} allows ${bad}`);
    if (name !== 'style-src' && sources.includes("'unsafe-inline'")) problems.push(`${name} allows 'unsafe-inline'`);
    if (name !== 'img-src' && sources.some((s) => /^(https?:|data:|blob:)$/.test(s) && !(name === 'font-src' && s === 'data:')))
      problems.push(`${name} allows ${sources.join(' ')}`);
  }
  return problems;
}

/** The session cookie in a Set-Cookie header, split into its value and its attributes (lower-case names). */
function sessionCookie(res: { headers: Record<string, unknown> }): { value: string; attrs: Map<string, string> } | null {
  const raw = res.headers['set-cookie'];
  const all = (Array.isArray(raw) ? raw : raw ? [raw] : []) as string[];
  const line = all.find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  if (!line) return null;
  const [first, ...rest] = line.split(';').map((s) => s.trim());
  const attrs = new Map(rest.map((a) => [a.split('=')[0]!.toLowerCase(), a.includes('=') ? a.slice(a.indexOf('=') + 1) : ''] as const));
  return { value: first!.slice(SESSION_COOKIE.length + 1), attrs };
}

const login = (t: TestApp, username: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/api/user/login', payload: { username, password: 'password123' }, headers });

describe.each(dbKinds)('headers and sessions on %s', (kind) => {
  describe('Content-Security-Policy', () => {
    let t: TestApp;
    let base: string;
    let webDist: string;
    beforeAll(async () => {
      // A stand-in for the built web app: the HTML answers come from the same code as in production.
      webDist = mkdtempSync(path.join(os.tmpdir(), 'kubik-web-'));
      writeFileSync(
        path.join(webDist, 'index.html'),
        '<!doctype html><html lang="ru"><head><script type="module" src="/assets/app.js"></script></head><body><div id="root"></div></body></html>',
      );
      t = await createTestApp(kind, { rateLimits: { enabled: false }, workers: false, webDist });
      await seedUser(t, 'Admin', { admin: true });
      // Over a socket: repeated public reads are answered before Fastify (PublicCache), and must carry the headers too.
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await t?.close();
      rmSync(webDist, { recursive: true, force: true });
    });

    it('is on HTML pages, API answers, errors and cached public reads, and allows only what the site needs', async () => {
      const problems: string[] = [];
      const paths = [
        '/',
        '/servers',
        '/shop',
        '/api/tidings/news',
        '/api/tidings/news',
        '/api/donate/fully',
        '/api/donate/fully',
        '/api/servers/',
        '/api/servers/',
        '/api/shop/all',
        '/api/shop/all',
        '/api/site',
        '/api/user/me',
        '/api/nope',
        '/assets/missing.js',
        '/api/docs/',
      ];
      for (const p of paths) {
        const res = await fetch(base + p);
        for (const problem of cspProblems(res.headers.get('content-security-policy') ?? undefined))
          problems.push(`GET ${p} (${res.status}): ${problem}`);
        if (res.headers.get('x-content-type-options') !== 'nosniff') problems.push(`GET ${p}: no X-Content-Type-Options: nosniff`);
        await res.arrayBuffer();
      }
      const write = await fetch(`${base}/api/tidings/news`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
      for (const problem of cspProblems(write.headers.get('content-security-policy') ?? undefined))
        problems.push(`POST (${write.status}): ${problem}`);
      expect(problems).toEqual([]);
    });

    it('is checked strictly enough to catch a policy that allows inline scripts, eval or any host', () => {
      const good =
        "default-src 'self';script-src 'self';style-src 'self' 'unsafe-inline';img-src 'self' data: blob: https:;font-src 'self' data:;connect-src 'self';object-src 'none';base-uri 'self';form-action 'self' https://yoomoney.ru;frame-ancestors 'none'";
      expect(cspProblems(good)).toEqual([]);
      expect(cspProblems(good.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'"))).not.toEqual([]);
      expect(cspProblems(good.replace("script-src 'self'", "script-src 'self' 'unsafe-eval'"))).not.toEqual([]);
      expect(cspProblems(good.replace("connect-src 'self'", 'connect-src *'))).not.toEqual([]);
      expect(cspProblems(good.replace(";frame-ancestors 'none'", ''))).not.toEqual([]);
      expect(cspProblems(good.replace("img-src 'self' data: blob: https:", "img-src 'self'"))).not.toEqual([]);
    });

    it('lets the pages run: the web app and the API docs load no inline script', async () => {
      // The web app's HTML (Vite keeps scripts as files) and the Swagger UI page.
      const source = readFileSync(path.resolve(import.meta.dirname, '../../../web/index.html'), 'utf8');
      const docs = await (await fetch(`${base}/api/docs/`)).text();
      for (const html of [source, docs]) {
        const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
        expect(scripts.length).toBeGreaterThan(0);
        for (const [, attrs, body] of scripts) {
          expect(attrs, 'every script is a file of the site').toMatch(/\bsrc="(\/|\.\/)/);
          expect(body!.trim()).toBe('');
        }
        expect(html).not.toMatch(/\son[a-z]+\s*=/i);
      }
    });

    // Fastify answers a malformed URL itself (FST_ERR_BAD_URL), before any hook: this answer had
    // no CSP and no nosniff until frameworkErrors (plugins/security.ts) added them.
    it('answers a malformed URL with the same headers', async () => {
      const res = await fetch(`${base}/api/tidings/%`, { method: 'PUT' });
      await res.arrayBuffer();
      expect(res.status).toBe(400);
      expect(cspProblems(res.headers.get('content-security-policy') ?? undefined)).toEqual([]);
    });
  });

  describe('session cookie', () => {
    const apps: TestApp[] = [];
    const app = async (overrides: ConfigOverrides = {}) => {
      const t = await createTestApp(kind, { rateLimits: { enabled: false }, workers: false, ...overrides });
      apps.push(t);
      await seedUser(t, 'Steve');
      return t;
    };
    afterAll(async () => {
      for (const t of apps) await t.close();
    });

    it('is HttpOnly, SameSite=Lax, Path=/, lives as long as the session row, and is not Secure on plain http', async () => {
      const t = await app({ publicUrl: 'http://kubik.test' });
      const before = Date.now();
      const res = await login(t, 'Steve');
      expect(res.statusCode).toBe(200);
      const cookie = sessionCookie(res)!;
      // The token is in the httpOnly cookie only: the body never carries it to scripts.
      expect(res.json()).not.toHaveProperty('token');
      expect(res.body).not.toContain(cookie.value);
      expect(cookie.attrs.has('httponly')).toBe(true);
      expect(cookie.attrs.get('samesite')?.toLowerCase()).toBe('lax');
      expect(cookie.attrs.get('path')).toBe('/');
      expect(cookie.attrs.has('domain')).toBe(false);
      expect(cookie.attrs.has('secure')).toBe(false);
      const ttl = t.app.ctx.config.sessionTtlMs;
      expect(Number(cookie.attrs.get('max-age'))).toBe(Math.floor(ttl / 1000));
      const row = await t.handle.db
        .selectFrom('sessions')
        .select('expires_at')
        .where('token_hash', '=', hashToken(cookie.value))
        .executeTakeFirstOrThrow();
      expect(Number(row.expires_at)).toBeGreaterThanOrEqual(before + ttl);
      expect(Number(row.expires_at)).toBeLessThanOrEqual(Date.now() + ttl);
      expect(res.headers['strict-transport-security']).toBeUndefined();
    });

    it('is Secure, and HSTS is sent, when PUBLIC_URL is https', async () => {
      const t = await app({ publicUrl: 'https://kubik.test' });
      const res = await login(t, 'Steve', { origin: 'https://kubik.test' });
      const cookie = sessionCookie(res)!;
      expect(cookie.attrs.has('secure')).toBe(true);
      expect(cookie.attrs.has('httponly')).toBe(true);
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      // Logging out clears it with the same flags, so the browser really drops it.
      const out = await t.app.inject({
        method: 'POST',
        url: '/api/user/logout',
        cookies: { [SESSION_COOKIE]: cookie.value },
        headers: { origin: 'https://kubik.test' },
      });
      const cleared = sessionCookie(out)!;
      expect(cleared.value).toBe('');
      expect(cleared.attrs.get('max-age')).toBe('0');
      expect(cleared.attrs.has('secure')).toBe(true);
      expect(cleared.attrs.get('path')).toBe('/');
    });

    it('ignores X-Forwarded-Proto from a proxy that is not trusted', async () => {
      const t = await app({ publicUrl: 'http://kubik.test', trustProxy: false });
      const res = await login(t, 'Steve', { 'x-forwarded-proto': 'https' });
      expect(sessionCookie(res)!.attrs.has('secure')).toBe(false);
    });

    it('is Secure behind a trusted proxy when PUBLIC_URL is https (the documented setup)', async () => {
      const t = await app({ publicUrl: 'https://kubik.test', trustProxy: true });
      const res = await login(t, 'Steve', { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' });
      expect(sessionCookie(res)!.attrs.has('secure')).toBe(true);
    });

    // With TRUST_PROXY=true the proxy says the browser used TLS; only PUBLIC_URL used to decide the
    // Secure flag, so a site whose PUBLIC_URL was left at http sent its session cookie without it.
    it('is Secure behind a trusted proxy that forwards https, even if PUBLIC_URL says http', async () => {
      const t = await app({ publicUrl: 'http://kubik.test', trustProxy: true });
      const res = await login(t, 'Steve', { 'x-forwarded-proto': 'https' });
      expect(sessionCookie(res)!.attrs.has('secure')).toBe(true);
    });
  });

  describe('cross-site writes', () => {
    let t: TestApp;
    let admin: string;
    beforeAll(async () => {
      t = await createTestApp(kind, {
        rateLimits: { enabled: false },
        workers: false,
        publicUrl: 'http://kubik.test',
        gravitSecret: 'launchserver-secret-0123456789',
      });
      await seedUser(t, 'Admin', { admin: true, balanceKopecks: 100_000 });
      admin = await loginAs(t, 'Admin');
    });
    afterAll(async () => {
      await t?.close();
    });

    const fill = (url: string) =>
      url
        .replace(/:id\b/g, '999999')
        .replace(/:token\b/g, 'x'.repeat(43))
        .replace(/:(\w+)/g, 'x1');
    // Ending sessions last: the change of password (refused for its empty body) and then the logout.
    const writes = () =>
      t.app.apiRoutes
        .filter((r) => r.method !== 'GET')
        .sort(
          (a, b) =>
            Number(/logout/.test(a.url)) - Number(/logout/.test(b.url)) ||
            Number(/change-password/.test(a.url)) - Number(/change-password/.test(b.url)),
        );
    // Game launcher protocols never read the cookie (their own tokens, or the LaunchServer's
    // secret), so the cross-site guard leaves them to launchers that send an Origin of their own.
    const cookieless = (r: { url: string }) => r.url.startsWith('/api/gravit/') || r.url.startsWith('/api/yggdrasil/');
    const call = (route: { method: string; url: string }, opts: Partial<InjectOptions>) =>
      t.app.inject({ method: route.method as 'POST', url: fill(route.url), payload: {}, ...opts, headers: { ...opts.headers } });

    it('refuses every cookie-authenticated write from another site with a Russian 403, and changes nothing', async () => {
      const before = await snapshot(t.handle.db);
      const problems: string[] = [];
      const foreign: Record<string, string>[] = [
        { origin: 'https://evil.example' },
        { origin: 'null' },
        { origin: 'http://kubik.test.evil.example' },
        { origin: 'http://kubik.test:8080' },
        { origin: 'https://kubik.test' },
        { origin: 'not a url' },
        { 'sec-fetch-site': 'cross-site' },
      ];
      for (const route of writes()) {
        for (const headers of foreign) {
          for (const auth of ['cookie', 'bearer', 'none'] as const) {
            const res = await call(route, {
              headers,
              ...(auth === 'cookie' && { cookies: { [SESSION_COOKIE]: admin } }),
              ...(auth === 'bearer' && { headers: { ...headers, authorization: `Bearer ${admin}` } }),
            });
            const refused = res.statusCode === 403 && res.body.includes('Запрос с другого сайта отклонён');
            if (cookieless(route) ? refused || res.statusCode >= 500 : !refused || errorOf(res) !== 'Запрос с другого сайта отклонён') {
              problems.push(`${route.method} ${route.url} ${JSON.stringify(headers)} ${auth}: ${res.statusCode} ${res.body.slice(0, 100)}`);
            }
          }
        }
      }
      expect(problems).toEqual([]);
      expect(diffSnapshots(before, await snapshot(t.handle.db))).toEqual([]);
      expect(writes().length).toBeGreaterThan(15);
    });

    it('lets same-origin pages and clients without an Origin through (to the route itself)', async () => {
      const problems: string[] = [];
      const notRefused = (label: string, res: LightMyRequestResponse) => {
        if (res.statusCode === 403 || res.statusCode >= 500) problems.push(`${label}: ${res.statusCode} ${res.body.slice(0, 100)}`);
      };
      for (const route of writes()) {
        const label = `${route.method} ${route.url}`;
        notRefused(
          `${label} same origin, cookie`,
          await call(route, {
            cookies: { [SESSION_COOKIE]: admin },
            headers: { origin: 'http://kubik.test', 'sec-fetch-site': 'same-origin' },
          }),
        );
        notRefused(`${label} no Origin, bearer`, await call(route, asUser(admin, {})));
      }
      expect(problems).toEqual([]);
    });
  });

  describe('session end', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(kind, { rateLimits: { enabled: false }, workers: false });
      await seedUser(t, 'Admin', { admin: true });
    });
    afterAll(async () => {
      await t?.close();
    });
    const me = (opts: Partial<InjectOptions>) => t.app.inject({ method: 'GET', url: '/api/user/me', ...opts });
    const byCookie = (token: string) => ({ cookies: { [SESSION_COOKIE]: token } });
    const byBearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
    const expectInvalid = (res: LightMyRequestResponse) => {
      expect(res.statusCode).toBe(401);
      expect(errorOf(res)).toBe('Invalid token');
    };

    it('ends when the session row expires: 401 Invalid token by cookie and by bearer', async () => {
      await seedUser(t, 'Expiring');
      const token = await loginAs(t, 'Expiring');
      expect((await me(byCookie(token))).statusCode).toBe(200);
      await t.handle.db
        .updateTable('sessions')
        .set({ expires_at: Date.now() - 1 })
        .where('token_hash', '=', hashToken(token))
        .execute();
      expectInvalid(await me(byCookie(token)));
      expectInvalid(await me(byBearer(token)));
      // Writes too, and before their body is read.
      const buy = await t.app.inject({
        method: 'POST',
        url: '/api/shop/buy',
        payload: '{',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      });
      expectInvalid(buy);
    });

    it('ends by itself after SESSION_TTL', async () => {
      const short = await createTestApp(kind, { rateLimits: { enabled: false }, workers: false, sessionTtlMs: 1500 });
      try {
        await seedUser(short, 'Brief');
        const token = await loginAs(short, 'Brief');
        expect((await short.app.inject({ method: 'GET', url: '/api/user/me', ...byCookie(token) })).statusCode).toBe(200);
        await new Promise((r) => setTimeout(r, 1700));
        expectInvalid(await short.app.inject({ method: 'GET', url: '/api/user/me', ...byCookie(token) }));
      } finally {
        await short.close();
      }
    });

    it('ends on logout by cookie: the cookie is cleared, the row deleted, other sessions of the user kept', async () => {
      await seedUser(t, 'Leaver');
      const phone = await loginAs(t, 'Leaver');
      const laptop = await loginAs(t, 'Leaver');
      const out = await t.app.inject({ method: 'POST', url: '/api/user/logout', ...byCookie(laptop) });
      expect(out.statusCode).toBe(200);
      expect(sessionCookie(out)!.attrs.get('max-age')).toBe('0');
      expect(
        await t.handle.db.selectFrom('sessions').select('user_id').where('token_hash', '=', hashToken(laptop)).executeTakeFirst(),
      ).toBeUndefined();
      expectInvalid(await me(byCookie(laptop)));
      expect((await me(byBearer(phone))).statusCode).toBe(200);
    });

    it('answers a forged, overlong or empty token with 401, never a 500', async () => {
      expectInvalid(await me(byBearer('x'.repeat(43))));
      expectInvalid(await me(byBearer('x'.repeat(5000))));
      expectInvalid(await me(byCookie('x'.repeat(3000))));
      expectInvalid(await me(byCookie("' or 1=1 --")));
      const empty = await me({ headers: { authorization: 'Bearer ' } });
      expect(empty.statusCode).toBe(401);
      expect(errorOf(empty)).toBe('Войдите в аккаунт');
    });

    it('ends every session of a user the administrator deletes, or gives a new password', async () => {
      const admin = await loginAs(t, 'Admin');
      const goneId = await seedUser(t, 'Gone');
      const gone = await loginAs(t, 'Gone');
      const resetId = await seedUser(t, 'Reset');
      const resetA = await loginAs(t, 'Reset');
      const resetB = await loginAs(t, 'Reset');
      expect((await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/user/${goneId}` }))).statusCode).toBe(200);
      expectInvalid(await me(byCookie(gone)));
      const put = await t.app.inject(
        asUser(admin, { method: 'PUT', url: `/api/user/${resetId}`, payload: { password: 'brand-new-password' } }),
      );
      expect(put.statusCode, put.body).toBe(200);
      expectInvalid(await me(byCookie(resetA)));
      expectInvalid(await me(byBearer(resetB)));
      expect((await me(byBearer(admin))).statusCode).toBe(200);
    });

    it('takes an administrator’s rights away at once when the role is removed', async () => {
      const owner = await loginAs(t, 'Admin');
      const modId = await seedUser(t, 'Moderator', { admin: true });
      const mod = await loginAs(t, 'Moderator');
      expect((await t.app.inject(asUser(mod, { method: 'GET', url: '/api/user/all' }))).statusCode).toBe(200);
      expect(
        (await t.app.inject(asUser(owner, { method: 'PUT', url: `/api/user/${modId}`, payload: { is_admin: false } }))).statusCode,
      ).toBe(200);
      const after = await t.app.inject(asUser(mod, { method: 'GET', url: '/api/user/all' }));
      expect(after.statusCode).toBe(403);
    });

    it('a password reset also ends sessions opened after the link was sent, by cookie and by bearer', async () => {
      await seedUser(t, 'Forgot');
      await t.app.inject({ method: 'POST', url: '/api/user/forgot-password', payload: { email: 'forgot@example.com' } });
      await sendQueuedMail(t);
      const letter = await t.smtp.waitFor('forgot@example.com');
      const resetToken = new URL(linkIn(letter, '/reset-password?token=')).searchParams.get('token')!;
      const cookieSession = await loginAs(t, 'Forgot');
      const bearerSession = await loginAs(t, 'Forgot');
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/user/reset-password/${resetToken}`,
        payload: { new_password: 'another-password' },
      });
      expect(res.statusCode, res.body).toBe(200);
      expectInvalid(await me(byCookie(cookieSession)));
      expectInvalid(await me(byBearer(bearerSession)));
      expect(
        await t.handle.db
          .selectFrom('sessions')
          .innerJoin('users', 'users.id', 'sessions.user_id')
          .select('sessions.token_hash')
          .where('users.username', '=', 'Forgot')
          .execute(),
      ).toEqual([]);
    });
  });
});
