import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator, type Kysely } from 'kysely';
import { expect, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import { loadConfig, type Config } from '../config.ts';
import { openDatabase, type Db, type DbHandle } from '../db/index.ts';
import { migrations } from '../db/migrations/index.ts';
import { createPgDatabase, type TestDbKind } from './test-app.ts';

/**
 * Counts every way into the database taken by code whose file path matches `from` (read off the
 * stack), so a test can show a refusal asked nothing while the mail and jobs workers go on.
 */
export function countTouches(db: Db, from: RegExp): { readonly count: number; restore(): void } {
  let count = 0;
  const spies = (['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'transaction', 'executeQuery'] as const).map((m) => {
    const original = (db[m] as (...args: unknown[]) => unknown).bind(db);
    return vi.spyOn(db, m).mockImplementation(((...args: unknown[]) => {
      if (from.test(new Error().stack ?? '')) count++;
      return original(...args);
    }) as never);
  });
  return {
    get count() {
      return count;
    },
    restore: () => spies.forEach((s) => s.mockRestore()),
  };
}

/**
 * A fresh database migrated up to just before `migration`, to fill as an older version left it
 * (addUser: a confirmed account); migrateRest() then runs that migration and the later ones, and
 * start() the site on it (`workers: false`: without its background workers). close() stops and
 * removes it all.
 */
export async function databaseBefore(
  kind: TestDbKind,
  migration: string,
  { workers = true }: { workers?: boolean } = {},
): Promise<{
  config: Readonly<Config>;
  handle: DbHandle;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  addUser(name: string): Promise<number>;
  migrateRest(): Promise<void>;
  start(): Promise<FastifyInstance>;
  close(): Promise<void>;
}> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kubik-before-'));
  const pgDb = kind === 'pg' ? await createPgDatabase() : null;
  const config = loadConfig(
    {},
    {
      dataDir: dir,
      sqlitePath: path.join(dir, 'db.sqlite'),
      databaseUrl: pgDb?.url,
      logLevel: 'silent',
      workers,
      publicUrl: 'http://kubik.test',
    },
  );
  const handle = openDatabase(config);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const db = handle.db as unknown as Kysely<any>;
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const names = Object.keys(migrations).sort();
  expect(names).toContain(migration);
  expect((await migrator.migrateTo(names[names.indexOf(migration) - 1]!)).error).toBeUndefined();
  let app: FastifyInstance | undefined;
  let users = 0;
  return {
    config,
    handle,
    db,
    async addUser(name) {
      const now = Date.now();
      const email = `${name.toLowerCase()}@example.com`;
      const uuid = `00000000-0000-3000-8000-${String(++users).padStart(12, '0')}`;
      const row = await db
        .insertInto('users')
        .values({
          username: name,
          username_lower: name.toLowerCase(),
          email,
          email_lower: email,
          password_hash: 'x',
          is_admin: 0,
          balance: 0,
          created_at: now,
          email_verified_at: now,
          uuid,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id as number;
    },
    async migrateRest() {
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
    },
    async start() {
      app = await buildApp(config, { database: handle });
      await app.ready();
      return app;
    },
    async close() {
      await app?.close();
      await handle.close();
      await pgDb?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
