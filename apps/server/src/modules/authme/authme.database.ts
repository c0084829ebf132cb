import { createRequire } from 'node:module';
import type { Database as SqliteDb } from 'better-sqlite3';
import type * as mysql2 from 'mysql2/promise';
import type { Pool as MysqlPool } from 'mysql2/promise';
import type pg from 'pg';
import { loadPg, loadSqlite } from '../../db/index.ts';
import type { AuthMeConfig, BackendKind } from './authme.settings.ts';

/**
 * AuthMe's table in AuthMe's own database: MySQL or MariaDB (mysql2), PostgreSQL (pg) or an
 * AuthMe SQLite file (better-sqlite3). The SQL is AuthMe's: names unquoted (the settings allow
 * only letters, digits and «_», so PostgreSQL folds them as AuthMe's queries do), the name looked
 * up in lower case. Every query has a deadline; a database that cannot be reached is left alone
 * for a while after a failure, so logins do not each wait for it. Every failure becomes an
 * AuthMeError with a Russian text that never holds the address or its password.
 */

const require = createRequire(import.meta.url);

/** A query on a request's path waits at most this long. */
export const QUERY_DEADLINE_MS = 2000;
/** After AuthMe's database was found unreachable, it is not asked again for this long. */
export const PAUSE_AFTER_FAILURE_MS = 15_000;
/** How long an AuthMe SQLite file may be locked by the game server before a query gives up (it blocks the site meanwhile). */
const SQLITE_BUSY_MS = 250;

export type FailureKind = 'unreachable' | 'login' | 'database' | 'table' | 'column' | 'denied' | 'duplicate' | 'other';

export class AuthMeError extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly column?: string,
  ) {
    super(message);
  }
}

/** A row of AuthMe's table, as the driver gave it (text, bytes or null; a broken row may hold anything). */
export interface AuthMeRow {
  name: string;
  realname: unknown;
  password: unknown;
  salt: unknown;
  email: unknown;
}

export interface NewAuthMeRow {
  name: string;
  realname: string;
  password: string;
  salt: string | null;
  email: string | null;
  regdate: number;
  regip: string | null;
}

interface Driver {
  /** Rows of a select (placeholders `?`). */
  query(sql: string, params: unknown[], deadlineMs: number): Promise<Record<string, unknown>[]>;
  /** Rows changed by a write. */
  run(sql: string, params: unknown[], deadlineMs: number): Promise<number>;
  close(): Promise<void>;
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('deadline'), { code: 'KUBIK_DEADLINE' })), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

function mysqlDriver(url: string): Driver {
  const mysql = require('mysql2/promise') as typeof mysql2;
  const pool: MysqlPool = mysql.createPool({
    uri: url.replace(/^mariadb:/i, 'mysql:'),
    connectionLimit: 4,
    maxIdle: 2,
    idleTimeout: 60_000,
    connectTimeout: QUERY_DEADLINE_MS,
    waitForConnections: true,
    queueLimit: 200,
    enableKeepAlive: true,
    charset: 'utf8mb4',
    supportBigNumbers: true,
    dateStrings: true,
  });
  // An idle connection the server closed is dropped by the pool; nothing to crash on.
  pool.on('connection', (conn) => conn.on('error', () => {}));
  return {
    async query(sql, params, deadlineMs) {
      const [rows] = await withDeadline(pool.query({ sql, values: params, timeout: deadlineMs }), deadlineMs + 100);
      return rows as Record<string, unknown>[];
    },
    async run(sql, params, deadlineMs) {
      const [res] = await withDeadline(pool.query({ sql, values: params, timeout: deadlineMs }), deadlineMs + 100);
      return Number((res as { affectedRows?: number }).affectedRows ?? 0);
    },
    close: () => pool.end().catch(() => {}),
  };
}

/** `?` placeholders to PostgreSQL's `$1, $2…` (the SQL here holds no `?` of its own). */
function numbered(sql: string): string {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
}

function postgresDriver(url: string): Driver {
  const pgModule = loadPg();
  const pool: pg.Pool = new pgModule.Pool({
    connectionString: url,
    max: 4,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: QUERY_DEADLINE_MS,
    query_timeout: QUERY_DEADLINE_MS,
    statement_timeout: QUERY_DEADLINE_MS,
    application_name: 'kubik-authme',
  });
  // A broken idle connection is dropped by the pool; an unhandled 'error' would end the process.
  pool.on('error', () => {});
  return {
    async query(sql, params, deadlineMs) {
      const res = await withDeadline(pool.query(numbered(sql), params), deadlineMs + 100);
      return res.rows as Record<string, unknown>[];
    },
    async run(sql, params, deadlineMs) {
      const res = await withDeadline(pool.query(numbered(sql), params), deadlineMs + 100);
      return res.rowCount ?? 0;
    },
    close: () => pool.end().catch(() => {}),
  };
}

