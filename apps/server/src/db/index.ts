import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type Dialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import type pg from 'pg';
import { ensurePrivateDir, makePrivate } from '../lib/private-files.ts';
import type { Database } from './types.ts';
import { WriteWatch } from './write-watch.ts';

export type DbKind = 'sqlite' | 'pg';
export type Db = Kysely<Database>;

// Each driver loads only when a database of its kind is opened: a SQLite site never holds pg's
// ~15 MB, a PostgreSQL one never better-sqlite3's (the resident-memory goal of issue 17).
const require = createRequire(import.meta.url);
let pgModule: typeof pg | undefined;
/** The pg module, set up the way every connection of ours expects. */
export function loadPg(): typeof pg {
  if (!pgModule) {
    pgModule = require('pg') as typeof pg;
    // int8 (counts, kopecks, epoch ms) as numbers: every value we store fits in 2^53.
    pgModule.types.setTypeParser(20, (v) => Number(v));
  }
  return pgModule;
}
const loadSqlite = () => require('better-sqlite3') as typeof SQLite;

export function isPostgresUrl(url: string | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//.test(url);
}

export interface DbHandle {
  db: Db;
  kind: DbKind;
  /** Calls back on every write made through `db` (and anything derived from it), with its table. */
  onWrite: (listener: (table: string) => void) => () => void;
  close: () => Promise<void>;
}

/**
 * Kysely's SQLite driver prepares every statement anew, and preparing costs more than running a
 * point query. better-sqlite3 statements are reusable (and re-prepare themselves after a schema
 * change), so the most recent distinct SQL texts keep theirs. Nothing here streams (`iterate`),
 * which is the one use that could find a shared statement busy.
 */
function withStatementCache(sqlite: SQLite.Database, max = 256): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string): SqliteStatement {
      let statement = cache.get(sql);
      if (statement) {
        cache.delete(sql); // re-inserted below: Map order is the LRU order
      } else {
        statement = sqlite.prepare(sql) as unknown as SqliteStatement;
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, statement);
      return statement;
    },
  };
}

export function openDatabase(opts: { databaseUrl?: string | undefined; sqlitePath: string }): DbHandle {
  let dialect: Dialect;
  let kind: DbKind;
  if (isPostgresUrl(opts.databaseUrl)) {
    kind = 'pg';
    const pool = new (loadPg().Pool)({ connectionString: opts.databaseUrl, max: 10 });
    // An idle connection dropped by the server (restart, failover) must not crash the process;
    // the pool replaces it on the next query.
    pool.on('error', (err) => console.warn(`PostgreSQL connection lost: ${err.message}`));
    dialect = new PostgresDialect({ pool });
  } else {
    kind = 'sqlite';
    ensurePrivateDir(path.dirname(opts.sqlitePath));
    // Created 0600 before SQLite opens it; SQLite gives the -wal and -shm files the database file's mode.
    if (!fs.existsSync(opts.sqlitePath)) fs.closeSync(fs.openSync(opts.sqlitePath, 'a', 0o600));
    makePrivate(opts.sqlitePath);
    const sqlite = new (loadSqlite())(opts.sqlitePath);
    sqlite.pragma('journal_mode = WAL');
    for (const suffix of ['-wal', '-shm']) makePrivate(opts.sqlitePath + suffix);
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('synchronous = NORMAL');
    dialect = new SqliteDialect({ database: withStatementCache(sqlite) });
  }
  const watch = new WriteWatch();
  const db = new Kysely<Database>({ dialect, plugins: [watch] });
  return { db, kind, onWrite: (listener) => watch.on(listener), close: () => db.destroy() };
}
