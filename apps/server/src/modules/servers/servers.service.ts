import { createHash } from 'node:crypto';
import {
  AZLINK_DEFAULT_PING_PORT,
  AZLINK_ONLINE_MS,
  DEFAULT_COMMAND_TEMPLATE,
  DEFAULT_RCON_PORT,
  HISTORY_BUCKETS,
  HISTORY_STEP_MS,
  type AdminServer,
  type PublicServer,
  type ServerBody,
  type ServerHistory,
  type ServerHistoryResponse,
  type ServerLink,
  type ServersListResponse,
  type RconCheckBody,
  type RconCheckResponse,
  type ServerUpdateBody,
} from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import type { Db, DbKind } from '../../db/index.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import { RconClient, RconError } from '../../lib/rcon/client.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { hiddenPlayers } from '../users/users.ports.ts';
import * as repo from './servers.repo.ts';
import type { ServerRow } from './servers.repo.ts';

export const TEXTS = {
  notFound: 'Сервер не найден',
  created: 'Сервер добавлен',
  updated: 'Сервер обновлён',
  updatedPasswordDropped: 'Сервер обновлён. Пароль RCON удалён, потому что сменился адрес RCON: введите его заново',
  deleted: 'Сервер удалён',
  inUse: 'Сервер нельзя удалить: к нему привязаны товары магазина или выдачи. Сначала перенесите их на другой сервер.',
  rconNoHost: 'Укажите адрес сервера или адрес RCON',
  rconNoPassword: 'Укажите пароль RCON',
  rconOk: (ms: number) => `RCON работает: вход выполнен, сервер ответил на list за ${ms} мс`,
  rconBadPassword: 'Неверный пароль RCON: сервер отклонил вход (проверьте rcon.password в server.properties)',
  rconNoAnswer: (ms: number) => `Вход выполнен, но сервер не ответил на list за ${ms} мс`,
  rconUnreachable: (why: string) => `Нет связи с RCON: ${why}`,
  rconPasswordDropped: 'Пароль RCON удалён, когда сменился адрес RCON: введите его заново',
  rconPasswordElsewhere: (address: string) =>
    `Сохранённый пароль RCON отправляется только на сохранённый адрес (${address}). Для другого адреса введите пароль`,
} as const;

/**
 * Where RCON listens: its own host, else the server's address; its port, else the standard one.
 * The stored password is bound to it: it goes nowhere else (a staff member with `servers` could
 * otherwise point RCON at a listener of their own and have the site log in there with it).
 */
function rconAddressOf(s: { ip_address: string; rcon_host: string | null; rcon_port: number | null }): { host: string; port: number } {
  return { host: s.rcon_host || s.ip_address, port: s.rcon_port ?? DEFAULT_RCON_PORT };
}

/** Host names ignore case and a final dot; an IPv6 address may come in brackets. */
function sameRconAddress(a: { host: string; port: number }, b: { host: string; port: number }): boolean {
  const norm = (h: string) =>
    h
      .trim()
      .toLowerCase()
      .replace(/^\[(.*)\]$/, '$1')
      .replace(/\.$/, '');
  return norm(a.host) === norm(b.host) && a.port === b.port;
}

function addressText({ host, port }: { host: string; port: number }): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The public list's key in ctx.publicCache. */
export const LIST_CACHE_KEY = 'servers';

function faviconUrl(row: ServerRow): string | null {
  if (!row.favicon) return null;
  const v = createHash('sha1').update(row.favicon).digest('base64url').slice(0, 10);
  return `/api/servers/${row.id}/favicon.png?v=${v}`;
}

function publicFields(row: ServerRow) {
  const online = row.status === 'online' ? row.online : 0;
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    image_url: row.image_url,
    ip_address: row.ip_address,
    port: row.port,
    // What the server itself reports, once a check succeeded; the owner's figure until then.
    max_online: row.reported_max ?? row.max_online,
    maxOnline: row.reported_max ?? row.max_online,
    online,
    current_online: online,
    status: row.status === 'online' ? ('online' as const) : ('offline' as const),
    version: row.version,
    motd: row.motd,
    last_checked_at: row.last_checked_at == null ? null : Number(row.last_checked_at),
    favicon_url: faviconUrl(row),
    players: row.status === 'online' ? sampleOf(row) : [],
  };
}

function sampleOf(row: ServerRow): string[] {
  return namesOf(row.players_sample).slice(0, 12);
}

function namesOf(json: string | null): string[] {
  if (!json) return [];
  try {
    const names: unknown = JSON.parse(json);
    return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
  } catch {
    return [];
  }
}

