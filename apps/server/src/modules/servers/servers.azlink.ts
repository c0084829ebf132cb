import { createHash, randomInt } from 'node:crypto';
import type { ServerLinkSettingsBody } from '@kubik/contract';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { badRequest, forbidden, notFound, unauthorized } from '../../lib/errors.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { handToPlugin } from '../deliveries/deliveries.plugin.ts';
import { rconConfigured, viaPlugin } from '../deliveries/deliveries.queue.ts';
import { seenInGame } from '../users/users.ports.ts';
import * as repo from './servers.repo.ts';
import type { LinkCaller, ServerRow } from './servers.repo.ts';
import { LIST_CACHE_KEY } from './servers.service.ts';

/*
 * The site's side of Azuriom's AzLink plugin. The plugin is set up on the game server with
 * `/azlink setup <site> <token>` and then calls <site>/api/azlink every minute with the players
 * online; the answer holds the console commands to run. The token travels in the
 * `Azuriom-Link-Token` header only; the site keeps its sha256.
 */

export const AZLINK_TEXTS = {
  linked: 'Плагин подключён: выполните команду в консоли сервера',
  unlinked: 'Плагин отключён',
  notLinked: 'Плагин на этом сервере не подключён',
  settingsSaved: 'Настройки плагина сохранены',
  channelNeedsLink: 'Сначала подключите плагин: выдавать через него можно только на подключённый сервер',
  noToken: 'Нет ключа плагина: заголовок Azuriom-Link-Token',
  badToken: 'Неверный ключ плагина: выполните команду подключения из админ-панели заново',
  notFound: 'Сервер не найден',
} as const;

/** The most players one call may report: a body beyond it is not a game server's. */
export const MAX_REPORTED_PLAYERS = 2000;
/** The plugin's body: 2000 players are about 140 KB; 1 MB is refused before it is read in full. */
export const AZLINK_BODY_LIMIT = 256 * 1024;

const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const TOKEN_LENGTH = 48;

export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Letters and digits only: the owner pastes it into a console, where other characters may be mangled. */
function newToken(): string {
  let token = '';
  for (let i = 0; i < TOKEN_LENGTH; i++) token += TOKEN_ALPHABET[randomInt(TOKEN_ALPHABET.length)];
  return token;
}

const num = (min: number, max: number) => z.number().finite().min(min).max(max);
const text = (max: number) => z.string().max(max);

/**
 * What AzLink posts (its ServerData, serialized by Gson: absent fields are left out, not null).
 * Names follow Minecraft's rules, with the one-character prefix Floodgate gives Bedrock players.
 * Unknown fields are ignored: a newer plugin that reports more must still get its commands.
 */
export const AzLinkReport = z.object({
  platform: z
    .object({
      type: z.string().regex(/^[A-Z_]{1,32}$/),
      name: text(100).optional(),
      version: text(100).optional(),
    })
    .optional(),
  version: text(32).optional(),
  players: z
    .array(
      z.object({
        name: z.string().regex(/^[.*]?[A-Za-z0-9_]{1,16}$/, 'Недопустимое имя игрока'),
        uuid: z.string().regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'Недопустимый UUID игрока'),
      }),
    )
    .max(MAX_REPORTED_PLAYERS, `Не больше ${MAX_REPORTED_PLAYERS} игроков`),
  maxPlayers: z.number().int().min(-1).max(1_000_000).optional(),
  full: z.boolean().optional(),
  system: z.object({ ram: num(-1, 1e9), cpu: num(-1, 1e5) }).nullish(),
  worlds: z
    .object({ tps: num(-1, 1000), chunks: z.number().int().min(0).optional(), entities: z.number().int().min(0).optional() })
    .nullish(),
});
export type AzLinkReport = z.infer<typeof AzLinkReport>;

export const AzLinkAnswer = z.object({ commands: z.record(z.string(), z.array(z.string())) });
export type AzLinkAnswer = z.infer<typeof AzLinkAnswer>;

// --- The admin's side ------------------------------------------------------------------------

