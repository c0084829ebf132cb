import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { isPostgresUrl, loadSqlite } from '../db/index.ts';
import type { ScheduledJobSpec } from './jobs/index.ts';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../base/private-files.ts';

/**
 * Backups of the site's database (docs/operations.md): `npm run backup -- --out FILE`, the
 * daily job when BACKUP_DIR is set, and `npm run restore -- --from FILE` (cli/restore.ts).
 * - SQLite: SQLite's online backup API (better-sqlite3 `backup()`), page by page from a
 *   read-only connection of its own, so the site keeps answering and writing meanwhile and the
 *   copy is one consistent snapshot; the result is an ordinary SQLite database file.
 * - PostgreSQL: `pg_dump --format=custom` (one consistent snapshot in a repeatable-read
 *   transaction), restored with `pg_restore`. pg_dump must be installed and at least as new as
 *   the server.
 * The file is written beside its destination under a temporary name, readable by the site's
 * user only, and renamed into place when complete: a crash never leaves a half file under the
 * real name.
 */
export type BackupKind = 'sqlite' | 'pg';

/** A refusal with a message for a person, in Russian and English (command-line output and logs). */
export class BackupError extends Error {}

export const BACKUP_TEXTS = {
  pgDumpMissing: (tool: string) =>
    `Не найдена программа ${tool}: для резервной копии PostgreSQL установите клиент PostgreSQL той же или более новой версии, что и сервер (Debian/Ubuntu: apt install postgresql-client).\n` +
    `${tool} not found: install the PostgreSQL client tools, the same or a newer major version than the server (Debian/Ubuntu: apt install postgresql-client).`,
  exists: (file: string) => `Файл ${file} уже существует — выберите другое имя.\n${file} already exists — choose another name.`,
  noDatabase: (file: string) => `Нет базы данных ${file}: копировать нечего.\nNo database at ${file}: nothing to back up.`,
};

/** SQLite and pg_dump's custom format announce themselves in their first bytes. */
export function detectBackupKind(file: string): BackupKind | null {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(16);
    const n = fs.readSync(fd, head, 0, 16, 0);
    if (n >= 16 && head.toString('latin1') === 'SQLite format 3\0') return 'sqlite';
    if (n >= 5 && head.subarray(0, 5).toString('latin1') === 'PGDMP') return 'pg';
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * pg_dump and pg_restore get the connection without its password on the command line (where
 * `ps` would show it): the password goes through PGPASSWORD.
 */
export function pgConnection(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const u = new URL(url);
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (u.password) {
    env.PGPASSWORD = decodeURIComponent(u.password);
    u.password = '';
  }
  return { dbname: u.toString(), env };
}

/** Runs a PostgreSQL client tool; its stderr becomes the error's message. */
export function runPgTool(tool: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.on('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'ENOENT' ? new BackupError(BACKUP_TEXTS.pgDumpMissing(tool)) : err),
    );
    child.on('close', (code) => (code === 0 ? resolve() : reject(new BackupError(`${tool}: ${stderr.trim() || `exit ${code}`}`))));
  });
}

/** Writes a consistent copy of the site's database to outFile (which must not exist yet). */
export async function makeBackup(
  config: Pick<Config, 'databaseUrl' | 'sqlitePath'>,
  outFile: string,
): Promise<{ kind: BackupKind; bytes: number }> {
  const out = path.resolve(outFile);
  if (fs.existsSync(out)) throw new BackupError(BACKUP_TEXTS.exists(out));
  ensurePrivateDir(path.dirname(out));
  const partial = path.join(path.dirname(out), `.${path.basename(out)}.partial-${process.pid}`);
  const kind: BackupKind = isPostgresUrl(config.databaseUrl) ? 'pg' : 'sqlite';
  try {
    // Created private before anything is written into it.
    fs.closeSync(fs.openSync(partial, 'w', PRIVATE_FILE_MODE));
    if (kind === 'pg') {
      const { dbname, env } = pgConnection(config.databaseUrl!);
      await runPgTool('pg_dump', ['--format=custom', '--no-owner', '--no-privileges', '--file', partial, '--dbname', dbname], env);
    } else {
      if (!fs.existsSync(config.sqlitePath)) throw new BackupError(BACKUP_TEXTS.noDatabase(config.sqlitePath));
      const source = new (loadSqlite())(config.sqlitePath, { readonly: true, fileMustExist: true });
      try {
        source.pragma('busy_timeout = 5000');
        // A write by another connection between two steps restarts the copy, so after the first
        // step the rest goes in one step: one read snapshot (WAL lets writers go on meanwhile),
        // done even under steady writes, at the cost of one pause of this thread while it copies.
        await source.backup(partial, { progress: () => 1 << 30 });
      } finally {
        source.close();
      }
    }
    fs.chmodSync(partial, PRIVATE_FILE_MODE);
    fs.renameSync(partial, out);
    return { kind, bytes: fs.statSync(out).size };
  } catch (err) {
    fs.rmSync(partial, { force: true });
    throw err;
  }
}

const BACKUP_NAME = /^kubik-\d{8}-\d{6}\.(sqlite|pgdump)$/;

/** kubik-20261123-041500.sqlite (UTC), so names sort by time. */
export function backupFileName(kind: BackupKind, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `kubik-${stamp}.${kind === 'pg' ? 'pgdump' : 'sqlite'}`;
}

/** Deletes the oldest of the site's backups in dir beyond the newest keep; returns the deleted names. */
export function pruneBackups(dir: string, keep: number): string[] {
  const names = fs
    .readdirSync(dir)
    .filter((n) => BACKUP_NAME.test(n))
    .sort();
  const old = names.slice(0, Math.max(0, names.length - keep));
  for (const n of old) fs.rmSync(path.join(dir, n), { force: true });
  return old;
}

export interface BackupLog {
  info(obj: object, msg: string): void;
}

/**
 * The site's own periodic backup (BACKUP_DIR set): once per BACKUP_INTERVAL_HOURS across all
 * instances (ctx.schedule), keeping the newest BACKUP_KEEP files. With several instances only
 * those with BACKUP_DIR take part, so set it on one of them or point it at shared storage.
 */
export function backupJob(config: Pick<Config, 'databaseUrl' | 'sqlitePath' | 'backup'>, log: BackupLog): ScheduledJobSpec {
  const dir = config.backup.dir!;
  return {
    name: 'backup',
    everyMs: config.backup.intervalMs,
    leaseMs: 3_600_000,
    pollMs: Math.min(300_000, config.backup.intervalMs),
    async run() {
      ensurePrivateDir(dir);
      const kind: BackupKind = isPostgresUrl(config.databaseUrl) ? 'pg' : 'sqlite';
      const file = path.join(dir, backupFileName(kind));
      const started = Date.now();
      const { bytes } = await makeBackup(config, file);
      const pruned = pruneBackups(dir, config.backup.keep);
      log.info({ file, bytes, ms: Date.now() - started, pruned }, 'backup written');
    },
  };
}
