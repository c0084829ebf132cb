import type { BanSourceBody, BanSourceCheck, BanSourceView } from '@kubik/contract';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { ownerOnly } from '../../lib/owner-only.ts';
import { SecretBox } from '../../lib/secret-box.ts';
import { defineSettings } from '../../lib/settings.ts';
import { AdvancedBanSource } from './bans.advancedban.ts';
import { LiteBansSource } from './bans.litebans.ts';
import { displayPluginUrl, PluginDb, PluginDbError, pluginDbKind } from './bans.plugin-db.ts';
import type { ExternalBanSource } from './bans.public.ts';

/**
 * The game plugin whose punishments /bans shows (Админ-панель → Баны → Список на сайте). The
 * address holds the database's password: sealed (lib/secret-box.ts) under a key named so the
 * audit log masks it, set by the owner alone and never shown back.
 */
const Stored = z.object({
  plugin: z.enum(['litebans', 'advancedban']).optional(),
  url_secret_sealed: z.string().optional(),
  table_prefix: z.string().optional(),
});

export const BanSourceDoc = defineSettings({ key: 'ban_source', schema: Stored, defaults: () => ({}) });

export const SOURCE_TEXTS = {
  ownerOnly: 'Адрес базы данных плагина меняет только владелец сайта: в нём пароль от базы',
  notConnected: 'База данных плагина не подключена: укажите её адрес',
} as const;

const DEFAULT_PREFIX = { litebans: 'litebans_', advancedban: '' } as const;

const boxes = new WeakMap<Readonly<Config>, SecretBox>();
function boxOf(config: Readonly<Config>): SecretBox {
  let box = boxes.get(config);
  if (!box) boxes.set(config, (box = new SecretBox(config.secretsKey, config.dataDir)));
  return box;
}

interface SourceConfig {
  plugin: 'litebans' | 'advancedban';
  url: string | null;
  prefix: string;
}

async function sourceConfig(ctx: AppContext): Promise<SourceConfig> {
  const s = await ctx.settings.get(BanSourceDoc);
  const plugin = s.plugin ?? 'litebans';
  const url = s.url_secret_sealed ? boxOf(ctx.config).open(s.url_secret_sealed) : null;
  const prefix = s.table_prefix !== undefined && /^[A-Za-z0-9_]{0,32}$/.test(s.table_prefix) ? s.table_prefix : DEFAULT_PREFIX[plugin];
  return { plugin, url: url && pluginDbKind(url) ? url : null, prefix };
}

/** One pool per app, made anew when the address, plugin or prefix changed. */
const held = new WeakMap<object, { key: string; db: PluginDb; source: ExternalBanSource }>();

function makeSource(cfg: SourceConfig, db: PluginDb): LiteBansSource | AdvancedBanSource {
  return cfg.plugin === 'litebans' ? new LiteBansSource(db, cfg.prefix) : new AdvancedBanSource(db, cfg.prefix);
}

/** The connected plugin's punishments, or null when none is connected. */
export async function externalSource(ctx: AppContext): Promise<ExternalBanSource | null> {
  const cfg = await sourceConfig(ctx);
  const key = JSON.stringify(cfg);
  const h = held.get(ctx);
  if (h?.key === key) return h.source;
  if (h) {
    held.delete(ctx);
    void h.db.close();
  }
  if (!cfg.url) return null;
  const db = new PluginDb(cfg.url);
  const source = makeSource(cfg, db);
  held.set(ctx, { key, db, source });
  return source;
}

export async function closeExternalSource(ctx: AppContext): Promise<void> {
  const h = held.get(ctx);
  held.delete(ctx);
  await h?.db.close();
}

export async function sourceView(ctx: AppContext, owner: boolean): Promise<BanSourceView> {
  const cfg = await sourceConfig(ctx);
  return {
    plugin: cfg.plugin,
    connected: cfg.url !== null,
    kind: cfg.url ? pluginDbKind(cfg.url) : null,
    display: owner && cfg.url ? displayPluginUrl(cfg.url) : null,
    table_prefix: cfg.prefix,
  };
}

export async function saveSource(ctx: AppContext, body: BanSourceBody, editor: { id: number; owner: boolean }): Promise<void> {
  if (body.database_url !== undefined && !editor.owner) throw ownerOnly(SOURCE_TEXTS.ownerOnly, 'database_url');
  const box = boxOf(ctx.config);
  await ctx.settings.set(
    BanSourceDoc,
    () => {
      const patch: Partial<z.input<typeof Stored>> = {};
      if (body.plugin !== undefined) patch.plugin = body.plugin;
      if (body.database_url !== undefined) patch.url_secret_sealed = body.database_url === null ? undefined : box.seal(body.database_url);
      if (body.table_prefix !== undefined) patch.table_prefix = body.table_prefix;
      return patch;
    },
    { actorId: editor.id },
  );
}

/** «Проверить подключение»: the connection, the login, each table the list reads. */
export async function checkSource(ctx: AppContext): Promise<BanSourceCheck> {
  const cfg = await sourceConfig(ctx);
  if (!cfg.url) return { ok: false, problems: [SOURCE_TEXTS.notConnected], notes: [] };
  // A pool of its own: the check must not wait for, nor pause, the public list's.
  const db = new PluginDb(cfg.url);
  try {
    const { problems, notes } = await makeSource(cfg, db).check();
    return { ok: problems.length === 0, problems, notes };
  } catch (err) {
    return { ok: false, problems: [err instanceof PluginDbError ? err.message : 'Ошибка базы данных плагина'], notes: [] };
  } finally {
    await db.close();
  }
}