async function findRow(ctx: AppContext, trx: AppContext['db'], id: number): Promise<ServerRow> {
  const row = await repo.findServerRow(trx, id, ctx.dbKind);
  if (!row) throw notFound(AZLINK_TEXTS.notFound);
  return row;
}

/**
 * «Подключить плагин»: a new token (replacing any earlier one, whose plugin is refused from now
 * on) and the command to paste. A server without RCON delivers through the plugin at once.
 */
export async function linkServer(
  ctx: AppContext,
  actorId: number,
  id: number,
): Promise<{ token: string; command: string; row: ServerRow }> {
  const token = newToken();
  const row = await ctx.db.transaction().execute(async (trx) => {
    const before = await findRow(ctx, trx, id);
    const now = Date.now();
    const saved = await repo.saveServer(trx, id, {
      link_token_hash: sha256Hex(token),
      link_created_at: now,
      link_seen_at: null,
      link_data_at: null,
      delivery_channel: rconConfigured(before) ? before.delivery_channel : 'plugin',
      updated_at: now,
    });
    await recordAudit(trx, {
      actorId,
      action: 'server.link',
      entity: 'server',
      entityId: id,
      before: { plugin_linked: before.link_token_hash !== null, delivery_channel: before.delivery_channel },
      after: { plugin_linked: true, delivery_channel: saved.delivery_channel },
    });
    return saved;
  });
  return { token, command: `/azlink setup ${ctx.config.publicUrl} ${token}`, row };
}

/** «Отключить»: the token stops working; deliveries go back to RCON. */
export async function unlinkServer(ctx: AppContext, actorId: number, id: number): Promise<ServerRow> {
  const row = await ctx.db.transaction().execute(async (trx) => {
    const before = await findRow(ctx, trx, id);
    if (before.link_token_hash === null) throw badRequest(AZLINK_TEXTS.notLinked, { code: 'server_not_linked' });
    const saved = await repo.saveServer(trx, id, {
      link_token_hash: null,
      link_created_at: null,
      link_data_at: null,
      delivery_channel: 'rcon',
      updated_at: Date.now(),
    });
    await recordAudit(trx, {
      actorId,
      action: 'server.unlink',
      entity: 'server',
      entityId: id,
      before: { plugin_linked: true, delivery_channel: before.delivery_channel },
      after: { plugin_linked: false, delivery_channel: 'rcon' },
    });
    return saved;
  });
  await ctx.publicCache.invalidate(LIST_CACHE_KEY);
  return row;
}

/** Which way deliveries go, and the instant ping after a purchase. */
export async function saveLinkSettings(ctx: AppContext, actorId: number, id: number, body: ServerLinkSettingsBody): Promise<ServerRow> {
  return ctx.db.transaction().execute(async (trx) => {
    const before = await findRow(ctx, trx, id);
    if (body.delivery_channel === 'plugin' && before.link_token_hash === null)
      throw badRequest(AZLINK_TEXTS.channelNeedsLink, { code: 'server_not_linked', field: 'delivery_channel' });
    const saved = await repo.saveServer(trx, id, {
      ...(body.delivery_channel !== undefined && { delivery_channel: body.delivery_channel }),
      ...(body.instant_ping !== undefined && { link_ping: body.instant_ping ? 1 : 0 }),
      ...(body.ping_port !== undefined && { link_ping_port: body.ping_port }),
      updated_at: Date.now(),
    });
    const view = (r: ServerRow) => ({
      delivery_channel: r.delivery_channel,
      instant_ping: Number(r.link_ping) === 1,
      ping_port: r.link_ping_port,
    });
    await recordAudit(trx, {
      actorId,
      action: 'server.link_settings',
      entity: 'server',
      entityId: id,
      before: view(before),
      after: view(saved),
    });
    return saved;
  });
}

/** The owner's switch: AzLink's in-game registrations and changes make or update site accounts. */
export async function saveAccountsSwitch(ctx: AppContext, actorId: number, id: number, enabled: boolean): Promise<ServerRow> {
  return ctx.db.transaction().execute(async (trx) => {
    const before = await findRow(ctx, trx, id);
    const saved = await repo.saveServer(trx, id, { link_accounts: enabled ? 1 : 0, updated_at: Date.now() });
    await recordAudit(trx, {
      actorId,
      action: 'server.link_accounts',
      entity: 'server',
      entityId: id,
      before: { game_accounts: Number(before.link_accounts) === 1 },
      after: { game_accounts: enabled },
    });
    return saved;
  });
}

