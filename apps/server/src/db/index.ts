import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type Dialect } from 'kysely';
import pg from 'pg';
import type { Database } from './types.ts';

export type DbKind = 'sqlite' | 'pg';
export type Db = Kysely<Database>;

// int8 (counts, kopecks, epoch ms) as numbers: every value we store fits in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export function isPostgresUrl(url: string | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//.test(url);
}

export interface DbHandle {
  db: Db;
  kind: DbKind;
  close: () => Promise<void>;
}

export function openDatabase(opts: { databaseUrl?: string | undefined; sqlitePath: string }): DbHandle {
  let dialect: Dialect;
  let kind: DbKind;
  if (isPostgresUrl(opts.databaseUrl)) {
    kind = 'pg';
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle connection dropped by the server (restart, failover) must not crash the process;
    // the pool replaces it on the next query.
    pool.on('error', (err) => console.warn(`PostgreSQL connection lost: ${err.message}`));
    dialect = new PostgresDialect({ pool });
  } else {
    kind = 'sqlite';
    fs.mkdirSync(path.dirname(opts.sqlitePath), { recursive: true });
    const sqlite = new SQLite(opts.sqlitePath);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('synchronous = NORMAL');
    dialect = new SqliteDialect({ database: sqlite });
  }
  const db = new Kysely<Database>({ dialect });
  return { db, kind, close: () => db.destroy() };
}