export function toAdmin(row: ServerRow): AdminServer {
  const hasPassword = !!row.rcon_password;
  return {
    ...publicFields(row),
    // The form edits the owner's own figure, not the one the server reports.
    max_online: row.max_online,
    maxOnline: row.max_online,
    fail_count: row.fail_count,
    last_error: row.last_error,
    rcon_host: row.rcon_host,
    rcon_port: row.rcon_port,
    command_template: row.command_template || DEFAULT_COMMAND_TEMPLATE,
    has_rcon_password: hasPassword,
    rcon_password_dropped_at: row.rcon_password_dropped_at == null ? null : Number(row.rcon_password_dropped_at),
    rcon_configured: hasPassword && !!(row.rcon_host || row.ip_address),
    delivery_channel: row.delivery_channel === 'plugin' && row.link_token_hash !== null ? 'plugin' : 'rcon',
    link: linkOf(row),
  };
}

/** The AzLink plugin's link as the admin's card shows it. */
export function linkOf(row: ServerRow, now = Date.now()): ServerLink {
  const num = (v: number | null) => (v == null ? null : Number(v));
  return {
    linked: row.link_token_hash !== null,
    linked_at: num(row.link_created_at),
    last_call_at: num(row.link_seen_at),
    online: row.link_token_hash !== null && linkOnline(row, now),
    platform: row.link_platform,
    platform_name: row.link_platform_name,
    platform_version: row.link_platform_version,
    plugin_version: row.link_plugin_version,
    players: namesOf(row.link_players),
    tps: num(row.link_tps),
    ram_mb: num(row.link_ram),
    cpu_percent: num(row.link_cpu),
    instant_ping: Number(row.link_ping) === 1,
    ping_port: row.link_ping_port ?? AZLINK_DEFAULT_PING_PORT,
    game_accounts: Number(row.link_accounts) === 1,
  };
}

/** The plugin reported the players within the last two minutes. */
export function linkOnline(row: Pick<ServerRow, 'link_data_at'>, now = Date.now()): boolean {
  return row.link_data_at != null && Number(row.link_data_at) > now - AZLINK_ONLINE_MS;
}

/** What the audit log keeps of a server: its settings, not the monitor's readings (recordAudit masks the password). */
function auditView(row: ServerRow) {
  const { name, description, image_url, ip_address, port, max_online, rcon_host, rcon_port, rcon_password, command_template } = row;
  return { name, description, image_url, ip_address, port, max_online, rcon_host, rcon_port, rcon_password, command_template };
}

/** Peak players online per half hour over the last 24 hours, for every server at once. */
async function recentHistory(db: Db, now: number): Promise<{ start: number; byServer: Map<number, (number | null)[]> }> {
  const start = (Math.floor(now / HISTORY_STEP_MS) - (HISTORY_BUCKETS - 1)) * HISTORY_STEP_MS;
  const rows = await repo.peaksOfAll(db, start, HISTORY_STEP_MS);
  const byServer = new Map<number, (number | null)[]>();
  for (const r of rows) {
    const bucket = Number(r.bucket);
    if (bucket < 0 || bucket >= HISTORY_BUCKETS) continue;
    let points = byServer.get(r.server_id);
    if (!points) byServer.set(r.server_id, (points = Array<number | null>(HISTORY_BUCKETS).fill(null)));
    points[bucket] = r.peak == null ? null : Number(r.peak);
  }
  return { start, byServer };
}

/** The public list: stored results only, never a ping. */
export async function buildPublicList(db: Db, now = Date.now()): Promise<ServersListResponse> {
  const [rows, history] = await Promise.all([repo.serversInOrder(db), recentHistory(db, now)]);
  const listed = rows.map(publicFields);
  // The game server names whoever it likes; the site's page leaves out players who hid their profile.
  const hidden = await hiddenPlayers.ask().names(
    db,
    listed.flatMap((s) => s.players),
  );
  const servers: PublicServer[] = listed.map((fields) => {
    const h: ServerHistory = {
      start: history.start,
      step_ms: HISTORY_STEP_MS,
      points: history.byServer.get(fields.id) ?? Array<number | null>(HISTORY_BUCKETS).fill(null),
    };
    return { ...fields, players: fields.players.filter((n) => !hidden.has(n.toLowerCase())), history: h };
  });
  return { servers, total_online: servers.reduce((sum, s) => sum + s.online, 0) };
}

export async function listForAdmin(db: Db): Promise<AdminServer[]> {
  return (await repo.serversInOrder(db)).map(toAdmin);
}

