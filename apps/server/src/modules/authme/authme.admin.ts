import type { AuthMeCheckResponse, AuthMeImportView, AuthMeRefusalsResponse, AuthMeView } from '@kubik/contract';
import { AUTHME_COLUMN_KEYS } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import { AUTHME_ALGORITHMS, authMeAlgorithmInfo } from '../../lib/authme/hashes.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import { AuthMeDatabase, AuthMeError, describeFailure } from './authme.database.ts';
import { IMPORT_JOB } from './authme.import.ts';
import * as repo from './authme.repo.ts';
import { authMeConfig, backendOf, displayUrl, hashProblem, sourcesOf, storedSettings, type AuthMeConfig } from './authme.settings.ts';
import { algorithmOf, authMeOf, readOrder, WARNING_TEXT } from './authme.service.ts';

/** Админ-панель → AuthMe: what is set, what happened, the check and the import. */

export const ADMIN_TEXTS = {
  notConnected: 'AuthMe не подключён: укажите адрес базы данных AuthMe',
  importRunning: 'Перенос или пробный прогон уже идёт: дождитесь его конца или остановите',
  noImport: 'Такого переноса нет',
} as const;

export function importView(row: repo.ImportRow): AuthMeImportView {
  return {
    id: row.id,
    mode: row.mode === 'import' ? 'import' : 'dry',
    state: row.state as AuthMeImportView['state'],
    created_at: Number(row.created_at),
    finished_at: row.finished_at === null ? null : Number(row.finished_at),
    total: Number(row.total),
    processed: Number(row.processed),
    created: Number(row.created),
    linked: Number(row.linked),
    name_collisions: Number(row.name_collisions),
    without_email: Number(row.without_email),
    refused: Number(row.refused),
    broken_hashes: Number(row.broken_hashes),
    error: row.error,
  };
}

export async function view(ctx: AppContext, owner: boolean): Promise<AuthMeView> {
  const stored = await storedSettings(ctx);
  const cfg = await authMeConfig(ctx);
  const sources = sourcesOf(ctx.config, stored);
  const url = cfg?.url ?? null;
  const last = await repo.lastImport(ctx.db);
  return {
    connection: {
      source: cfg ? cfg.urlSource : 'unset',
      kind: url ? backendOf(url) : null,
      display: owner && url ? displayUrl(url) : null,
    },
    table: cfg?.table ?? stored.table ?? ctx.config.authme.table ?? 'authme',
    table_source: sources.table,
    columns: Object.fromEntries(AUTHME_COLUMN_KEYS.map((k) => [k, cfg?.columns[k] ?? ''])),
    hash: cfg?.hashName ?? stored.hash ?? ctx.config.authme.hash ?? 'BCRYPT',
    hash_source: sources.hash,
    legacy_hashes: stored.legacy_hashes ?? [],
    bcrypt_cost: stored.bcrypt_cost ?? 12,
    pbkdf2_rounds: stored.pbkdf2_rounds ?? 10_000,
    salted_md5_length: stored.salted_md5_length ?? 8,
    lock_on_ban: stored.lock_on_ban ?? false,
    algorithms: AUTHME_ALGORITHMS.map((name) => ({ name, ...authMeAlgorithmInfo(name) })),
    linked: await repo.countLinks(ctx.db),
    pending_writes: await repo.pendingWrites(ctx.db),
    warnings: (await repo.warnings(ctx.db)).map((w) => ({
      kind: w.kind,
      text: WARNING_TEXT[w.kind] ?? w.kind,
      count: Number(w.count),
      first_at: Number(w.first_at),
      last_at: Number(w.last_at),
      detail: w.detail,
    })),
    last_import: last ? importView(last) : null,
  };
}

/**
 * «Проверить подключение»: the connection, the login, the database, the table and each column
 * the site uses, the rights to write, the algorithm, and a sample of the stored hashes.
 */
