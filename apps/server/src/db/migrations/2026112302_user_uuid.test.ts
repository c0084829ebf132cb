import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator, sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createPgDatabase, createTestApp, dbKinds, loginAs, seedUser } from '../../test/test-app.ts';
import { offlineUuid } from '../../base/offline-uuid.ts';
import { openDatabase } from '../index.ts';
import { migrations } from './index.ts';

describe.each(dbKinds)('game profile UUIDs on %s', (kind) => {
  it('the migration gives existing accounts their offline UUID, unique', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kubik-uuid-'));
    const pgDb = kind === 'pg' ? await createPgDatabase() : null;
    const handle = openDatabase({ databaseUrl: pgDb?.url, sqlitePath: path.join(dir, 'db.sqlite') });
    try {
      // The database as it was before this migration, with players in it.
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const db = handle.db as unknown as Kysely<any>;
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      const before = await migrator.migrateTo('2026112301_settings');
      expect(before.error).toBeUndefined();
      const now = Date.now();
      const names = ['Notch', 'jeb_', ...Array.from({ length: 1200 }, (_, i) => `Player_${i}`)];
      for (let i = 0; i < names.length; i += 400) {
        await db
          .insertInto('users')
          .values(
            names.slice(i, i + 400).map((n) => ({
              username: n,
              username_lower: n.toLowerCase(),
              email: `${n.toLowerCase()}@x.ru`,
              email_lower: `${n.toLowerCase()}@x.ru`,
              password_hash: 'x',
              is_admin: 0,
              balance: 0,
              created_at: now,
            })),
          )
          .execute();
      }
      const after = await migrator.migrateToLatest();
      expect(after.error).toBeUndefined();
      const rows = await handle.db.selectFrom('users').select(['username', 'uuid']).execute();
      expect(rows).toHaveLength(names.length);
      for (const r of rows) expect(r.uuid).toBe(offlineUuid(r.username));
      expect(rows.find((r) => r.username === 'Notch')?.uuid).toBe('b50ad385-829d-3141-a216-7e7d7539ba7f');
      // Unique: a second account cannot hold the same profile.
      await expect(
        db
          .insertInto('users')
          .values({
            username: 'Other',
            username_lower: 'other',
            email: 'o@x.ru',
            email_lower: 'o@x.ru',
            password_hash: 'x',
            is_admin: 0,
            balance: 0,
            created_at: now,
            uuid: offlineUuid('Notch'),
          })
          .execute(),
      ).rejects.toThrow();
      if (kind === 'pg') {
        await expect(
          sql`insert into users (username, username_lower, email, email_lower, password_hash, created_at) values ('N', 'n', 'n@x.ru', 'n@x.ru', 'x', 1)`.execute(
            db,
          ),
        ).rejects.toThrow(/null/);
      }
    } finally {
      await handle.close();
      await pgDb?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('registration, admin-created and seeded accounts get one; a rename keeps it; a taken one gives a random UUID', async () => {
    const t = await createTestApp(kind, { workers: false, rateLimits: { enabled: false } });
    try {
      const uuidOf = async (username: string) =>
        (await t.handle.db.selectFrom('users').select('uuid').where('username', '=', username).executeTakeFirstOrThrow()).uuid;
      const adminId = await seedUser(t, 'Notch', { admin: true });
      expect(await uuidOf('Notch')).toBe('b50ad385-829d-3141-a216-7e7d7539ba7f');
      expect(
        (
          await t.app.inject({
            method: 'POST',
            url: '/api/user/register',
            payload: { username: 'jeb_', email: 'jeb@example.com', password: 'kubik-pass-42' },
          })
        ).statusCode,
      ).toBe(201);
      expect(await uuidOf('jeb_')).toBe('a762f560-4fce-3236-812a-b80efff0b62b');
      const admin = await loginAs(t, 'Notch');
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/user/register',
        headers: { authorization: `Bearer ${admin}` },
        payload: { username: 'Steve', email: 'steve@example.com', password: 'kubik-pass-42' },
      });
      expect(created.statusCode).toBe(201);
      expect(await uuidOf('Steve')).toBe('5627dd98-e6be-3c21-b8a8-e92344183641');

      // Renamed: the profile stays (immutable); a newcomer taking the old name gets a UUID of their own.
      const renamed = await t.app.inject({
        method: 'PUT',
        url: `/api/user/${adminId}`,
        headers: { authorization: `Bearer ${admin}` },
        payload: { username: 'Notch_Old' },
      });
      expect(renamed.statusCode).toBe(200);
      expect(await uuidOf('Notch_Old')).toBe('b50ad385-829d-3141-a216-7e7d7539ba7f');
      expect(
        (
          await t.app.inject({
            method: 'POST',
            url: '/api/user/register',
            payload: { username: 'Notch', email: 'notch2@example.com', password: 'kubik-pass-42' },
          })
        ).statusCode,
      ).toBe(201);
      const fresh = await uuidOf('Notch');
      expect(fresh).not.toBe('b50ad385-829d-3141-a216-7e7d7539ba7f');
      expect(fresh).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    } finally {
      await t.close();
    }
  });
});