/** A server's row, or 404; `lockOn: 'pg'` locks it for the caller's transaction. */
async function findRow(db: Db, id: number, lockOn?: DbKind): Promise<ServerRow> {
  const row = await repo.findServerRow(db, id, lockOn);
  if (!row) throw notFound(TEXTS.notFound);
  return row;
}

/** A stored RCON port: the given one, else the standard one once a password is set. */
function rconPortFor(port: number | null | undefined, password: string | null): number | null {
  if (port != null) return port;
  return password ? DEFAULT_RCON_PORT : null;
}

/** Inserts a server in the caller's transaction (the admin's form, or setup's first server). */
export async function insertServer(trx: Db, actorId: number, input: ServerBody): Promise<ServerRow> {
  const now = Date.now();
  const password = input.rcon_password || null;
  const created = await repo.insertServerRow(trx, {
    name: input.name,
    description: input.description,
    image_url: input.image_url,
    ip_address: input.ip_address,
    port: input.port,
    max_online: input.max_online,
    online: 0,
    status: 'offline',
    fail_count: 0,
    rcon_host: input.rcon_host ?? null,
    rcon_port: rconPortFor(input.rcon_port, password),
    rcon_password: password,
    command_template: input.command_template ?? DEFAULT_COMMAND_TEMPLATE,
    sort_order: 0,
    created_at: now,
    updated_at: now,
  });
  await recordAudit(trx, { actorId, action: 'server.create', entity: 'server', entityId: created.id, after: auditView(created) });
  return created;
}

export async function createServer(ctx: AppContext, actorId: number, input: ServerBody): Promise<ServerRow> {
  const row = await ctx.db.transaction().execute((trx) => insertServer(trx, actorId, input));
  await ctx.publicCache.invalidate(LIST_CACHE_KEY);
  return row;
}

export async function updateServer(
  ctx: AppContext,
  actorId: number,
  id: number,
  input: ServerUpdateBody,
): Promise<{ row: ServerRow; addressChanged: boolean; passwordDropped: boolean }> {
  const result = await ctx.db.transaction().execute(async (trx) => {
    const before = await findRow(trx, id, ctx.dbKind);
    const now = Date.now();
    const ip = input.ip_address ?? before.ip_address;
    const port = input.port ?? before.port;
    const addressChanged = ip !== before.ip_address || port !== before.port;
    const rconHost = input.rcon_host === undefined ? before.rcon_host : input.rcon_host;
    const rconPort = input.rcon_port === undefined ? before.rcon_port : input.rcon_port;
    // '' or omitted keeps the stored password — for the RCON address it was typed for: a changed
    // address drops it (rconAddressOf) unless a new one comes in this save. null removes it.
    const typed = input.rcon_password !== undefined && input.rcon_password !== null && input.rcon_password !== '';
    const moved = !sameRconAddress(rconAddressOf(before), rconAddressOf({ ip_address: ip, rcon_host: rconHost, rcon_port: rconPort }));
    const dropped = !typed && input.rcon_password !== null && moved && before.rcon_password !== null;
    const password = input.rcon_password === null || dropped ? null : typed ? input.rcon_password! : before.rcon_password;
    const droppedAt = dropped ? now : typed || input.rcon_password === null ? null : before.rcon_password_dropped_at;
    const row = await repo.saveServer(trx, id, {
      name: input.name,
      description: input.description,
      image_url: input.image_url ?? before.image_url,
      ip_address: ip,
      port,
      max_online: input.max_online ?? before.max_online,
      rcon_host: rconHost,
      rcon_port: rconPortFor(rconPort, password),
      rcon_password: password,
      rcon_password_dropped_at: droppedAt,
      command_template:
        input.command_template === undefined
          ? (before.command_template ?? DEFAULT_COMMAND_TEMPLATE)
          : (input.command_template ?? DEFAULT_COMMAND_TEMPLATE),
      updated_at: now,
      // Readings of the old address say nothing about the new one.
      ...(addressChanged
        ? {
            status: 'offline',
            online: 0,
            reported_max: null,
            fail_count: 0,
            last_checked_at: null,
            checking_until: null,
            version: null,
            motd: null,
            favicon: null,
            last_error: null,
          }
        : {}),
    });
    await recordAudit(trx, {
      actorId,
      action: 'server.update',
      entity: 'server',
      entityId: id,
      before: auditView(before),
      // Named without «password», which the audit log masks.
      after: { ...auditView(row), ...(dropped ? { rcon_key_dropped_at: now } : {}) },
    });
    return { row, addressChanged, passwordDropped: dropped };
  });
  await ctx.publicCache.invalidate(LIST_CACHE_KEY);
  return result;
}

function isForeignKeyViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  return !!e && (e.code === '23503' || e.code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || /FOREIGN KEY constraint failed/.test(e.message ?? ''));
}

export async function deleteServer(ctx: AppContext, actorId: number, id: number): Promise<void> {
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const before = await findRow(trx, id);
      await repo.deleteServerRow(trx, id);
      await recordAudit(trx, { actorId, action: 'server.delete', entity: 'server', entityId: id, before: auditView(before) });
    });
  } catch (err) {
    if (isForeignKeyViolation(err)) throw conflict(TEXTS.inUse, { code: 'server_in_use' });
    throw err;
  }
  await ctx.publicCache.invalidate(LIST_CACHE_KEY);
}

export async function favicon(db: Db, id: number): Promise<Buffer> {
  const row = await repo.faviconOf(db, id);
  const data = row?.favicon?.match(/^data:image\/png;base64,([A-Za-z0-9+/=]+)$/)?.[1];
  if (!data) throw notFound('У сервера нет значка');
  return Buffer.from(data, 'base64');
}

/** Peak online per bucket over the last `hours`, at most ~300 points whatever the period. */
export async function history(db: Db, id: number, hours: number, now = Date.now()): Promise<ServerHistoryResponse> {
  await findRow(db, id);
  const from = now - hours * 3_600_000;
  const step = Math.max(60_000, Math.ceil((hours * 3_600_000) / 288 / 60_000) * 60_000);
  const rows = await repo.peaksOf(db, id, from, step);
  return {
    id,
    from,
    to: now,
    points: rows.map((r) => ({ at: from + Number(r.bucket) * step, online: r.peak == null ? null : Number(r.peak) })),
  };
}

/** Checks per admin per rate-limit window: each one may hold a connection for up to RCON_TIMEOUT_MS. */
export const RCON_CHECKS_PER_WINDOW = 60;

/**
 * «Проверить RCON»: logs in with the form's settings (or the stored ones for what it leaves out)
 * and runs `list`. Answers what the server said, or exactly why it could not.
 */
export async function checkRcon(ctx: AppContext, body: RconCheckBody): Promise<RconCheckResponse> {
  const stored = body.server_id === undefined ? null : await findRow(ctx.db, body.server_id);
  const ip = body.ip_address ?? stored?.ip_address ?? '';
  const rconHost = body.rcon_host !== undefined ? body.rcon_host : (stored?.rcon_host ?? null);
  const rconPort = body.rcon_port !== undefined ? body.rcon_port : (stored?.rcon_port ?? null);
  const { host, port } = rconAddressOf({ ip_address: ip, rcon_host: rconHost, rcon_port: rconPort });
  // As when saving: an empty password keeps the stored one, which goes only to the stored address.
  const keep = body.rcon_password === undefined || body.rcon_password === '';
  if (!host) throw badRequest(TEXTS.rconNoHost, { code: 'invalid', field: 'ip_address' });
  if (keep && stored?.rcon_password && !sameRconAddress(rconAddressOf(stored), { host, port }))
    throw badRequest(TEXTS.rconPasswordElsewhere(addressText(rconAddressOf(stored))), { code: 'invalid', field: 'rcon_password' });
  const password = keep ? (stored?.rcon_password ?? null) : body.rcon_password;
  if (!password) {
    const text = keep && stored?.rcon_password_dropped_at != null ? TEXTS.rconPasswordDropped : TEXTS.rconNoPassword;
    throw badRequest(text, { code: 'invalid', field: 'rcon_password' });
  }
  const address = addressText({ host, port });
  const timeoutMs = ctx.config.delivery.timeoutMs;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let client: RconClient | null = null;
  try {
    client = await RconClient.connect({ host, port, password, timeoutMs });
    const reply = await client.command('list', timeoutMs);
    return { ok: true, message: TEXTS.rconOk(elapsed()), reply: reply.slice(0, 4000), address, elapsed_ms: elapsed() };
  } catch (err) {
    if (!(err instanceof RconError)) throw err;
    const message =
      err.kind === 'auth'
        ? TEXTS.rconBadPassword
        : err.kind === 'noanswer'
          ? TEXTS.rconNoAnswer(timeoutMs)
          : TEXTS.rconUnreachable(err.message);
    return { ok: false, message, reply: null, address, elapsed_ms: elapsed() };
  } finally {
    client?.close();
  }
}