export async function checkConnection(cfg: AuthMeConfig | null): Promise<AuthMeCheckResponse> {
  if (!cfg) return { ok: false, problems: [ADMIN_TEXTS.notConnected], notes: [] };
  const problems: string[] = [];
  const notes: string[] = [];
  const hashWhy = hashProblem(cfg);
  if (hashWhy) problems.push(hashWhy);
  // A connection of its own: the check must not wait for, nor disturb, the logins' pool.
  const adb = new AuthMeDatabase(cfg);
  try {
    await adb.ping();
    const columns = await adb.columnNames();
    if (columns === null) {
      problems.push(`Таблицы «${cfg.table}» нет: AuthMe создаёт её при первом запуске (DataSource.mySQLTablename)`);
      return { ok: false, problems, notes };
    }
    for (const key of AUTHME_COLUMN_KEYS) {
      const name = cfg.columns[key];
      if (name === '') continue;
      if (!columns.includes(name.toLowerCase())) problems.push(`В таблице «${cfg.table}» нет столбца «${name}»`);
    }
    if (problems.some((p) => p.includes('нет столбца'))) return { ok: false, problems, notes };
    try {
      await adb.probeWrites();
    } catch (err) {
      problems.push((err as AuthMeError).message);
    }
    const rows = await adb.count();
    notes.push(`Строк в таблице «${cfg.table}»: ${rows}`);
    if (cfg.hash) {
      const sample = await adb.sample(200);
      const broken = sample.filter((r) => !('algorithm' in algorithmOf(readOrder(cfg), r.password, r.salt)));
      if (sample.length > 0 && broken.length === sample.length)
        problems.push(
          `Ни один из ${sample.length} проверенных хешей не похож на ${cfg.hash}: в config.yml AuthMe, похоже, другой алгоритм (settings.security.passwordHash)`,
        );
      else if (broken.length > 0)
        notes.push(`${broken.length} из ${sample.length} проверенных хешей не похожи на ${cfg.hash} и старые алгоритмы`);
      else if (sample.length > 0) notes.push(`Проверено ${sample.length} хешей: все похожи на ${cfg.hash}`);
    }
  } catch (err) {
    problems.push(err instanceof AuthMeError ? err.message : describeFailure(err, cfg).message);
  } finally {
    await adb.close();
  }
  return { ok: problems.length === 0, problems, notes };
}

export async function startImport(ctx: AppContext, mode: 'dry' | 'import', actorId: number): Promise<AuthMeImportView> {
  const found = await authMeOf(ctx);
  if (!found) throw conflict(ADMIN_TEXTS.notConnected, { code: 'authme_not_connected' });
  if (await repo.activeImport(ctx.db)) throw conflict(ADMIN_TEXTS.importRunning, { code: 'authme_import_running' });
  let total: number;
  try {
    total = await found.adb.count();
  } catch (err) {
    throw conflict((err as Error).message, { code: 'authme_not_connected' });
  }
  const id = await repo.createImport(ctx.db, mode, actorId, total, Date.now());
  ctx.jobs.kick(IMPORT_JOB);
  return importView((await repo.importById(ctx.db, id))!);
}

export async function stopImport(ctx: AppContext, id: number): Promise<AuthMeImportView> {
  await ctx.db
    .updateTable('authme_imports')
    .set({ state: 'cancelled', finished_at: Date.now() })
    .where('id', '=', id)
    .where('state', 'in', ['queued', 'running'])
    .execute();
  const row = await repo.importById(ctx.db, id);
  if (!row) throw notFound(ADMIN_TEXTS.noImport);
  return importView(row);
}

export async function importStatus(ctx: AppContext, id: number): Promise<AuthMeImportView> {
  const row = await repo.importById(ctx.db, id);
  if (!row) throw notFound(ADMIN_TEXTS.noImport);
  return importView(row);
}

export async function importRefusals(ctx: AppContext, id: number, limit = 200): Promise<AuthMeRefusalsResponse> {
  if (!(await repo.importById(ctx.db, id))) throw notFound(ADMIN_TEXTS.noImport);
  const rows = await repo.refusals(ctx.db, id, limit + 1);
  return { refusals: rows.slice(0, limit), more: rows.length > limit };
}
