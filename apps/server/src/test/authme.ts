import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { loadSqlite } from '../db/index.ts';
import { AuthMePlugin, type AuthMeColumns, DEFAULT_COLUMNS, type SqlRunner } from '../../../../testing/authme/authme-plugin.ts';

/**
 * AuthMe's database for a test, on each backend AuthMe has: an SQLite file in a directory of its
 * own, a PostgreSQL database on TEST_DATABASE_URL's server, a MariaDB database (testing/mariadb.ts
 * starts the server). Each comes with the plugin's table made as AuthMe makes it
 * (testing/authme/authme-plugin.ts) and the address the site connects with; close() removes it.
 */
export interface AuthMeDb {
  url: string;
  plugin: AuthMePlugin;
  runner: SqlRunner;
  close(): Promise<void>;
}

export function sqliteAuthMe(columns: Partial<AuthMeColumns> = {}): Promise<AuthMeDb> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kubik-authme-'));
  const file = path.join(dir, 'authme.db');
  const Sqlite = loadSqlite();
  const db = new Sqlite(file);
  const runner: SqlRunner = {
    kind: 'sqlite',
    async exec(sql, params = []) {
      const st = db.prepare(sql);
      if (st.reader) return st.all(...params) as Record<string, unknown>[];
      st.run(...params);
      return [];
    },
  };
  const plugin = new AuthMePlugin(runner, { ...DEFAULT_COLUMNS, ...columns });
  return plugin.createTable().then(() => ({
    url: `sqlite:${file}`,
    plugin,
    runner,
    async close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  }));
}

/** A database of its own on TEST_DATABASE_URL's PostgreSQL server. */
export async function postgresAuthMe(columns: Partial<AuthMeColumns> = {}): Promise<AuthMeDb> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set');
  const name = `kubik_authme_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  const runner: SqlRunner = {
    kind: 'postgres',
    async exec(sql, params = []) {
      let i = 0;
      return (
        await client.query(
          sql.replace(/\?/g, () => `$${++i}`),
          params,
        )
      ).rows as Record<string, unknown>[];
    },
  };
  const plugin = new AuthMePlugin(runner, { ...DEFAULT_COLUMNS, ...columns });
  await plugin.createTable();
  return {
    url: url.toString(),
    plugin,
    runner,
    async close() {
      await client.end();
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** A runner over a MySQL/MariaDB address (the plugin's own connection). */
export async function mysqlRunner(url: string): Promise<SqlRunner & { close(): Promise<void> }> {
  const conn = await createConnection({ uri: url });
  return {
    kind: 'mysql',
    async exec(sql, params = []) {
      const [rows] = await conn.query(sql, params);
      return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
    },
    close: () => conn.end(),
  };
}

interface Vector {
  algorithm: string;
  password: string;
  username: string;
  hash: string;
  salt: string | null;
  expect: boolean | 'malformed';
  note: string;
}
let vectors: Vector[] | null = null;

/**
 * A hash another implementation made (testing/authme/hash-vectors.json: Python's hashlib, pyca
 * bcrypt, argon2-cffi, passlib, PHP's crypt()) for `password` in `algorithm`; `note` picks one
 * maker ('PHP crypt' for bcrypt's $2y$).
 */
export function independentHash(algorithm: string, password: string, note = ''): { hash: string; salt: string | null } {
  vectors ??= (
    JSON.parse(readFileSync(path.join(import.meta.dirname, '../../../../testing/authme/hash-vectors.json'), 'utf8')) as {
      vectors: Vector[];
    }
  ).vectors;
  const v = vectors.find((x) => x.algorithm === algorithm && x.password === password && x.expect === true && x.note.includes(note));
  if (!v) throw new Error(`no ${algorithm} vector for ${password}`);
  return { hash: v.hash, salt: v.salt };
}
