import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createPgDatabase } from '../test/test-app.ts';
import { openDatabase } from './index.ts';
import { migrateToLatest } from './migrate.ts';
import { migrations } from './migrations/index.ts';

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
