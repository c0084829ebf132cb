import {
  AUTHME_COLUMN_KEYS,
  AUTHME_COLUMN_TEXT,
  SQL_NAME_RE,
  type AuthMeColumnKey,
  type AuthMeSettingsBody,
  type AuthMeSource,
} from '@kubik/contract';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { urlWithoutPassword } from '../../lib/database-url.ts';
import { badRequest, forbidden } from '../../lib/errors.ts';
import { authMeAlgorithmInfo, parseAuthMeAlgorithm, unsupportedAuthMeAlgorithm, type AuthMeAlgorithm } from '../../lib/authme/hashes.ts';
import type { AuthMeSettings } from '../../lib/authme/method.ts';
import { SecretBox } from '../../lib/secret-box.ts';
import { defineSettings } from '../../lib/settings.ts';

/**
 * AuthMe's connection as the owner set it in Админ-панель → AuthMe, over the environment
 * (AUTHME_DATABASE_URL, AUTHME_TABLE, AUTHME_HASH) and AuthMe's own defaults. The address holds
 * the database's password: it is sealed (lib/secret-box.ts) under a key named so the audit log
 * masks it, set by the owner alone and never shown back.
 */
const Stored = z.object({
  url_secret_sealed: z.string().optional(),
  table: z.string().optional(),
  columns: z.record(z.string(), z.string()).optional(),
  hash: z.string().optional(),
  legacy_hashes: z.array(z.string()).optional(),
  bcrypt_cost: z.number().optional(),
  pbkdf2_rounds: z.number().optional(),
  salted_md5_length: z.number().optional(),
  lock_on_ban: z.boolean().optional(),
});
type Stored = z.infer<typeof Stored>;

export const AuthMeSettingsDoc = defineSettings({ key: 'authme', schema: Stored, defaults: () => ({}) });

export type BackendKind = 'mysql' | 'postgres' | 'sqlite';

/** AuthMe's table as the site meets it: where, which columns, which algorithm it writes and reads. */
export interface AuthMeConfig {
  url: string;
  urlSource: 'set' | 'env';
  kind: BackendKind;
  table: string;
  columns: Record<AuthMeColumnKey, string>;
  /** The algorithm the site writes (and reads first); null when AuthMe's name is not one the site knows. */
  hash: AuthMeAlgorithm | null;
  hashName: string;
  /** Read too, after `hash` (AuthMe's legacyHashes). */
  legacy: AuthMeAlgorithm[];
  hashSettings: AuthMeSettings;
  lockOnBan: boolean;
  /** Changes whenever anything the connection depends on changes: a new pool then. */
  key: string;
}

export const DEFAULT_HASH = 'BCRYPT';
export const DEFAULT_TABLE = 'authme';

const boxes = new WeakMap<Readonly<Config>, SecretBox>();
function boxOf(config: Readonly<Config>): SecretBox {
  let box = boxes.get(config);
  if (!box) boxes.set(config, (box = new SecretBox(config.secretsKey, config.dataDir)));
  return box;
}

