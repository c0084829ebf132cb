import { describe, expect, it } from 'vitest';
import { databaseBefore } from '../../test/database.ts';
import { dbKinds } from '../../test/test-app.ts';
import { assertNotBanned } from '../users/ban-status.ts';

const MIGRATION = '2026120640_ban_public_reason';
const SECRET = 'SECRET internal reason: chargeback fraud';

describe.each(dbKinds)('splitting ban reasons into a public reason and an internal note on %s', (kind) => {
  it('keeps every reason given so far as the note, leaves the public reason empty, and the site stops showing it', async () => {
    const before = await databaseBefore(kind, MIGRATION, { workers: false });
    try {
      const { db } = before;
      const now = Date.now();
      const users: Record<string, number> = {};
      for (const name of ['Banned', 'Forgiven']) users[name] = await before.addUser(name);
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

      await before.migrateRest();

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
      const app = await before.start();
      const profile = await app.inject({ method: 'GET', url: '/api/user/Banned/profile' });
      expect(profile.statusCode, profile.body).toBe(200);
      expect(profile.json().ban).toMatchObject({ reason: '', until: null, text: 'Аккаунт заблокирован навсегда' });
      for (const res of [profile, await app.inject({ method: 'GET', url: '/api/players/Banned' })])
        expect(res.body).not.toContain('SECRET');
      // Every login (the site, Yggdrasil, GravitLauncher) refuses with this text from the user's row.
      const row = await before.handle.db.selectFrom('users').selectAll().where('id', '=', users.Banned!).executeTakeFirstOrThrow();
      expect(() => assertNotBanned(row)).toThrow(/^Аккаунт заблокирован навсегда$/);
    } finally {
      await before.close();
    }
  });
});
