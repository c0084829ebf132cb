import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createConnection, type Connection } from 'mysql2/promise';
import { freePort } from './free-port.ts';

/**
 * A real MariaDB server from Debian's packages (mariadb-server: `mariadb-install-db`,
 * `mariadbd`), started for one test file in a temporary directory on a free loopback port, with
 * real password logins, and removed with everything in it by stop(). Databases and users are made
 * and dropped by the tests, as PostgreSQL's are. Nothing here comes from the site.
 *
 * Missing binaries fail with what to install: `apt-get install -y mariadb-server` (with a
 * policy-rc.d that exits 101, so the system's own service does not start).
 */

const INSTALL_DB = process.env.MARIADB_INSTALL_DB ?? '/usr/bin/mariadb-install-db';
const SERVER = process.env.MARIADBD ?? '/usr/sbin/mariadbd';

export interface MariaDb {
  port: number;
  /** A database of its own; drop() removes it and the users made for it. */
  createDatabase(): Promise<{ name: string; drop(): Promise<void> }>;
  /**
   * A user with a password who may do `grants` on `table` of `database` (on all of it without a
   * table: a table-level grant needs the table made first), and the address to log in with.
   */
  createUser(database: string, options?: { grants?: string; table?: string }): Promise<{ user: string; password: string; url: string }>;
  /** The server's superuser over its socket: to make tables as a game plugin would. */
  admin(database?: string): Promise<Connection>;
  stop(): Promise<void>;
}

let made = 0;

export async function startMariaDb(): Promise<MariaDb> {
  if (!existsSync(INSTALL_DB) || !existsSync(SERVER))
    throw new Error(`MariaDB is missing (${SERVER}): apt-get install -y mariadb-server (with /usr/sbin/policy-rc.d exiting 101)`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kubik-mariadb-'));
  const data = path.join(dir, 'data');
  const socket = path.join(dir, 'mysqld.sock');
  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? ['--user=root'] : [];
  // Small and without fsync: a throwaway server for a few tables.
  const tuning = [
    '--skip-name-resolve',
    '--skip-log-bin',
    '--innodb-buffer-pool-size=16M',
    '--innodb-log-file-size=8M',
    '--innodb-flush-log-at-trx-commit=0',
  ];
  const installed = spawnSync(
    INSTALL_DB,
    ['--no-defaults', ...user, `--datadir=${data}`, '--auth-root-authentication-method=normal', '--skip-test-db', ...tuning],
    { encoding: 'utf8' },
  );
  if (installed.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`mariadb-install-db failed: ${installed.stderr || installed.stdout}`);
  }
  const port = await freePort();
  const server: ChildProcess = spawn(
    SERVER,
    [
      '--no-defaults',
      ...user,
      `--datadir=${data}`,
      `--socket=${socket}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--pid-file=${path.join(dir, 'mysqld.pid')}`,
      `--log-error=${path.join(dir, 'error.log')}`,
      ...tuning,
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const admin = (database?: string) =>
    createConnection({ socketPath: socket, user: 'root', ...(database ? { database } : {}), multipleStatements: true });
  const users = new Map<string, string[]>();
  const started = Date.now();
  for (;;) {
    try {
      await (await admin()).end();
      break;
    } catch (err) {
      if (server.exitCode !== null || Date.now() - started > 60_000) {
        server.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
        throw new Error(`mariadbd did not start: ${(err as Error).message}`, { cause: err });
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    port,
    admin,
    async createDatabase() {
      const name = `kubik_authme_${process.pid}_${++made}_${Math.random().toString(36).slice(2, 8)}`;
      const conn = await admin();
      try {
        await conn.query(`CREATE DATABASE \`${name}\``);
      } finally {
        await conn.end();
      }
      return {
        name,
        async drop() {
          const c = await admin();
          try {
            await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
            for (const login of users.get(name) ?? []) await c.query(`DROP USER IF EXISTS '${login}'@'127.0.0.1'`);
            users.delete(name);
          } finally {
            await c.end();
          }
        },
      };
    },
    async createUser(database, options = {}) {
      const login = `u${process.pid}_${++made}`.slice(0, 32);
      const password = `pw-${Math.random().toString(36).slice(2)}`;
      const conn = await admin();
      try {
        await conn.query(`CREATE USER '${login}'@'127.0.0.1' IDENTIFIED BY '${password}'`);
        const on = options.table ? `\`${database}\`.\`${options.table}\`` : `\`${database}\`.*`;
        await conn.query(`GRANT ${options.grants ?? 'ALL PRIVILEGES'} ON ${on} TO '${login}'@'127.0.0.1'`);
      } finally {
        await conn.end();
      }
      users.set(database, [...(users.get(database) ?? []), login]);
      return { user: login, password, url: `mysql://${login}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}` };
    },
    async stop() {
      server.kill('SIGTERM');
      const killer = setTimeout(() => server.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
