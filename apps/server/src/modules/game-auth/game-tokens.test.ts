import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTouches, databaseBefore } from '../../test/database.ts';
import { hashToken } from '../../lib/tokens.ts';
import { createTestApp, dbKinds, seedUser, type TestApp } from '../../test/test-app.ts';
import { OFFLINE_UUID } from '../../test/game-auth.ts';
import { GameTokenKeys } from './game-tokens.ts';

const MINUTE = 60_000;
const GRAVIT = 'gravit-test-secret-0123456789';
const altered = (token: string) => token.slice(0, -1) + (token.at(-1) === '0' ? '1' : '0');
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

describe.each(dbKinds)('signed launcher tokens on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { gravitSecret: GRAVIT });
    for (const name of ['Notch', 'Steve']) await seedUser(t, name, { password: 'correct horse' });
  });
  afterAll(async () => {
    await t?.close();
  });

  const ygg = (url: string, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: `/api/yggdrasil/${url}`, payload });
  const gravit = (url: string, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: `/api/gravit/${url}`, payload, headers: { authorization: `Bearer ${GRAVIT}` } });

  it('Yggdrasil: a made-up or altered token is refused as the protocol says, without asking the database', async () => {
    const login = await ygg('authserver/authenticate', { username: 'Notch', password: 'correct horse', clientToken: 'ct-notch' });
    expect(login.statusCode).toBe(200);
    const token = login.json<{ accessToken: string }>().accessToken;
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    expect((await ygg('authserver/validate', { accessToken: token })).statusCode).toBe(204);
    const keys = await GameTokenKeys.load(t.handle.db);
    const touches = countTouches(t.handle.db, /modules\/game-auth\//);
    try {
      // A GravitLauncher token is no Yggdrasil token; no unsigned token is live here, so the old
      // shape is refused without a query too.
      for (const bad of [altered(token), token.toUpperCase(), hex(24), hex(16), keys.issue('gravit'), 'x'.repeat(48)]) {
        const validate = await ygg('authserver/validate', { accessToken: bad });
        expect(validate.statusCode, bad).toBe(403);
        expect(validate.json()).toMatchObject({ error: 'ForbiddenOperationException', errorMessage: 'Invalid token.' });
        const join = await ygg('sessionserver/session/minecraft/join', {
          accessToken: bad,
          selectedProfile: OFFLINE_UUID.Notch!.replaceAll('-', ''),
          serverId: 'abc',
        });
        expect(join.statusCode, bad).toBe(403);
        expect((await ygg('authserver/refresh', { accessToken: bad, clientToken: 'ct-notch' })).statusCode, bad).toBe(403);
        expect((await ygg('authserver/invalidate', { accessToken: bad, clientToken: 'ct-notch' })).statusCode, bad).toBe(204);
      }
      expect(touches.count).toBe(0);
      // The control: a genuine signature is looked up (no such token).
      expect((await ygg('authserver/validate', { accessToken: keys.issue('yggdrasil') })).statusCode).toBe(403);
      expect(touches.count).toBeGreaterThan(0);
    } finally {
      touches.restore();
    }
    expect((await ygg('authserver/validate', { accessToken: token })).statusCode).toBe(204);
  });

  it('GravitLauncher: access and refresh tokens are signed for their use; forged ones cost no query', async () => {
    const session = await gravit('authorize', { login: 'Steve', password: 'correct horse' });
    expect(session.statusCode, session.body).toBe(200);
    const { accessToken, refreshToken } = session.json<{ accessToken: string; refreshToken: string }>();
    expect(accessToken).toMatch(/^[0-9a-f]{48}$/);
    expect(refreshToken).toMatch(/^[0-9a-f]{48}$/);
    expect((await gravit('user/by-token', { accessToken })).statusCode).toBe(200);
    const touches = countTouches(t.handle.db, /modules\/game-auth\//);
    try {
      // A refresh token is no access token, and the other way round.
      for (const bad of [refreshToken, altered(accessToken), hex(24)])
        expect((await gravit('user/by-token', { accessToken: bad })).statusCode, bad).not.toBe(200);
      for (const bad of [accessToken, altered(refreshToken), hex(24)])
        expect((await gravit('refresh', { refreshToken: bad })).statusCode, bad).not.toBe(200);
      expect(touches.count).toBe(0);
    } finally {
      touches.restore();
    }
    expect((await gravit('refresh', { refreshToken })).statusCode).toBe(200);
  });
});

describe.each(dbKinds)('launcher tokens from before signing on %s', (kind) => {
  it('keep working until they can no longer be refreshed; then the old shape costs at most one query per ten minutes', async () => {
    const before = await databaseBefore(kind, '2026112820_signed_game_tokens');
    const { db, handle } = before;
    try {
      const now = Date.now();
      const id = await before.addUser('Oldtimer');
      // A Yggdrasil token as they were made before: 16 random bytes in hex, refreshable for an hour.
      const old = hex(16);
      const row = (token: string, refreshUntil: number) => ({
        access_hash: hashToken(token),
        refresh_hash: null,
        kind: 'yggdrasil',
        user_id: id,
        client_token: 'ct-old',
        profile_name: 'Oldtimer',
        created_at: now,
        expires_at: now + 30 * MINUTE,
        refresh_until: refreshUntil,
      });
      await db
        .insertInto('game_tokens')
        .values(row(old, now + 60 * MINUTE))
        .execute();
      await before.migrateRest();
      expect(await handle.db.selectFrom('game_tokens').select('signed').execute()).toEqual([{ signed: 0 }]);

      const app = await before.start();
      const validate = (accessToken: string) =>
        app.inject({ method: 'POST', url: '/api/yggdrasil/authserver/validate', payload: { accessToken } });
      expect((await validate(old)).statusCode).toBe(204);
      expect((await validate(hex(16))).statusCode).toBe(403);

      const keys = await GameTokenKeys.load(handle.db);
      const touches = countTouches(handle.db, /modules\/game-auth\//);
      try {
        expect(await keys.mayBeLive('yggdrasil', hex(16), now + 59 * MINUTE)).toBe(true);
        expect(touches.count).toBe(0);
        const after = now + 61 * MINUTE;
        expect(await keys.mayBeLive('yggdrasil', old, after)).toBe(false);
        const looked = touches.count;
        expect(looked).toBeGreaterThan(0);
        for (let i = 0; i < 50; i++) expect(await keys.mayBeLive('gravit', hex(16), after + i * 1000)).toBe(false);
        expect(touches.count).toBe(looked);
        // One an older instance made meanwhile is found at the next look.
        const late = hex(16);
        await db
          .insertInto('game_tokens')
          .values(row(late, after + 60 * MINUTE))
          .execute();
        expect(await keys.mayBeLive('yggdrasil', late, after + 5 * MINUTE)).toBe(false);
        expect(await keys.mayBeLive('yggdrasil', late, after + 11 * MINUTE)).toBe(true);
      } finally {
        touches.restore();
      }
    } finally {
      await before.close();
    }
  });
});
