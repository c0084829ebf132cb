import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteAdapter, SqliteDialect, type Dialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import type pg from 'pg';
import { backoffMs, type Backoff } from '../base/backoff.ts';
import { ensurePrivateDir, makePrivate } from '../base/private-files.ts';
import type { Database } from './types.ts';
import { WriteWatch, type WriteKind } from './write-watch.ts';

export type DbKind = 'sqlite' | 'pg';
export type Db = Kysely<Database>;

// Each driver loads only when a database of its kind is opened: a SQLite site never holds pg's
// ~15 MB, a PostgreSQL one never better-sqlite3's (the resident-memory goal, docs/bench.md).
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
/**
 * better-sqlite3: 13 (Node-API, its binaries in the package) on Node 22 and later, 12 on Node 20,
 * which 13 does not run on. 12 wraps its objects in node::ObjectWrap, whose destructor aborts the
 * process on Node 24.19 and later when a statement is garbage-collected (nodejs/node#65446):
 * migrations died halfway and the site fell over at random.
 */
const SQLITE_PACKAGE = Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';
let sqliteModule: typeof SQLite | undefined;
export function loadSqlite(): typeof SQLite {
  return (sqliteModule ??= require(SQLITE_PACKAGE) as typeof SQLite);
}

export function isPostgresUrl(url: string | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//.test(url);
}

export interface DbHandle {
  db: Db;
  kind: DbKind;
  /** Calls back on every write made through `db` (and anything derived from it), with its table. */
  onWrite: (listener: (table: string, kind: WriteKind) => void) => () => void;
  close: () => Promise<void>;
  /** How the connections to PostgreSQL fare (always up for SQLite); /metrics and the logs read it. */
  health: DbHealth;
}

/** Error codes and texts of a database that cannot be reached (as opposed to a query it refused). */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'SQLITE_BUSY',
  // PostgreSQL: connection exceptions (class 08), shutting down / starting up (57P01–57P03), too many connections.
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);
const CONNECTION_TEXTS =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly)/;

/** Connections each instance keeps to PostgreSQL at most. */
const POOL_MAX = 10;

/** Thrown without trying while the database was just found unreachable (see PgGate). */
export class DatabaseUnavailableError extends Error {}

/** True when err (or its cause) says the database cannot be reached right now: worth a retry, not a bug. */
export function isConnectionError(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof DatabaseUnavailableError) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && CONNECTION_TEXTS.test(message)) return true;
  }
  return false;
}

/**
 * After a failed connection, the next one is tried only after a short wait (250 ms doubling to
 * 1 s); meanwhile queries fail at once with DatabaseUnavailableError (503) instead of each
 * waiting on a connection of its own. The cap keeps a recovered database in use within a second.
 */
const RECONNECT: Backoff = { baseMs: 250, capMs: 1000 };

export interface DbHealthLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** The PostgreSQL pool's state: errors of its connections, failed connects in a row, and whether it is up. */
export class DbHealth {
  /** Connection errors so far: a connect that failed, or an open connection that broke. */
  errors = 0;
  /** Connections opened again after an outage. */
  reconnects = 0;
  failures = 0;
  retryAt = 0;
  /** Why the last connect failed (the message of a query refused meanwhile). */
  lastError = '';
  /** The site's logger once the app is built (app.ts); quiet before (a start says it in one line of its own). */
  log: DbHealthLog = { warn: () => {}, info: () => {} };

  get up(): boolean {
    return this.failures === 0;
  }

  connectFailed(err: unknown): void {
    this.errors += 1;
    this.failures += 1;
    this.lastError = err instanceof Error ? err.message || String((err as { code?: unknown }).code ?? '') : String(err);
    this.retryAt = Date.now() + backoffMs(this.failures, RECONNECT);
    if (this.failures === 1) this.log.warn({ err }, 'PostgreSQL unreachable: answering 503 and retrying');
  }

  connected(): void {
    if (this.failures > 0) {
      this.reconnects += 1;
      this.log.info({ after: this.failures }, 'PostgreSQL reachable again');
    }
    this.failures = 0;
  }

  /** An open connection broke (a restart, a cut network): counted; the pool drops it and opens another on demand. */
  connectionLost(err: Error): void {
    this.errors += 1;
    this.log.warn({ err }, 'PostgreSQL connection lost');
  }
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

/**
 * SQLite runs DDL inside transactions, but Kysely's adapter says it does not, so its migrator ran
 * each migration's statements and its record apart: a process killed in between (a crash, a power
 * cut, a deploy) left tables no later start could create again. Said so, every run of pending
 * migrations is one transaction, as on PostgreSQL.
 */
class SqliteDdlAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}
class SqliteDialectWithDdlTransactions extends SqliteDialect {
  override createAdapter(): SqliteAdapter {
    return new SqliteDdlAdapter();
  }
}

export function openDatabase(opts: { databaseUrl?: string | undefined; sqlitePath: string }): DbHandle {
  let dialect: Dialect;
  let kind: DbKind;
  const health = new DbHealth();
  if (isPostgresUrl(opts.databaseUrl)) {
    kind = 'pg';
    // A connection that cannot be made in 5 s fails (503) rather than holding its request forever.
    const pool = new (loadPg().Pool)({ connectionString: opts.databaseUrl, max: POOL_MAX, connectionTimeoutMillis: 5000, keepAlive: true });
    // Every connection has an 'error' listener for its whole life, idle or checked out: a
    // connection dropped by the server (restart, failover, a cut network) while a query holds it
    // must not crash the process (pg's pool listens only while a connection is idle).
    pool.on('connect', (client) => client.on('error', (err) => health.connectionLost(err)));
    pool.on('error', () => {}); // the same error, already counted by the listener above
    dialect = new PostgresDialect({
      pool: {
        async connect() {
          if (health.failures > 0 && Date.now() < health.retryAt)
            throw new DatabaseUnavailableError(health.lastError || 'PostgreSQL unreachable');
          // Every connection busy: this request waits its turn in the pool's queue. If the wait runs
          // out, pg says "timeout exceeded when trying to connect" as it does for a database that
          // does not answer, but the database is up and busy (a rush on one item): the request
          // waits one more turn, then gets its 503, and the others are not failed at once as they
          // are while the database is unreachable.
          for (let turn = 1; ; turn++) {
            const queued = pool.totalCount >= POOL_MAX && pool.idleCount === 0;
            try {
              const client = await pool.connect();
              health.connected();
              return client;
            } catch (err) {
              if (queued && turn < 2) continue;
              if (!queued) health.connectFailed(err);
              throw err;
            }
          }
        },
        end: () => pool.end(),
      },
    });
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
    dialect = new SqliteDialectWithDdlTransactions({ database: withStatementCache(sqlite) });
  }
  const watch = new WriteWatch();
  const db = new Kysely<Database>({ dialect, plugins: [watch] });
  return { db, kind, onWrite: (listener) => watch.on(listener), close: () => db.destroy(), health };
}
