/**
 * npm run bench:authme — AuthMe's accounts imported into a fresh site: 100,000 rows
 * (AUTHME_BENCH_ROWS) in AuthMe's table made as AuthMe makes it, in an AuthMe SQLite file or, with
 * AUTHME_BENCH_BACKEND=mariadb, on a MariaDB server started for the bench (testing/mariadb.ts).
 * The site's database is SQLite, or PostgreSQL when BENCH_DATABASE_URL names a server where the
 * bench may create a database. Runs the dry run and then the import through the same code as
 * `npm run import:authme` and the admin page, and prints the time of each, rows per second and
 * the process's peak resident memory (sampled every 50 ms). Goal: the import under 60 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../apps/server/src/config.ts';
import { loadSqlite, openDatabase } from '../apps/server/src/db/index.ts';
import { migrateToLatest } from '../apps/server/src/db/migrate.ts';
import { ClaimOwner } from '../apps/server/src/lib/jobs/index.ts';
import { AuthMeDatabase } from '../apps/server/src/modules/authme/authme.database.ts';
import { runImport } from '../apps/server/src/modules/authme/authme.import.ts';
import * as repo from '../apps/server/src/modules/authme/authme.repo.ts';
import { resolveConfig } from '../apps/server/src/modules/authme/authme.settings.ts';
import { AuthMePlugin, DEFAULT_COLUMNS, sha256, type SqlRunner } from '../testing/authme/authme-plugin.ts';
import { startMariaDb } from '../testing/mariadb.ts';

const ROWS = Number(process.env.AUTHME_BENCH_ROWS ?? 100_000);
const BACKEND = process.env.AUTHME_BENCH_BACKEND ?? 'sqlite';
const GOAL_MS = 60_000;

const dir = mkdtempSync(path.join(os.tmpdir(), 'kubik-bench-authme-'));
const cleanups: (() => Promise<void>)[] = [async () => rmSync(dir, { recursive: true, force: true })];

/** AuthMe's players: names a server has (letters, digits, «_»), a tenth without an address. */
function* players(n: number) {
  for (let i = 0; i < n; i++) {
    const name = `Player_${i.toString(36)}`;
    yield { name, hashed: sha256(`pass-${i}`), email: i % 10 === 0 ? null : `player${i}@example.com` };
  }
}

async function authMeTable(): Promise<string> {
  const columns = [
    DEFAULT_COLUMNS.name,
    DEFAULT_COLUMNS.realname,
    DEFAULT_COLUMNS.password,
    DEFAULT_COLUMNS.email,
    DEFAULT_COLUMNS.regdate,
  ];
  const insert = (n: number) =>
    `INSERT INTO authme (${columns.join(', ')}) VALUES ${Array.from({ length: n }, () => '(?, ?, ?, ?, ?)').join(', ')}`;
  const fill = async (runner: SqlRunner, begin: () => Promise<void>, commit: () => Promise<void>) => {
    await new AuthMePlugin(runner).createTable();
    await begin();
    let batch: unknown[] = [];
    const now = Date.now();
    for (const p of players(ROWS)) {
      batch.push(p.name.toLowerCase(), p.name, p.hashed.hash, p.email, now);
      if (batch.length === 500 * 5) {
        await runner.exec(insert(500), batch);
        batch = [];
      }
    }
    if (batch.length) await runner.exec(insert(batch.length / 5), batch);
    await commit();
  };
  if (BACKEND === 'mariadb') {
    const maria = await startMariaDb();
    cleanups.push(() => maria.stop());
    const db = await maria.createDatabase();
    const user = await maria.createUser(db.name);
    const conn = await maria.admin(db.name);
    const runner: SqlRunner = {
      kind: 'mysql',
      exec: async (sql, params = []) => ((await conn.query(sql, params))[0] as Record<string, unknown>[]) ?? [],
    };
    await fill(
      runner,
      async () => void (await conn.query('START TRANSACTION')),
      async () => void (await conn.query('COMMIT')),
    );
    await conn.end();
    return user.url;
  }
  const file = path.join(dir, 'authme.db');
  const db = new (loadSqlite())(file);
  const runner: SqlRunner = {
    kind: 'sqlite',
    async exec(sql, params = []) {
      const st = db.prepare(sql);
      if (st.reader) return st.all(...params) as Record<string, unknown>[];
      st.run(...params);
      return [];
    },
  };
  await fill(
    runner,
    async () => void db.exec('BEGIN'),
    async () => void db.exec('COMMIT'),
  );
  db.close();
  return `sqlite:${file}`;
}

async function siteDatabaseUrl(): Promise<string | undefined> {
  const base = process.env.BENCH_DATABASE_URL;
  if (!base) return undefined;
  const name = `kubik_bench_authme_${process.pid}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: base });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  });
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

try {
  let t = performance.now();
  const authmeUrl = await authMeTable();
  console.log(`AuthMe (${BACKEND}): ${ROWS.toLocaleString('ru-RU')} строк за ${((performance.now() - t) / 1000).toFixed(1)} с`);
  const config = loadConfig(
    {},
    {
      dataDir: dir,
      sqlitePath: path.join(dir, 'site.sqlite'),
      databaseUrl: await siteDatabaseUrl(),
      logLevel: 'silent',
      authme: { databaseUrl: authmeUrl, table: 'authme', hash: 'SHA256' },
    },
  );
  const database = openDatabase(config);
  cleanups.unshift(() => database.close());
  await migrateToLatest(database);
  const cfg = resolveConfig(config, {})!;
  const adb = new AuthMeDatabase(cfg);
  cleanups.unshift(() => adb.close());
  const deps = { db: database.db, claims: new ClaimOwner('bench') };
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const results: Record<string, number> = {};
  for (const mode of ['dry', 'import'] as const) {
    peak = process.memoryUsage().rss;
    await repo.createImport(database.db, mode, null, await adb.count(), Date.now());
    t = performance.now();
    const id = await runImport(deps, async () => ({ cfg, adb }));
    const ms = performance.now() - t;
    const run = (await repo.importById(database.db, id!))!;
    if (run.state !== 'done') throw new Error(`${mode}: ${run.state} ${run.error ?? ''}`);
    results[`${mode}_ms`] = Math.round(ms);
    results[`${mode}_peak_rss_mb`] = Math.round(peak / 1048576);
    console.log(
      `${mode === 'dry' ? 'Пробный прогон' : 'Перенос'}: ${(ms / 1000).toFixed(1)} с, ${Math.round(run.processed / (ms / 1000)).toLocaleString('ru-RU')} строк/с, ` +
        `создано ${run.created.toLocaleString('ru-RU')}, без почты ${run.without_email.toLocaleString('ru-RU')}, пик памяти процесса ${Math.round(peak / 1048576)} МБ`,
    );
  }
  clearInterval(sampler);
  const accounts = Number(
    (
      await database.db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
  if (accounts !== ROWS) throw new Error(`made ${accounts} accounts of ${ROWS}`);
  const met = results.import_ms! < GOAL_MS * (ROWS / 100_000);
  console.log(
    JSON.stringify({ rows: ROWS, backend: BACKEND, site: config.databaseUrl ? 'postgres' : 'sqlite', ...results, goal_met: met }),
  );
  if (!met) process.exitCode = 1;
} finally {
  for (const c of cleanups) await c().catch(() => {});
}