export function backendOf(url: string): BackendKind | null {
  if (/^(mysql|mariadb):\/\//i.test(url)) return 'mysql';
  if (/^postgres(ql)?:\/\//i.test(url)) return 'postgres';
  if (/^sqlite:/i.test(url)) return 'sqlite';
  return null;
}

/** The address without its password, for the owner's eyes: mysql://kubik:•••@db:3306/authme. */
export function displayUrl(url: string): string {
  return backendOf(url) === 'sqlite' ? url : urlWithoutPassword(url);
}

function columnsOf(stored: Record<string, string> | undefined): Record<AuthMeColumnKey, string> {
  const out = {} as Record<AuthMeColumnKey, string>;
  for (const k of AUTHME_COLUMN_KEYS) {
    const v = stored?.[k];
    out[k] = v !== undefined && (v === '' ? k === 'salt' : SQL_NAME_RE.test(v)) ? v : AUTHME_COLUMN_TEXT[k].default;
  }
  return out;
}

/** The stored document and the environment, made into one config; null while no address is set. */
export function resolveConfig(config: Readonly<Config>, s: Stored): AuthMeConfig | null {
  const sealed = s.url_secret_sealed ? boxOf(config).open(s.url_secret_sealed) : null;
  const url = sealed ?? config.authme.databaseUrl;
  if (!url) return null;
  const kind = backendOf(url);
  if (!kind) return null;
  const envTable = config.authme.table && SQL_NAME_RE.test(config.authme.table) ? config.authme.table : undefined;
  const table = s.table && SQL_NAME_RE.test(s.table) ? s.table : (envTable ?? DEFAULT_TABLE);
  const hashName = s.hash ?? config.authme.hash ?? DEFAULT_HASH;
  const hash = parseAuthMeAlgorithm(hashName);
  const legacy = (s.legacy_hashes ?? []).map(parseAuthMeAlgorithm).filter((a): a is AuthMeAlgorithm => a !== null && a !== hash);
  const columns = columnsOf(s.columns);
  const hashSettings: AuthMeSettings = {
    bcryptCost: s.bcrypt_cost ?? 12,
    pbkdf2Rounds: s.pbkdf2_rounds ?? 10_000,
    saltedMd5Length: s.salted_md5_length ?? 8,
  };
  return {
    url,
    urlSource: sealed ? 'set' : 'env',
    kind,
    table,
    columns,
    hash,
    hashName,
    legacy,
    hashSettings,
    lockOnBan: s.lock_on_ban ?? false,
    key: JSON.stringify([url, table, columns]),
  };
}

export async function authMeConfig(ctx: AppContext): Promise<AuthMeConfig | null> {
  return resolveConfig(ctx.config, await ctx.settings.get(AuthMeSettingsDoc));
}

/** Why the configured algorithm cannot be used as set (for the owner), or null. */
export function hashProblem(cfg: AuthMeConfig): string | null {
  if (!cfg.hash) return unsupportedAuthMeAlgorithm(cfg.hashName);
  if (authMeAlgorithmInfo(cfg.hash).salt === 'column' && cfg.columns.salt === '')
    return `${cfg.hash} хранит соль в отдельном столбце: укажите его (в config.yml AuthMe — DataSource.mySQLColumnSalt)`;
  return null;
}

/** Where each shown setting comes from. */
export function sourcesOf(config: Readonly<Config>, s: Stored): { table: AuthMeSource; hash: AuthMeSource } {
  return {
    table: s.table ? 'set' : config.authme.table ? 'env' : 'default',
    hash: s.hash ? 'set' : config.authme.hash ? 'env' : 'default',
  };
}

export async function storedSettings(ctx: AppContext): Promise<Stored> {
  return ctx.settings.get(AuthMeSettingsDoc);
}

/**
 * Applies the owner's changes. The address is sealed before it is stored, and only the owner
 * changes it (staff 403 owner_only); null returns it to AUTHME_DATABASE_URL. An algorithm AuthMe
 * does not have, or one the site cannot follow, is refused with the reason beside the field.
 */
export async function saveSettings(ctx: AppContext, body: AuthMeSettingsBody, editor: { id: number; owner: boolean }): Promise<void> {
  if (body.database_url !== undefined && !editor.owner)
    throw forbidden('Адрес базы данных AuthMe меняет только владелец сайта: в нём пароль от базы', {
      code: 'owner_only',
      field: 'database_url',
    });
  if (body.hash) {
    const why = parseAuthMeAlgorithm(body.hash) ? null : unsupportedAuthMeAlgorithm(body.hash);
    if (why) throw badRequest(why, { code: 'invalid', field: 'hash' });
  }
  for (const [i, name] of (body.legacy_hashes ?? []).entries()) {
    const why = parseAuthMeAlgorithm(name) ? null : unsupportedAuthMeAlgorithm(name);
    if (why) throw badRequest(why, { code: 'invalid', field: `legacy_hashes.${i}` });
  }
  const box = boxOf(ctx.config);
  await ctx.settings.set(
    AuthMeSettingsDoc,
    (stored) => {
      const patch: Partial<Stored> = {};
      if (body.database_url !== undefined) patch.url_secret_sealed = body.database_url === null ? undefined : box.seal(body.database_url);
      if (body.table !== undefined) patch.table = body.table ?? undefined;
      if (body.columns) patch.columns = { ...stored.columns, ...body.columns };
      if (body.hash !== undefined) patch.hash = body.hash === null ? undefined : parseAuthMeAlgorithm(body.hash)!;
      if (body.legacy_hashes) patch.legacy_hashes = body.legacy_hashes.map((n) => parseAuthMeAlgorithm(n)!);
      if (body.bcrypt_cost !== undefined) patch.bcrypt_cost = body.bcrypt_cost;
      if (body.pbkdf2_rounds !== undefined) patch.pbkdf2_rounds = body.pbkdf2_rounds;
      if (body.salted_md5_length !== undefined) patch.salted_md5_length = body.salted_md5_length;
      if (body.lock_on_ban !== undefined) patch.lock_on_ban = body.lock_on_ban;
      return patch;
    },
    { actorId: editor.id },
  );
}
