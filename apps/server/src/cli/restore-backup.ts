import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Config } from '../config.ts';
import { isPostgresUrl, loadSqlite, openDatabase } from '../db/index.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { BackupError, detectBackupKind, pgConnection, runPgTool } from '../lib/backup.ts';
import { ensurePrivateDir, makePrivate, PRIVATE_FILE_MODE } from '../base/private-files.ts';
import { ledgerReport } from './ledger-report.ts';
import { settleRestoredInFlight, SETTLE_TEXTS } from './restore-settle.ts';

export const RESTORE_TEXTS = {
  missing: (f: string) => `Нет файла ${f}.\nNo such file: ${f}.`,
  unknown: (f: string) =>
    `${f} — не резервная копия сайта (ни SQLite, ни pg_dump).\n${f} is not a backup of the site (neither SQLite nor a pg_dump archive).`,
  kindMismatch: (file: string, target: string) =>
    `Копия сделана с ${file}, а сайт настроен на ${target} (DATABASE_URL) — восстановить нельзя.\nThe backup is of ${file} but the site is configured for ${target} (DATABASE_URL).`,
  sqliteNotEmpty: (f: string) =>
    `База ${f} уже существует: восстановление делается только в пустой каталог данных. Остановите сайт и перенесите старую базу (вместе с -wal и -shm) в сторону.\n` +
    `${f} already exists: restore only into an empty data directory. Stop the site and move the old database (with its -wal and -shm files) aside.`,
  pgNotEmpty: (n: number) =>
    `В базе PostgreSQL уже есть таблицы (${n}): восстановление делается только в пустую базу (createdb новая_база).\nThe PostgreSQL database already has ${n} tables: restore only into an empty database (createdb new_db).`,
  corrupt: (msg: string) => `Копия повреждена: ${msg}\nThe backup is damaged: ${msg}`,
  checksFailed:
    'Проверки не прошли: база не восстановлена. Если расхождения известны и их нужно перенести как есть, повторите с --accept-mismatches.\n' +
    'Checks failed: nothing was restored. To restore known mismatches as they are, repeat with --accept-mismatches.',
  pgChecksFailed:
    'Проверки не прошли: данные восстановлены в базу, но сайт на ней запускать не стоит, пока расхождения не разобраны (или повторите в новую пустую базу с --accept-mismatches).\n' +
    'Checks failed: the data is in the database, but do not start the site on it before the mismatches are understood (or restore into a new empty database with --accept-mismatches).',
  done: (target: string) => `Восстановлено: ${target}. Можно запускать сайт.\nRestored into ${target}. The site may be started.`,
};

export interface RestoreOptions {
  acceptMismatches: boolean;
  log: (line: string) => void;
}

/** Restores file into the empty database the config names; see cli/restore.ts. */
export async function restoreBackup(
  config: Pick<Config, 'databaseUrl' | 'sqlitePath'>,
  file: string,
  opts: RestoreOptions,
): Promise<{ ok: boolean }> {
  const from = path.resolve(file);
  if (!fs.existsSync(from)) throw new BackupError(RESTORE_TEXTS.missing(from));
  const kind = detectBackupKind(from);
  if (!kind) throw new BackupError(RESTORE_TEXTS.unknown(from));
  const targetKind = isPostgresUrl(config.databaseUrl) ? 'pg' : 'sqlite';
  const names = { pg: 'PostgreSQL', sqlite: 'SQLite' } as const;
  if (kind !== targetKind) throw new BackupError(RESTORE_TEXTS.kindMismatch(names[kind], names[targetKind]));
  return kind === 'sqlite' ? restoreSqlite(config.sqlitePath, from, opts) : restorePg(config.databaseUrl!, from, opts);
}

async function restoreSqlite(target: string, from: string, opts: RestoreOptions): Promise<{ ok: boolean }> {
  for (const f of [target, `${target}-wal`, `${target}-shm`]) if (fs.existsSync(f)) throw new BackupError(RESTORE_TEXTS.sqliteNotEmpty(f));
  ensurePrivateDir(path.dirname(target));
  // Checked and migrated under a temporary name; renamed into place only when everything passed.
  const work = path.join(path.dirname(target), `.${path.basename(target)}.restore-${process.pid}`);
  const cleanup = () => {
    for (const f of [work, `${work}-wal`, `${work}-shm`]) fs.rmSync(f, { force: true });
  };
  try {
    fs.copyFileSync(from, work);
    fs.chmodSync(work, PRIVATE_FILE_MODE);
    const raw = new (loadSqlite())(work);
    try {
      const integrity = raw.pragma('integrity_check', { simple: true });
      if (integrity !== 'ok') throw new BackupError(RESTORE_TEXTS.corrupt(String(integrity)));
    } finally {
      raw.close();
    }
    opts.log('Целостность SQLite: ok.');
    const ok = await migrateAndCheck(openDatabase({ sqlitePath: work }), opts);
    if (!ok && !opts.acceptMismatches) {
      opts.log(RESTORE_TEXTS.checksFailed);
      cleanup();
      return { ok: false };
    }
    // The journal was checkpointed when the connection closed; only the database file moves.
    fs.renameSync(work, target);
    makePrivate(target);
    cleanup();
    opts.log(RESTORE_TEXTS.done(target));
    return { ok };
  } catch (err) {
    cleanup();
    throw err;
  }
}

async function restorePg(url: string, from: string, opts: RestoreOptions): Promise<{ ok: boolean }> {
  const handle = openDatabase({ databaseUrl: url, sqlitePath: '' });
  try {
    const tables = await sql<{
      n: number;
    }>`select count(*)::int as n from pg_tables where schemaname not in ('pg_catalog', 'information_schema')`.execute(handle.db);
    const n = Number(tables.rows[0]?.n ?? 0);
    if (n > 0) throw new BackupError(RESTORE_TEXTS.pgNotEmpty(n));
  } finally {
    await handle.close();
  }
  const { dbname, env } = pgConnection(url);
  await runPgTool(
    'pg_restore',
    ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', '--dbname', dbname, from],
    env,
  );
  opts.log('pg_restore: ok.');
  const ok = await migrateAndCheck(openDatabase({ databaseUrl: url, sqlitePath: '' }), opts);
  if (!ok) opts.log(RESTORE_TEXTS.pgChecksFailed);
  else opts.log(RESTORE_TEXTS.done(new URL(url).pathname.slice(1)));
  return { ok };
}

/** Brings the restored copy to the current migrations and runs check:ledger's checks on it. */
async function migrateAndCheck(handle: ReturnType<typeof openDatabase>, opts: RestoreOptions): Promise<boolean> {
  try {
    await migrateToLatest(handle);
    opts.log('Миграции: база приведена к текущей версии.');
    // Exactly-once: nothing the live site may have done after the copy is done again by itself.
    const settled = await settleRestoredInFlight(handle.db);
    opts.log(SETTLE_TEXTS.summary(settled.deliveries, settled.refunds, settled.pendingPayments));
    const report = await ledgerReport(handle.db);
    for (const line of report.lines) opts.log(line);
    return !report.failed;
  } finally {
    await handle.close();
  }
}
