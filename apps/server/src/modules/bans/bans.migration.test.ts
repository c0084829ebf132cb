import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import { openDatabase } from '../../db/index.ts';
import { migrations } from '../../db/migrations/index.ts';
import { offlineUuid } from '../../lib/offline-uuid.ts';
import { createPgDatabase, dbKinds } from '../../test/test-app.ts';
import { assertNotBanned } from '../users/ban-status.ts';

const MIGRATION = '2026120640_ban_public_reason';
const SECRET = 'SECRET internal reason: chargeback fraud';

describe.each(dbKinds)('splitting ban reasons into a public reason and an internal note on %s', (kind) => {
  it('keeps every reason given so far as the note, leaves the public reason empty, and the site stops showing it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kubik-ban-reasons-'));
    const pgDb = kind === 'pg' ? await createPgDatabase() : null;
    const config = loadConfig(
      {},
      {
        dataDir: dir,
        sqlitePath: path.join(dir, 'db.sqlite'),
        databaseUrl: pgDb?.url,
        logLevel: 'silent',
        workers: false,
        publicUrl: 'http://kubik.test',
      },
    );
    const handle = openDatabase(config);
    try {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the schema as it was before
      const db = handle.db as unknown as Kysely<any>;
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, allowUnorderedMigrations: true });
      const before = Object.keys(migrations)
        .sort()
        .filter((n) => n < MIGRATION)
        .at(-1)!;
      expect((await migrator.migrateTo(before)).error).toBeUndefined();

      const now = Date.now();
      const users: Record<string, number> = {};
      for (const name of ['Banned', 'Forgiven']) {
        const row = await db
          .insertInto('users')
          .values({
            username: name,
            username_lower: name.toLowerCase(),
            email: `${name.toLowerCase()}@x.ru`,
            email_lower: `${name.toLowerCase()}@x.ru`,
            password_hash: 'x',
            is_admin: 0,
            balance: 0,
            created_at: now,
            email_verified_at: now,
            uuid: offlineUuid(name),
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        users[name] = row.id;
      }
      // A ban in force (on the user's row too) and one lifted long ago, as the old code wrote them.
      await db
        .insertInto('bans')
        .values({ user_id: users.Banned, reason: SECRET, until: null, created_at: now - 1000, created_by: null })
        .execute();
      await db
        .updateTable('users')
        .set({ banned_at: now - 1000, ban_until: null, ban_reason: SECRET })
        .where('id', '=', users.Banned)
        .execute();
      await db
        .insertInto('bans')
        .values({
          user_id: users.Forgiven,
          reason: 'Флуд',
          until: now - 5000,
          created_at: now - 9000,
          created_by: null,
          lifted_at: now - 5000,
          lift_reason: 'expired',
        })
        .execute();

      expect((await migrator.migrateToLatest()).error).toBeUndefined();

      const bans = await db.selectFrom('bans').select(['user_id', 'reason', 'note']).orderBy('id').execute();
      expect(bans).toEqual([
        { user_id: users.Banned, reason: '', note: SECRET },
        { user_id: users.Forgiven, reason: '', note: 'Флуд' },
      ]);
      expect(await db.selectFrom('users').select(['username', 'ban_reason']).orderBy('id').execute()).toEqual([
        { username: 'Banned', ban_reason: null },
        { username: 'Forgiven', ban_reason: null },
      ]);

      // The ban still holds; the player and the public get the term without the old text.
      const app = await buildApp(config, { database: handle });
      try {
        const profile = await app.inject({ method: 'GET', url: '/api/user/Banned/profile' });
        expect(profile.statusCode, profile.body).toBe(200);
        expect(profile.json().ban).toMatchObject({ reason: '', until: null, text: 'Аккаунт заблокирован навсегда' });
        for (const res of [profile, await app.inject({ method: 'GET', url: '/api/players/Banned' })])
          expect(res.body).not.toContain('SECRET');
        // Every login (the site, Yggdrasil, GravitLauncher) refuses with this text from the user's row.
        const row = await handle.db.selectFrom('users').selectAll().where('id', '=', users.Banned!).executeTakeFirstOrThrow();
        expect(() => assertNotBanned(row)).toThrow(/^Аккаунт заблокирован навсегда$/);
      } finally {
        await app.close();
      }
    } finally {
      await handle.close();
      await pgDb?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
