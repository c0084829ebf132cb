import { commandProblem, DEFAULT_RCON_PORT, type DeliverySource } from '@kubik/contract';
import type { Db } from '../../db/index.ts';
import { CommandError, paramProblem, type CommandParams } from '../../lib/rcon/command.ts';
import { insertDeliveries, serversWithRconPassword, type ServerRow } from './deliveries.repo.ts';

/**
 * Where a delivery goes: a server's id; several servers (one row each; an empty list means every
 * server with RCON); 'only' — the only server with RCON, resolved when it is sent (a shop item
 * without a server); 'all' — one row for every server with RCON at the time of the call.
 */
export type DeliveryTarget = number | readonly number[] | 'only' | 'all';

export interface DeliveryRequest {
  source: DeliverySource;
  /** The source's row (shop order, privilege, kit claim, ban), for the source's own lists. */
  sourceId: number | null;
  /** The player: {player} and {uuid} are filled from this account when the command is sent. */
  userId: number | null;
  /** Without an account (a guest's purchase): {player} is this nickname. */
  playerName?: string;
  /** What it is, for the admin and the player: «Алмаз», «VIP на 30 дней», «Бан». */
  label: string;
  server: DeliveryTarget;
  /**
   * Console command templates, run in order, each once (a delivery interrupted half-way resumes
   * at the command it stopped at). Placeholders: {player}, {uuid} and the names in `params`.
   * null: the server's command template (shop items without commands of their own).
   */
  commands: readonly string[] | null;
  /** Values of the other placeholders: numbers, Minecraft IDs ({item}), or one word of letters, digits and _ . : + - */
  params?: CommandParams;
  /** Units of the source (the shop: pieces bought); null for other sources. */
  quantity?: number | null;
  /** Not before this time (epoch ms); default now. */
  notBefore?: number;
}

export const MAX_COMMANDS = 20;

/** The job runner's name of the delivery worker. */
export const DELIVERY_JOB = 'deliveries';

/** After enqueueDelivery's transaction committed: send now rather than at the next pass. */
export function kickDeliveries(ctx: { jobs: { kick(name: string): void } }): void {
  ctx.jobs.kick(DELIVERY_JOB);
}

/** A server can receive deliveries: it has a password and an address to send to. */
export function rconConfigured(s: Pick<ServerRow, 'rcon_password' | 'rcon_host' | 'ip_address'>): boolean {
  return !!s.rcon_password && !!(s.rcon_host || s.ip_address);
}

/** The server delivers through the AzLink plugin (linked, and chosen so): the RCON worker leaves it alone. */
export function viaPlugin(s: Pick<ServerRow, 'delivery_channel' | 'link_token_hash'>): boolean {
  return s.delivery_channel === 'plugin' && s.link_token_hash !== null;
}

/** Servers that can receive deliveries: RCON configured, or the AzLink plugin linked and chosen. */
export async function rconServerIds(db: Db): Promise<number[]> {
  return (await serversWithRconPassword(db)).filter((s) => viaPlugin(s) || rconConfigured(s)).map((r) => r.id);
}

export interface RconTarget {
  id: number;
  name: string;
  host: string;
  port: number;
  password: string;
  template: string | null;
}

export function rconTarget(
  s: Pick<ServerRow, 'id' | 'name' | 'ip_address' | 'rcon_host' | 'rcon_port' | 'rcon_password' | 'command_template'>,
): RconTarget | null {
  if (!rconConfigured(s)) return null;
  return {
    id: s.id,
    name: s.name,
    host: s.rcon_host || s.ip_address,
    port: s.rcon_port ?? DEFAULT_RCON_PORT,
    password: s.rcon_password!,
    template: s.command_template,
  };
}

/** Refuses a request whose commands or values could never be sent, so the caller's transaction fails now rather than the delivery later. */
function check(req: DeliveryRequest): void {
  const params = req.params ?? {};
  if (req.label.trim() === '' || req.label.length > 200) throw new CommandError('Название выдачи: от 1 до 200 символов');
  if (req.commands !== null) {
    if (req.commands.length === 0 || req.commands.length > MAX_COMMANDS) throw new CommandError(`Выдача: от 1 до ${MAX_COMMANDS} команд`);
    const placeholders = ['player', 'uuid', ...Object.keys(params)];
    req.commands.forEach((c, i) => {
      const problem = commandProblem(c, { placeholders, label: `Команда ${i + 1}` });
      if (problem) throw new CommandError(problem);
    });
  }
  for (const [name, value] of Object.entries(params)) {
    if (!/^\w{1,32}$/.test(name) || name === 'player' || name === 'uuid') throw new CommandError(`Недопустимое имя подстановки {${name}}`);
    const problem = paramProblem(name, value);
    if (problem) throw new CommandError(problem);
  }
}

/**
 * Queues commands to run in the game, inside the caller's transaction: they are sent only if it
 * commits, and exactly once. Call `kickDeliveries(ctx)` after the commit to send at once rather
 * than at the next pass. Returns the ids of the rows (one per server).
 */
export async function enqueueDelivery(trx: Db, req: DeliveryRequest): Promise<number[]> {
  return enqueueDeliveries(trx, [req]);
}

/** Several deliveries in one insert (a purchase split into stacks). */
export async function enqueueDeliveries(trx: Db, requests: readonly DeliveryRequest[]): Promise<number[]> {
  if (requests.length === 0) return [];
  for (const req of requests) check(req);
  const now = Date.now();
  let rcon: number[] | null = null;
  const values = [];
  for (const req of requests) {
    let servers: (number | null)[];
    let scope: 'server' | 'only' | 'all';
    if (req.server === 'only') {
      servers = [null];
      scope = 'only';
    } else if (req.server === 'all' || (typeof req.server === 'object' && req.server.length === 0)) {
      rcon ??= await rconServerIds(trx);
      // None with RCON yet: one row that the worker fans out once there are some.
      servers = rcon.length > 0 ? rcon : [null];
      scope = 'all';
    } else {
      servers = typeof req.server === 'number' ? [req.server] : [...new Set(req.server)];
      scope = 'server';
    }
    for (const serverId of servers) {
      values.push({
        source: req.source,
        source_id: req.sourceId,
        user_id: req.userId,
        player_name: req.playerName ?? null,
        label: req.label.trim(),
        server_id: serverId,
        server_scope: scope,
        commands: req.commands === null ? null : JSON.stringify(req.commands.map((c) => c.trim())),
        params: JSON.stringify(req.params ?? {}),
        step: 0,
        quantity: req.quantity ?? null,
        state: 'pending',
        waiting: null,
        attempts: 0,
        retries: 0,
        next_attempt_at: req.notBefore ?? now,
        created_at: now,
        updated_at: now,
      });
    }
  }
  return insertDeliveries(trx, values);
}