export function sqlitePath(url: string): string {
  const rest = url.replace(/^sqlite:/i, '');
  return rest.startsWith('//') ? rest.slice(2) : rest;
}

function sqliteDriver(url: string): Driver {
  let db: SqliteDb | null = null;
  const open = (): SqliteDb => {
    if (db) return db;
    const Sqlite = loadSqlite();
    // fileMustExist: a mistyped path must not make an empty database AuthMe never reads.
    db = new Sqlite(sqlitePath(url), { fileMustExist: true, timeout: SQLITE_BUSY_MS });
    return db;
  };
  const values = (params: unknown[]) => params.map((p) => (typeof p === 'boolean' ? Number(p) : p));
  return {
    async query(sql, params) {
      return open()
        .prepare(sql)
        .all(...values(params)) as Record<string, unknown>[];
    },
    async run(sql, params) {
      return open()
        .prepare(sql)
        .run(...values(params)).changes;
    },
    async close() {
      db?.close();
      db = null;
    },
  };
}

const code = (err: unknown): string => String((err as { code?: unknown })?.code ?? '');
const errno = (err: unknown): number => Number((err as { errno?: unknown })?.errno ?? 0);
const messageOf = (err: unknown): string => String((err as { message?: unknown })?.message ?? err);

/** What went wrong, in words an owner can act on; never the address (it holds the password). */
export function describeFailure(err: unknown, cfg: Pick<AuthMeConfig, 'kind' | 'table' | 'url'>): AuthMeError {
  if (err instanceof AuthMeError) return err;
  const c = code(err);
  const m = messageOf(err);
  const where = hostOf(cfg);
  const dbName = databaseOf(cfg);
  if (c === 'KUBIK_DEADLINE' || c === 'ETIMEDOUT' || c === 'PROTOCOL_SEQUENCE_TIMEOUT' || /timeout exceeded|Query read timeout/i.test(m))
    return new AuthMeError('unreachable', `База данных AuthMe не ответила за ${QUERY_DEADLINE_MS / 1000} с (${where})`);
  if (c === 'ECONNREFUSED')
    return new AuthMeError(
      'unreachable',
      `Соединение отклонено: по адресу ${where} не отвечает сервер базы данных (не запущен или слушает другой порт)`,
    );
  if (c === 'ENOTFOUND' || c === 'EAI_AGAIN') return new AuthMeError('unreachable', `Хост базы данных не найден: ${where}`);
  if (c === 'EHOSTUNREACH' || c === 'ENETUNREACH') return new AuthMeError('unreachable', `Хост базы данных недоступен: ${where}`);
  if (c === 'ECONNRESET' || c === 'EPIPE' || c === 'PROTOCOL_CONNECTION_LOST' || /Connection terminated|connection error/i.test(m))
    return new AuthMeError('unreachable', `Соединение с базой данных AuthMe оборвалось (${where})`);
  if (c === 'ER_ACCESS_DENIED_ERROR' || errno(err) === 1045 || c === '28P01')
    return new AuthMeError('login', 'База данных AuthMe не приняла имя пользователя или пароль из адреса');
  if (c === '28000')
    return new AuthMeError('login', 'Сервер PostgreSQL не пускает этого пользователя (нет такой роли или запрещено в pg_hba.conf)');
  if (c === 'ER_BAD_DB_ERROR' || errno(err) === 1049 || c === '3D000')
    return new AuthMeError('database', `Базы данных «${dbName}» на сервере нет`);
  if (c === 'ER_DBACCESS_DENIED_ERROR' || errno(err) === 1044)
    return new AuthMeError('database', `Пользователю из адреса не разрешён доступ к базе «${dbName}»`);
  if (c === 'SQLITE_CANTOPEN' || (cfg.kind === 'sqlite' && /unable to open|does not exist|directory does not exist/i.test(m)))
    return new AuthMeError('database', `Файл ${sqlitePath(cfg.url)} не найден или его нельзя открыть`);
  if (c === 'SQLITE_NOTADB') return new AuthMeError('database', `Файл ${sqlitePath(cfg.url)} — не база SQLite`);
  if (c === 'ER_NO_SUCH_TABLE' || c === '42P01' || /no such table/i.test(m))
    return new AuthMeError('table', `Таблицы «${cfg.table}» нет: AuthMe создаёт её при первом запуске (DataSource.mySQLTablename)`);
  if (c === 'ER_BAD_FIELD_ERROR' || c === '42703' || /no such column/i.test(m)) {
    const column = /column[: ]+["'`]?([A-Za-z0-9_.]+)/i.exec(m)?.[1] ?? /Unknown column '([^']+)'/.exec(m)?.[1];
    const name = column?.split('.').pop();
    return new AuthMeError('column', `В таблице «${cfg.table}» нет столбца${name ? ` «${name}»` : ''}`, name);
  }
  if (c === 'ER_TABLEACCESS_DENIED_ERROR' || c === 'ER_COLUMNACCESS_DENIED_ERROR' || c === '42501' || errno(err) === 1142)
    return new AuthMeError('denied', `Пользователю базы не хватает прав на таблицу «${cfg.table}»: нужны SELECT, INSERT и UPDATE`);
  if (c.startsWith('SQLITE_READONLY'))
    return new AuthMeError('denied', `Файл ${sqlitePath(cfg.url)} открыт только для чтения: сайту нужна запись`);
  if (c === 'SQLITE_BUSY') return new AuthMeError('unreachable', 'Файл AuthMe занят игровым сервером дольше, чем сайт может ждать');
  if (c === 'ER_DUP_ENTRY' || c === '23505' || c.startsWith('SQLITE_CONSTRAINT'))
    return new AuthMeError('duplicate', 'Такое имя в AuthMe уже есть');
  return new AuthMeError('other', `Ошибка базы данных AuthMe: ${m.replace(/[a-z]+:\/\/\S+/gi, '…').slice(0, 200)}`);
}

function hostOf(cfg: Pick<AuthMeConfig, 'kind' | 'url'>): string {
  if (cfg.kind === 'sqlite') return sqlitePath(cfg.url);
  try {
    const u = new URL(cfg.url);
    return `${u.hostname}:${u.port || (cfg.kind === 'mysql' ? 3306 : 5432)}`;
  } catch {
    return 'адрес из настроек';
  }
}

function databaseOf(cfg: Pick<AuthMeConfig, 'kind' | 'url'>): string {
  if (cfg.kind === 'sqlite') return sqlitePath(cfg.url);
  try {
    return decodeURIComponent(new URL(cfg.url).pathname.replace(/^\//, '')) || '(не указана)';
  } catch {
    return '(не указана)';
  }
}

const TRUNCATED_VALUE = (v: unknown) => (typeof v === 'bigint' ? Number(v) : v);

/** One connection (pool) to one AuthMe table. */
export class AuthMeDatabase {
  readonly kind: BackendKind;
  private readonly driver: Driver;
  private pausedUntil = 0;
  private lastFailure: AuthMeError | null = null;

  constructor(readonly cfg: AuthMeConfig) {
    this.kind = cfg.kind;
    this.driver = cfg.kind === 'mysql' ? mysqlDriver(cfg.url) : cfg.kind === 'postgres' ? postgresDriver(cfg.url) : sqliteDriver(cfg.url);
  }

  private get c() {
    return this.cfg.columns;
  }

  /** The columns read for a player: aliased, so the driver's keys do not depend on the names. */
  private get selectList(): string {
    const c = this.c;
    return [
      `${c.name} AS a_name`,
      `${c.realname} AS a_realname`,
      `${c.password} AS a_password`,
      c.salt ? `${c.salt} AS a_salt` : 'NULL AS a_salt',
      `${c.email} AS a_email`,
    ].join(', ');
  }

  private async call<T>(work: () => Promise<T>, options: { ignorePause?: boolean } = {}): Promise<T> {
    if (!options.ignorePause && Date.now() < this.pausedUntil && this.lastFailure) throw this.lastFailure;
    try {
      return await work();
    } catch (err) {
      const failure = describeFailure(err, this.cfg);
      if (failure.kind === 'unreachable' || failure.kind === 'login' || failure.kind === 'database') {
        this.pausedUntil = Date.now() + PAUSE_AFTER_FAILURE_MS;
        this.lastFailure = failure;
      }
      throw failure;
    }
  }

  private toRow(r: Record<string, unknown>): AuthMeRow {
    return {
      name: String(r.a_name ?? ''),
      realname: r.a_realname ?? null,
      password: r.a_password ?? null,
      salt: r.a_salt ?? null,
      email: r.a_email ?? null,
    };
  }

  /** The row of a name (any case: AuthMe keeps names in lower case), or null. */
  async find(name: string, deadlineMs = QUERY_DEADLINE_MS): Promise<AuthMeRow | null> {
    const rows = await this.call(() =>
      this.driver.query(`SELECT ${this.selectList} FROM ${this.cfg.table} WHERE ${this.c.name} = ?`, [name.toLowerCase()], deadlineMs),
    );
    return rows[0] ? this.toRow(rows[0]) : null;
  }

  /** Rows whose name follows `after` (null: from the start), in name order: the import's pages. */
  async page(after: string | null, limit: number, deadlineMs = 30_000): Promise<AuthMeRow[]> {
    const where = after === null ? '' : ` WHERE ${this.c.name} > ?`;
    const rows = await this.call(() =>
      this.driver.query(
        `SELECT ${this.selectList} FROM ${this.cfg.table}${where} ORDER BY ${this.c.name} LIMIT ${Math.floor(limit)}`,
        after === null ? [] : [after],
        deadlineMs,
      ),
    );
    return rows.map((r) => this.toRow(r));
  }

  async count(deadlineMs = 30_000): Promise<number> {
    const rows = await this.call(() => this.driver.query(`SELECT COUNT(*) AS n FROM ${this.cfg.table}`, [], deadlineMs));
    return Number(TRUNCATED_VALUE(rows[0]?.n ?? 0));
  }

  /** A player's row as AuthMe's registration makes it (DataSource.saveAuth). False when the name is there already. */
  async insert(row: NewAuthMeRow, deadlineMs = QUERY_DEADLINE_MS): Promise<boolean> {
    const c = this.c;
    const cols = [c.name, c.realname, c.password, ...(c.salt ? [c.salt] : []), c.email, c.regdate, c.regip];
    const vals = [row.name.toLowerCase(), row.realname, row.password, ...(c.salt ? [row.salt] : []), row.email, row.regdate, row.regip];
    try {
      await this.call(() =>
        this.driver.run(`INSERT INTO ${this.cfg.table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, vals, deadlineMs),
      );
      return true;
    } catch (err) {
      if (err instanceof AuthMeError && err.kind === 'duplicate') return false;
      throw err;
    }
  }

  /**
   * AuthMe's updatePassword: the hash (and the salt column, when there is one). `onlyIf`: only
   * while the column still holds this (a lock lifted only if nobody replaced it). Rows changed.
   */
  async setPassword(name: string, hash: string, salt: string | null, onlyIf?: string, deadlineMs = QUERY_DEADLINE_MS): Promise<number> {
    const c = this.c;
    const set = c.salt ? `${c.password} = ?, ${c.salt} = ?` : `${c.password} = ?`;
    const params: unknown[] = c.salt ? [hash, salt] : [hash];
    params.push(name.toLowerCase());
    let where = `${c.name} = ?`;
    if (onlyIf !== undefined) {
      where += ` AND ${c.password} = ?`;
      params.push(onlyIf);
    }
    return this.call(() => this.driver.run(`UPDATE ${this.cfg.table} SET ${set} WHERE ${where}`, params, deadlineMs));
  }

  /** The table's columns in lower case, or null when there is no such table. */
  async columnNames(deadlineMs = QUERY_DEADLINE_MS): Promise<string[] | null> {
    const t = this.cfg.table;
    const sql =
      this.kind === 'mysql'
        ? 'SELECT column_name AS c FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?'
        : this.kind === 'postgres'
          ? 'SELECT column_name AS c FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?'
          : 'SELECT name AS c FROM pragma_table_info(?)';
    // PostgreSQL stores an unquoted name folded to lower case, as AuthMe's CREATE TABLE made it.
    const rows = await this.call(() => this.driver.query(sql, [this.kind === 'postgres' ? t.toLowerCase() : t], deadlineMs), {
      ignorePause: true,
    });
    if (rows.length === 0) return null;
    return rows.map((r) => String(r.c ?? r.C ?? r.COLUMN_NAME ?? '').toLowerCase());
  }

  /** Whether the site may write: an insert and an update that touch no row, refused by the database without the rights. */
  async probeWrites(deadlineMs = QUERY_DEADLINE_MS): Promise<void> {
    const c = this.c;
    await this.call(() => this.driver.run(`UPDATE ${this.cfg.table} SET ${c.password} = ${c.password} WHERE 1 = 0`, [], deadlineMs), {
      ignorePause: true,
    });
    await this.call(
      () =>
        this.driver.run(
          `INSERT INTO ${this.cfg.table} (${c.name}, ${c.realname}, ${c.password}) SELECT ${c.name}, ${c.realname}, ${c.password} FROM ${this.cfg.table} WHERE 1 = 0`,
          [],
          deadlineMs,
        ),
      { ignorePause: true },
    );
  }

  /** A first query that ignores the pause after a failure: for «Проверить подключение». */
  async ping(deadlineMs = QUERY_DEADLINE_MS): Promise<void> {
    await this.call(() => this.driver.query('SELECT 1 AS one', [], deadlineMs), { ignorePause: true });
    this.pausedUntil = 0;
    this.lastFailure = null;
  }

  /** Samples of stored hashes (for the check: do they look like the configured algorithm?). */
  async sample(limit: number, deadlineMs = QUERY_DEADLINE_MS): Promise<AuthMeRow[]> {
    const rows = await this.call(
      () => this.driver.query(`SELECT ${this.selectList} FROM ${this.cfg.table} LIMIT ${Math.floor(limit)}`, [], deadlineMs),
      { ignorePause: true },
    );
    return rows.map((r) => this.toRow(r));
  }

  close(): Promise<void> {
    return this.driver.close();
  }
}
