import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTouches, databaseBefore } from '../../test/database.ts';
import { hashToken, newToken } from '../../lib/tokens.ts';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { SessionTokens } from './session-tokens.ts';

const MINUTE = 60_000;
const altered = (token: string) => token.slice(0, -1) + (token.at(-1) === 'A' ? 'B' : 'A');

describe.each(dbKinds)('signed session tokens on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  const me = (token: string, how: 'bearer' | 'cookie' = 'bearer') =>
    t.app.inject(
      how === 'bearer'
        ? asUser(token, { method: 'GET', url: '/api/user/me' })
        : { method: 'GET', url: '/api/user/me', cookies: { kubik_session: token } },
    );

  it('a login gets a signed token that works as cookie and Bearer; the session is marked signed', async () => {
    const id = await seedUser(t, 'Signed');
    const token = await loginAs(t, 'Signed');
    expect(token).toMatch(/^[\w-]{65}$/);
    expect((await me(token)).statusCode).toBe(200);
    expect((await me(token, 'cookie')).statusCode).toBe(200);
    const rows = await t.handle.db.selectFrom('sessions').select(['token_hash', 'signed']).where('user_id', '=', id).execute();
    expect(rows).toEqual([{ token_hash: hashToken(token), signed: 1 }]);
  });

  it('refuses a made-up or altered token by its signature, without asking the database', async () => {
    await seedUser(t, 'Forged');
    const token = await loginAs(t, 'Forged');
    const keys = await SessionTokens.load(t.handle.db);
    const touches = countTouches(t.handle.db, /modules\/users\//);
    try {
      // No unsigned session is live here, so the old token shape is refused without a query too.
      for (const bad of [altered(token), token.slice(0, 43) + altered(token).slice(43), 'x'.repeat(65), newToken(), 'short', `${token}x`]) {
        for (const how of ['bearer', 'cookie'] as const) {
          const res = await me(bad, how);
          expect(res.statusCode, `${bad} ${how}`).toBe(401);
          expect(res.json()).toMatchObject({ code: 'invalid_token' });
        }
      }
      expect(touches.count).toBe(0);
      // The control: a genuine signature is looked up (this one has no session).
      const res = await me(keys.issue());
      expect(res.statusCode).toBe(401);
      expect(touches.count).toBeGreaterThan(0);
    } finally {
      touches.restore();
    }
    expect((await me(token)).statusCode).toBe(200);
  });

  it('a logout ends its signed session and leaves the other one', async () => {
    await seedUser(t, 'Ender');
    const a = await loginAs(t, 'Ender');
    const b = await loginAs(t, 'Ender');
    const out = await t.app.inject(asUser(a, { method: 'POST', url: '/api/user/logout' }));
    expect(out.statusCode).toBeLessThan(300);
    expect((await me(a)).statusCode).toBe(401);
    expect((await me(b)).statusCode).toBe(200);
  });
});

describe.each(dbKinds)('sessions from before signing on %s', (kind) => {
  it('keep working until they end; then the old shape costs at most one query per ten minutes', async () => {
    const before = await databaseBefore(kind, '2026112810_signed_sessions');
    const { db, handle } = before;
    try {
      const now = Date.now();
      const id = await before.addUser('Oldtimer');
      // A token as newToken() made them before: 32 random bytes, unsigned, ending in an hour.
      const old = newToken();
      const session = (token: string, expiresAt: number) => ({
        token_hash: hashToken(token),
        user_id: id,
        created_at: now,
        expires_at: expiresAt,
        ip: null,
        user_agent: null,
      });
      await db
        .insertInto('sessions')
        .values(session(old, now + 60 * MINUTE))
        .execute();
      await before.migrateRest();
      expect(await handle.db.selectFrom('sessions').select('signed').execute()).toEqual([{ signed: 0 }]);

      const app = await before.start();
      const res = await app.inject(asUser(old, { method: 'GET', url: '/api/user/me' }));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ username: 'Oldtimer' });

      const tokens = await SessionTokens.load(handle.db);
      const touches = countTouches(handle.db, /modules\/users\//);
      try {
        // While it may be live, any token of the old shape is looked up.
        expect(await tokens.mayBeLive(newToken(), now + 59 * MINUTE)).toBe(true);
        expect(touches.count).toBe(0);
        // Past its end the database is asked once whether an older instance made another…
        const after = now + 61 * MINUTE;
        expect(await tokens.mayBeLive(old, after)).toBe(false);
        const looked = touches.count;
        expect(looked).toBeGreaterThan(0);
        // …and not again for ten minutes, however many such tokens come.
        for (let i = 0; i < 50; i++) expect(await tokens.mayBeLive(newToken(), after + i * 1000)).toBe(false);
        expect(touches.count).toBe(looked);
        // An older instance's new unsigned session (signed defaults to 0) is found at the next look.
        const late = newToken();
        await db
          .insertInto('sessions')
          .values(session(late, after + 60 * MINUTE))
          .execute();
        expect(await tokens.mayBeLive(late, after + 5 * MINUTE)).toBe(false);
        expect(await tokens.mayBeLive(late, after + 11 * MINUTE)).toBe(true);
        // Signed tokens never wait for that.
        expect(tokens.signed(tokens.issue())).toBe(true);
      } finally {
        touches.restore();
      }
    } finally {
      await before.close();
    }
  });
});