// --- The plugin's side -----------------------------------------------------------------------

/**
 * The server whose plugin calls: the token from the `Azuriom-Link-Token` header only (never a
 * query string). None → 401, one the site does not know → 403, as AzLink expects.
 */
export async function callingServer(ctx: AppContext, header: string | string[] | undefined): Promise<LinkCaller> {
  const token = Array.isArray(header) ? header[0] : header;
  if (!token) throw unauthorized(AZLINK_TEXTS.noToken, { code: 'azlink_no_token' });
  const row = token.length <= 200 ? await repo.serverByLinkHash(ctx.db, sha256Hex(token)) : undefined;
  if (!row) throw forbidden(AZLINK_TEXTS.badToken, { code: 'azlink_bad_token' });
  return row;
}

/** `GET /api/azlink` (setup, `/azlink status`): the link works. */
export async function noteStatusCall(ctx: AppContext, server: LinkCaller): Promise<void> {
  await repo.updateServerRow(ctx.db, server.id, { link_seen_at: Date.now() });
}

/** A new history point at most this often: the plugin may call every 5 seconds (`/azlink fetch`, instant pings). */
const HISTORY_EVERY_MS = 50_000;

const round = (v: number | null | undefined, digits: number) => (v == null || v < 0 ? null : Number(v.toFixed(digits)));

/**
 * `POST /api/azlink`: records what the plugin reports (the server is online with these players)
 * and answers the commands for the players it names, in one transaction (deliveries.plugin.ts).
 */
export async function answerFetch(
  ctx: AppContext,
  log: { warn(obj: object, msg: string): void },
  server: LinkCaller,
  report: AzLinkReport,
  now = Date.now(),
): Promise<AzLinkAnswer> {
  const names = report.players.map((p) => p.name);
  const full = report.full === true;
  const load = full ? { tps: round(report.worlds?.tps, 2), ram: round(report.system?.ram, 1), cpu: round(report.system?.cpu, 1) } : null;
  const sample = JSON.stringify(names.slice(0, 12));
  const changed = server.status !== 'online' || Number(server.online) !== names.length || server.players_sample !== sample;
  // The plugin may call every 5 seconds: a history point and «last seen» once a minute are enough.
  // link_data_at marks the last such minute, so calls in between do not push the next one away.
  const minuteOn = server.link_data_at == null || Number(server.link_data_at) <= now - HISTORY_EVERY_MS;
  const commands = await ctx.db.transaction().execute(async (trx) => {
    const change = {
      link_seen_at: now,
      ...(minuteOn && { link_data_at: now }),
      ...(report.platform && {
        link_platform: report.platform.type,
        link_platform_name: report.platform.name ?? null,
        link_platform_version: report.platform.version ?? null,
      }),
      ...(report.version !== undefined && { link_plugin_version: report.version }),
      link_players: JSON.stringify(names),
      ...(load && { link_tps: load.tps, link_ram: load.ram, link_cpu: load.cpu }),
      status: 'online',
      online: names.length,
      ...(report.maxPlayers !== undefined && { reported_max: report.maxPlayers > 0 ? report.maxPlayers : null }),
      players_sample: sample,
      fail_count: 0,
      last_error: null,
      last_checked_at: now,
    } as const;
    await repo.recordReport(
      trx,
      ctx.dbKind,
      server.id,
      change,
      load || minuteOn ? { at: now, online: names.length, load: load ?? undefined } : null,
    );
    return viaPlugin(server) ? handToPlugin(trx, { id: server.id, template: server.command_template }, report.players, now) : {};
  });
  if (changed) await ctx.publicCache.invalidate(LIST_CACHE_KEY);
  // Not awaited: the plugin's answer does not wait on it.
  if (names.length > 0 && minuteOn)
    void seenInGame.run(ctx.db, names, now).catch((err: unknown) => log.warn({ err }, 'players seen in game: not recorded'));
  return { commands };
}
