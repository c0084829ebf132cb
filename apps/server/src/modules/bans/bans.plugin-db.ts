import { createRequire } from 'node:module';
import type * as mysql2 from 'mysql2/promise';
import type pg from 'pg';
import { loadPg } from '../../db/index.ts';
import { urlWithoutPassword } from '../../lib/database-url.ts';

/**
 * A game plugin's own database (LiteBans, AdvancedBan), read and never written: MySQL or MariaDB
 * through mysql2, PostgreSQL through pg. Queries take `?` placeholders and identifiers quoted by
 * name(); each has a deadline, and after a failure the database is left alone for a while so a
 * page of /bans does not wait for it on every request. Failures become PluginDbError with a
 * Russian text that never holds the address or its password.
 */

const require = createRequire(import.meta.url);

/** A query of a public page waits at most this long. */
export const PLUGIN_QUERY_DEADLINE_MS = 2000;
/** After the database was found unreachable it is not asked again for this long. */
export const PLUGIN_PAUSE_AFTER_FAILURE_MS = 15_000;

export type PluginDbKind = 'mysql' | 'postgres';

export class PluginDbError extends Error {}

export function pluginDbKind(url: string): PluginDbKind | null {
  if (/^(mysql|mariadb):\/\//i.test(url)) return 'mysql';
  if (/^postgres(ql)?:\/\//i.test(url)) return 'postgres';
  return null;
}

/** The address without its password, for the owner's eyes. */
export function displayPluginUrl(url: string): string {
  return urlWithoutPassword(url);
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('deadline'), { code: 'KUBIK_DEADLINE' })), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

const codeOf = (err: unknown): string => String((err as { code?: unknown })?.code ?? '');
const messageOf = (err: unknown): string => String((err as { message?: unknown })?.message ?? err);

function hostOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || (pluginDbKind(url) === 'mysql' ? 3306 : 5432)}`;
  } catch {
    return 'адрес из настроек';
  }
}

/** What went wrong, in words an owner can act on; never the address. */
export function describePluginFailure(err: unknown, url: string): PluginDbError {
  if (err instanceof PluginDbError) return err;
  const c = codeOf(err);
  const m = messageOf(err);
  const where = hostOf(url);
  if (c === 'KUBIK_DEADLINE' || c === 'ETIMEDOUT' || c === 'PROTOCOL_SEQUENCE_TIMEOUT' || /timeout/i.test(m))
    return new PluginDbError(`База данных плагина не ответила за ${PLUGIN_QUERY_DEADLINE_MS / 1000} с (${where})`);
  if (c === 'ECONNREFUSED') return new PluginDbError(`Соединение отклонено: по адресу ${where} не отвечает сервер базы данных`);
  if (c === 'ENOTFOUND' || c === 'EAI_AGAIN') return new PluginDbError(`Хост базы данных не найден: ${where}`);
  if (c === 'ER_ACCESS_DENIED_ERROR' || c === '28P01' || c === '28000')
    return new PluginDbError('База данных плагина не приняла имя пользователя или пароль из адреса');
  if (c === 'ER_BAD_DB_ERROR' || c === '3D000') return new PluginDbError('Такой базы данных на сервере нет');
  if (c === 'ER_NO_SUCH_TABLE' || c === '42P01')
    return new PluginDbError('Таблиц плагина в этой базе нет: проверьте базу и префикс таблиц');
  if (c === 'ER_BAD_FIELD_ERROR' || c === '42703') return new PluginDbError('В таблицах плагина нет нужного столбца: версия плагина не та');
  if (c === 'ER_TABLEACCESS_DENIED_ERROR' || c === 'ER_DBACCESS_DENIED_ERROR' || c === '42501')
    return new PluginDbError('Пользователю базы не хватает прав: нужен SELECT на таблицы плагина');
  return new PluginDbError(`Ошибка базы данных плагина: ${m.replace(/[a-z]+:\/\/\S+/gi, '…').slice(0, 200)}`);
}

type Rows = Record<string, unknown>[];

/** One pool to one plugin database. */
export class PluginDb {
  readonly kind: PluginDbKind;
  private readonly query: (sql: string, params: unknown[]) => Promise<Rows>;
  private readonly end: () => Promise<void>;
  private pausedUntil = 0;
  private lastFailure: PluginDbError | null = null;

  constructor(readonly url: string) {
    const kind = pluginDbKind(url);
    if (!kind) throw new PluginDbError('Адрес базы данных плагина: mysql://… или postgres://…');
    this.kind = kind;
    if (kind === 'mysql') {
      const mysql = require('mysql2/promise') as typeof mysql2;
      const pool = mysql.createPool({
        uri: url.replace(/^mariadb:/i, 'mysql:'),
        connectionLimit: 4,
        maxIdle: 2,
        idleTimeout: 60_000,
        connectTimeout: PLUGIN_QUERY_DEADLINE_MS,
        queueLimit: 200,
        charset: 'utf8mb4',
        supportBigNumbers: true,
        bigNumberStrings: false,
        dateStrings: true,
      });
      pool.on('connection', (conn) => conn.on('error', () => {}));
      this.query = async (sql, params) => {
        const [rows] = await withDeadline(
          pool.query({ sql, values: params, timeout: PLUGIN_QUERY_DEADLINE_MS }),
          PLUGIN_QUERY_DEADLINE_MS + 100,
        );
        return rows as Rows;
      };
      this.end = () => pool.end().catch(() => {});
    } else {
      const pgModule = loadPg();
      const pool: pg.Pool = new pgModule.Pool({
        connectionString: url,
        max: 4,
        idleTimeoutMillis: 30_000,
        connectionTimeoutMillis: PLUGIN_QUERY_DEADLINE_MS,
        query_timeout: PLUGIN_QUERY_DEADLINE_MS,
        statement_timeout: PLUGIN_QUERY_DEADLINE_MS,
        application_name: 'kubik-bans',
      });
      pool.on('error', () => {});
      this.query = async (sql, params) => {
        let i = 0;
        const res = await withDeadline(
          pool.query(
            sql.replace(/\?/g, () => `$${++i}`),
            params,
          ),
          PLUGIN_QUERY_DEADLINE_MS + 100,
        );
        return res.rows as Rows;
      };
      this.end = () => pool.end().catch(() => {});
    }
  }

  /** An identifier quoted for this database (names are checked to be letters, digits and «_» before). */
  name(id: string): string {
    return this.kind === 'mysql' ? `\`${id}\`` : `"${id}"`;
  }

  /** Rows of a select; `force` ignores the pause after a failure (the owner's check). */
  async rows(sql: string, params: unknown[] = [], force = false): Promise<Rows> {
    if (!force && Date.now() < this.pausedUntil && this.lastFailure) throw this.lastFailure;
    try {
      const rows = await this.query(sql, params);
      if (force) this.pausedUntil = 0;
      return rows;
    } catch (err) {
      const failure = describePluginFailure(err, this.url);
      this.pausedUntil = Date.now() + PLUGIN_PAUSE_AFTER_FAILURE_MS;
      this.lastFailure = failure;
      throw failure;
    }
  }

  close(): Promise<void> {
    return this.end();
  }
}

