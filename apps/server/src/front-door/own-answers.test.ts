import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, createTestApp, dbKinds, loginAs, seedUser, startInstance, type TestApp } from '../test/test-app.ts';
import { hashToken } from '../lib/tokens.ts';
import { sessionCacheKey } from '../lib/user-cache.ts';
import { sessionTokenOf } from '../modules/users/session-tokens.ts';
import { MemoryAnswers, type Answered } from './memory.ts';

/**
 * The signed-in player's own /me and head answered from memory by the front door: the very
 * answer Fastify gives, and never one for a session or a user that changed since.
 */

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

async function get(url: string, headers: Record<string, string>, method = 'GET'): Promise<Answer> {
  const res = await fetch(url, { method, headers });
  const body = Buffer.from(await res.arrayBuffer());
  const h = Object.fromEntries(
    [...res.headers.entries()].filter(([k]) => !['date', 'keep-alive', 'connection', 'x-request-id'].includes(k)),
  );
  return { status: res.status, headers: h, body };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}`, 'accept-encoding': 'gzip, br' });

describe.each(dbKinds)('own reads from memory (%s)', (kind) => {
  let t: TestApp;
  let base: string;
  let rootToken: string;
  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
    base = await listen(t.app);
    await seedUser(t, 'Root', { admin: true });
    rootToken = await loginAs(t, 'Root');
  });
  afterAll(async () => {
    await t?.close();
  });
  const served = () => t.app.frontDoor.served;

  it('answers /me and the head exactly as the route does, by Bearer and by cookie', async () => {
    await seedUser(t, 'Alex', { balanceKopecks: 12_345 });
    const token = await loginAs(t, 'Alex');
    // Another browser of the same player: its own session, by cookie.
    const browser = await loginAs(t, 'Alex');
    for (const [url, headers] of [
      ['/api/user/me', bearer(token)],
      ['/api/user/head', bearer(token)],
      ['/api/user/head?size=32', bearer(token)],
      ['/api/user/me', { cookie: `kubik_in=1; kubik_session=${browser}` }],
    ] as const) {
      const before = served();
      const normal = await get(base + url, headers);
      expect(normal.status, url).toBe(200);
      expect(served()).toBe(before);
      const fast = await get(base + url, headers);
      expect(served(), url).toBe(before + 1);
      expect(fast).toEqual(normal);
      expect(fast.headers['content-security-policy']).toContain("default-src 'self'");
    }
    // Each answer its own request id, from memory too.
    const a = await fetch(`${base}/api/user/me`, { headers: bearer(token) });
    const b = await fetch(`${base}/api/user/me`, { headers: bearer(token) });
    expect(a.headers.get('x-request-id')).toBeTruthy();
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('leaves HEAD, conditional requests, odd credentials and strangers to the route', async () => {
    await seedUser(t, 'Bob');
    const token = await loginAs(t, 'Bob');
    const head = await get(`${base}/api/user/head`, bearer(token));
    await get(`${base}/api/user/me`, bearer(token));
    const before = served();
    expect((await get(`${base}/api/user/me`, bearer(token), 'HEAD')).status).toBe(200);
    expect((await get(`${base}/api/user/head`, { ...bearer(token), 'if-none-match': head.headers.etag! })).status).toBe(304);
    // A token that is not ours, a made-up one: the route decides.
    expect((await get(`${base}/api/user/me`, { authorization: `Bearer ${token}x` })).status).toBe(401);
    expect((await get(`${base}/api/user/me`, { authorization: `Bearer ${'A'.repeat(43)}` })).status).toBe(401);
    expect((await get(`${base}/api/user/me`, {})).status).toBe(401);
    expect(served()).toBe(before);
  });

  it('never repeats a stale balance, an ended session or a banned player', async () => {
    const id = await seedUser(t, 'Carol', { balanceKopecks: 100 });
    const token = await loginAs(t, 'Carol');
    const me = async () => {
      const a = await get(`${base}/api/user/me`, bearer(token));
      return a.status === 200 ? (JSON.parse(a.body.toString()) as { balance: number }).balance : a.status;
    };
    expect(await me()).toBe(1);
    expect(await me()).toBe(1);
    const before = served();
    expect(before).toBeGreaterThan(0);

    // A balance change by an administrator.
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/user/${id}`,
      headers: { authorization: `Bearer ${rootToken}` },
      payload: { balance: 42 },
    });
    expect(put.statusCode).toBe(200);
    expect(await me()).toBe(42);
    expect(await me()).toBe(42);

    // A ban ends the session at once.
    const ban = await t.app.inject({
      method: 'POST',
      url: `/api/admin/users/${id}/ban`,
      headers: { authorization: `Bearer ${rootToken}` },
      payload: { note: 'Проверка', until: null },
    });
    expect(ban.statusCode).toBe(200);
    expect(await me()).toBe(401);
    expect(await me()).toBe(401);
    expect((await get(`${base}/api/user/head`, bearer(token))).status).toBe(401);
  });

  it('forgets a session at logout, including its head', async () => {
    await seedUser(t, 'Dana');
    const token = await loginAs(t, 'Dana');
    await get(`${base}/api/user/head`, bearer(token));
    await get(`${base}/api/user/me`, bearer(token));
    const before = served();
    expect((await get(`${base}/api/user/head`, bearer(token))).status).toBe(200);
    expect(served()).toBe(before + 1);
    const out = await fetch(`${base}/api/user/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(out.status).toBe(200);
    expect((await get(`${base}/api/user/me`, bearer(token))).status).toBe(401);
    expect((await get(`${base}/api/user/head`, bearer(token))).status).toBe(401);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('own reads from memory across instances (PostgreSQL)', () => {
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>>;
  const instances: Awaited<ReturnType<typeof startInstance>>[] = [];
  beforeAll(async () => {
    pgDb = await createPgDatabase();
  });
  afterAll(async () => {
    for (const i of instances.splice(0)) await i.close();
    await pgDb?.drop();
  });

  it('stops at once when another instance ends the session or changes the player', async () => {
    for (let i = 0; i < 2; i++) instances.push(await startInstance(pgDb.url));
    const [one, two] = instances as [(typeof instances)[0], (typeof instances)[0]];
    const t = { app: one.app, handle: one.handle } as TestApp;
    const id = await seedUser(t, 'Alex');
    await seedUser(t, 'Root', { admin: true });
    const root = await loginAs(t, 'Root');
    const kept = await loginAs(t, 'Alex');
    const other = await loginAs(t, 'Alex');
    const baseTwo = await listen(two.app);
    const meOnTwo = async (token: string) => {
      const a = await get(`${baseTwo}/api/user/me`, bearer(token));
      return a.status === 200 ? (JSON.parse(a.body.toString()) as { balance: number }).balance : a.status;
    };
    expect(await meOnTwo(other)).toBe(0);
    expect(await meOnTwo(other)).toBe(0);
    expect(two.app.frontDoor.served).toBeGreaterThan(0);

    // A balance change through the first instance.
    await one.app.inject({ method: 'PUT', url: `/api/user/${id}`, headers: { authorization: `Bearer ${root}` }, payload: { balance: 42 } });
    await expect.poll(() => meOnTwo(other), { timeout: 2000, interval: 20 }).toBe(42);
    expect(await meOnTwo(other)).toBe(42);

    // «Выйти на всех устройствах» from another session, on the first instance.
    const revoked = await one.app.inject({
      method: 'POST',
      url: '/api/user/sessions/revoke-all',
      headers: { authorization: `Bearer ${kept}` },
    });
    expect(revoked.statusCode).toBe(200);
    await expect.poll(() => meOnTwo(other), { timeout: 2000, interval: 20 }).toBe(401);
    for (let i = 0; i < 5; i++) expect(await meOnTwo(other)).toBe(401);

    // By hand, as an operator's SQL would: the trigger tells every instance.
    expect(await meOnTwo(kept)).toBe(42);
    expect(await meOnTwo(kept)).toBe(42);
    const c = new pg.Client({ connectionString: pgDb.url });
    await c.connect();
    await c.query('delete from sessions where user_id = $1', [id]);
    await c.end();
    await expect.poll(() => meOnTwo(kept), { timeout: 2000, interval: 20 }).toBe(401);
    expect(await meOnTwo(kept)).toBe(401);
  });
});

describe('own answers in memory: the rules', () => {
  const req = (headers: Record<string, string>) => ({ headers, method: 'GET', url: '/api/user/me' }) as unknown as IncomingMessage;
  const token = 'abcdefghijklmnopqrstuvwxyz0123456789_-ABCD';
  // No public answers in these: a cache that holds nothing.
  const noPublic = { isCurrent: () => false } as never;

  it('reads the session token as the access check does', () => {
    const read = (headers: Record<string, string>) => sessionTokenOf(req(headers).headers);
    expect(read({ authorization: `Bearer ${token}` })).toBe(token);
    expect(read({ cookie: `a=b; kubik_session=${token}; c=d` })).toBe(token);
    // The first of two, as the cookie parser reads them; %-escapes decoded as it decodes them.
    expect(read({ cookie: `kubik_session=${token}; kubik_session=other` })).toBe(token);
    expect(read({ cookie: `kubik_session=${token}%41` })).toBe(`${token}A`);
    // Another scheme: the cookie counts.
    expect(read({ authorization: 'Basic eDp5', cookie: `kubik_session=${token}` })).toBe(token);
    expect(read({ authorization: `Bearer  ${token}` })).toBe(token);
    expect(read({ authorization: 'Bearer ' })).toBeNull();
    expect(read({ cookie: 'kubik_sessionx=1' })).toBeNull();
    expect(read({})).toBeNull();
  });

  it('gives an answer again only while the session value, the generation and the activity stay the same', () => {
    let generation = 0;
    let session: unknown = { user: { id: 1 } };
    let fresh = true;
    const memory = new MemoryAnswers(
      noPublic,
      {
        get generation() {
          return generation;
        },
        peek: () => session,
      },
      { fresh: () => fresh },
    );
    const remember = (over: Partial<Answered> = {}) =>
      memory.remember({
        url: '/api/user/me',
        route: '/api/user/me',
        requestHeaders: {},
        headers: { 'content-type': 'application/json; charset=utf-8' },
        payload: '{"id":1}',
        publicCapture: undefined,
        token,
        user: (session as { user: unknown }).user,
        arrivedAt: generation,
        ...over,
      });
    const ask = () => memory.find(req({ authorization: `Bearer ${token}` }), Date.now());

    remember({ headers: { 'content-type': 'application/json', 'set-cookie': 'a=b' } });
    expect(ask()).toBeUndefined();
    remember({ arrivedAt: generation - 1 });
    expect(ask()).toBeUndefined();
    remember({ user: { id: 1 } });
    expect(ask()).toBeUndefined();
    remember({ headers: {} });
    expect(ask()).toBeUndefined();

    remember();
    expect(ask()).toMatchObject({
      route: '/api/user/me',
      headers: ['content-type', 'application/json; charset=utf-8', 'content-length', '8', 'x-request-id', ''],
    });
    fresh = false;
    expect(ask()).toBeUndefined();
    fresh = true;
    expect(ask()).toBeDefined();
    session = { user: { id: 1 } };
    expect(ask()).toBeUndefined();
    remember();
    expect(ask()).toBeDefined();
    generation++;
    expect(ask()).toBeUndefined();
  });

  it('tells browsers apart by their own credentials, past the memo’s bound and for long headers', () => {
    const tokens = ['A'.repeat(43), 'B'.repeat(43)];
    const sessions = new Map<string, { user: { id: number } }>(tokens.map((tk, id) => [sessionCacheKey(hashToken(tk)), { user: { id } }]));
    const memory = new MemoryAnswers(noPublic, { generation: 0, peek: (key) => sessions.get(key) }, { fresh: () => true });
    for (const [id, tk] of tokens.entries())
      memory.remember({
        url: '/api/user/me',
        route: '/api/user/me',
        requestHeaders: {},
        headers: { 'content-type': 'application/json; charset=utf-8' },
        payload: `{"id":${id}}`,
        publicCapture: undefined,
        token: tk,
        user: sessions.get(sessionCacheKey(hashToken(tk)))!.user,
        arrivedAt: 0,
      });
    const bodyFor = (headers: Record<string, string>) => memory.find(req(headers), Date.now())?.body ?? null;
    const long = `${'x'.repeat(600)}=1; kubik_session=${tokens[1]}`;
    for (let round = 0; round < 2; round++) {
      expect(bodyFor({ cookie: `kubik_session=${tokens[0]}` })).toBe('{"id":0}');
      expect(bodyFor({ cookie: long })).toBe('{"id":1}');
      expect(bodyFor({ authorization: `Bearer ${tokens[1]}` })).toBe('{"id":1}');
      expect(bodyFor({ cookie: `kubik_session=${'C'.repeat(43)}` })).toBeNull();
    }
    // More browsers than the memo keeps: each still gets its own answer.
    for (let i = 0; i < 5000; i++) expect(bodyFor({ cookie: `n=${i}; kubik_session=${tokens[i % 2]}` })).toBe(`{"id":${i % 2}}`);
    // The same header, once its session is gone, is the route's again.
    sessions.delete(sessionCacheKey(hashToken(tokens[0]!)));
    expect(bodyFor({ cookie: `kubik_session=${tokens[0]}` })).toBeNull();
    expect(bodyFor({ cookie: long })).toBe('{"id":1}');
  });

  it('keeps a session’s latest answers only, however many URLs it asks', () => {
    const token = 'D'.repeat(43);
    const session = { user: { id: 7 } };
    const memory = new MemoryAnswers(noPublic, { generation: 0, peek: () => session }, { fresh: () => true });
    const url = (i: number) => `/api/user/head?size=${i}`;
    for (let i = 0; i < 40; i++)
      memory.remember({
        url: url(i),
        route: '/api/user/head',
        requestHeaders: {},
        headers: { 'content-type': 'image/png' },
        payload: Buffer.from([i]),
        publicCapture: undefined,
        token,
        user: session.user,
        arrivedAt: 0,
      });
    const kept = (i: number) =>
      memory.find(
        { method: 'GET', url: url(i), headers: { authorization: `Bearer ${token}` } } as unknown as IncomingMessage,
        Date.now(),
      ) !== undefined;
    expect([0, 23, 24, 39].map(kept)).toEqual([false, false, true, true]);
  });
});
