import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createPgDatabase, dbKinds } from '../test/test-app.ts';
import { openDatabase } from './index.ts';
import { migrateToLatest, pendingMigrations, runMigrations } from './migrate.ts';
import { migrations } from './migrations/index.ts';
import { bansMigrations } from '../modules/bans/bans.migrations.ts';

describe.runIf(process.env.TEST_DATABASE_URL)('migrations on PostgreSQL', () => {
  it('are safe when several instances start at once', async () => {
    const pgDb = await createPgDatabase();
    const handles = [0, 1, 2].map(() => openDatabase({ databaseUrl: pgDb.url, sqlitePath: '' }));
    try {
      await Promise.all(handles.map((h) => migrateToLatest(h)));
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from kysely_migration`.execute(handles[0]!.db);
      expect(rows[0]!.n).toBe(Object.keys(migrations).length);
    } finally {
      await Promise.all(handles.map((h) => h.close()));
      await pgDb.drop();
    }
  });
});

describe.each(dbKinds)('migrations landed out of name order on %s', (kind) => {
  it('a database migrated without a migration that has an earlier name takes it on the next start', async () => {
    const pgDb = kind === 'pg' ? await createPgDatabase() : null;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kubik-migrate-'));
    const handle = openDatabase({ databaseUrl: pgDb?.url, sqlitePath: path.join(dir, 'kubik.sqlite') });
    try {
      // As a site updated while a feature's migrations (bans: …2430_ and its own later ones) had not
      // landed yet but later-named ones of other features had.
      const late = Object.keys(bansMigrations);
      expect(late).toContain('2026112430_bans');
      const without = Object.fromEntries(Object.entries(migrations).filter(([name]) => !late.includes(name)));
      await runMigrations(handle.db, without);
      await migrateToLatest(handle);
      const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(handle.db);
      expect(rows.map((r) => r.name).sort()).toEqual(Object.keys(migrations).sort());
    } finally {
      await handle.close();
      await pgDb?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.each(dbKinds)('a run of migrations interrupted on %s', (kind) => {
  it('leaves nothing half done: the next start applies every migration again', async () => {
    const pgDb = kind === 'pg' ? await createPgDatabase() : null;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kubik-migrate-'));
    const handle = openDatabase({ databaseUrl: pgDb?.url, sqlitePath: path.join(dir, 'kubik.sqlite') });
    const tables = async () =>
      (await handle.db.introspection.getTables()).map((t) => t.name).filter((name) => name.startsWith('interrupted_'));
    try {
      // The second migration's table is created, then the process is "killed" before its record is written.
      const list = (failing: boolean) => ({
        '2099010100_interrupted_a': {
          up: (db: Kysely<unknown>) => db.schema.createTable('interrupted_a').addColumn('id', 'integer').execute(),
        },
        '2099010101_interrupted_b': {
          up: async (db: Kysely<unknown>) => {
            await db.schema.createTable('interrupted_b').addColumn('id', 'integer').execute();
            if (failing) throw new Error('killed');
          },
        },
      });
      await expect(runMigrations(handle.db, list(true))).rejects.toThrow(/interrupted_b failed/);
      expect(await tables()).toEqual([]);
      await runMigrations(handle.db, list(false));
      expect((await tables()).sort()).toEqual(['interrupted_a', 'interrupted_b']);
    } finally {
      await handle.close();
      await pgDb?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.each(dbKinds)('the check that finds nothing to do on %s', (kind) => {
  it('lists what is pending as the migrator does, and leaves a database it does not know to the migrator', async () => {
    const pgDb = kind === 'pg' ? await createPgDatabase() : null;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kubik-migrate-'));
    const handle = openDatabase({ databaseUrl: pgDb?.url, sqlitePath: path.join(dir, 'kubik.sqlite') });
    try {
      // Before the first migration: no table, all pending, in name order.
      expect(await pendingMigrations(handle.db)).toEqual(Object.keys(migrations).sort());
      const late = Object.keys(bansMigrations);
      await runMigrations(handle.db, Object.fromEntries(Object.entries(migrations).filter(([name]) => !late.includes(name))));
      expect(await pendingMigrations(handle.db)).toEqual([...late].sort());
      await migrateToLatest(handle);
      expect(await pendingMigrations(handle.db)).toEqual([]);
      // Up to date: a second start finds nothing to do and changes nothing.
      await migrateToLatest(handle);
      const count = async () =>
        Number((await sql<{ n: number }>`select count(*) as n from kysely_migration`.execute(handle.db)).rows[0]!.n);
      expect(await count()).toBe(Object.keys(migrations).length);
      // A database that ran a migration this build does not know (a newer build's): the migrator
      // refuses it, as before the shortcut.
      await sql`insert into kysely_migration (name, timestamp) values ('2099123199_from_the_future', '2099-12-31T00:00:00.000Z')`.execute(
        handle.db,
      );
      await expect(migrateToLatest(handle)).rejects.toThrow(/2099123199_from_the_future/);
    } finally {
      await handle.close();
      await pgDb?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