/*
 * A plugin's rows are foreign input: its tables may be older, altered by hand or filled by another
 * program. Each value a page shows passes one of these readers, so an odd column type or value
 * costs that one row its field, never the whole page (the response schema refuses NaN).
 */

/**
 * A flag column as the driver gives it: bit(1) is a Buffer in mysql2 and the text '1'/'0' in
 * node-postgres, BOOLEAN a boolean, a number column a number. Only a plain «on» is true.
 */
export function flag(value: unknown): boolean {
  if (Buffer.isBuffer(value)) return value.length === 1 && value[0] === 1;
  if (typeof value === 'string') return value === '1' || value === 't' || value === 'true';
  return value === true || value === 1 || value === 1n;
}

/** The latest moment a JavaScript Date holds, in ms either side of 1970. */
const MAX_EPOCH_MS = 8.64e15;

/**
 * An epoch-ms column (BIGINT comes as text from node-postgres, MEDIUMTEXT is text in mysql2): the
 * whole number it holds, or null for anything else (a fraction, words, a number past a date).
 */
export function epochMs(value: unknown): number | null {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'bigint') n = Number(value);
  else if (typeof value === 'string' && /^\s*-?\d{1,16}\s*$/.test(value)) n = Number(value);
  else return null;
  return Number.isSafeInteger(n) && Math.abs(n) <= MAX_EPOCH_MS ? n : null;
}

/**
 * A text column, cut to `max` characters (the width the plugin declares, so its own rows are
 * never cut); null when absent or not text.
 */
export function pluginText(value: unknown, max: number): string | null {
  let s: string;
  if (typeof value === 'string') s = value;
  else if (Buffer.isBuffer(value)) s = value.toString('utf8');
  else if (typeof value === 'number' || typeof value === 'bigint') s = String(value);
  else return null;
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  // Not half of a character outside the BMP.
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}
