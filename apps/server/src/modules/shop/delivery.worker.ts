import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { sql, type ExpressionBuilder } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { Database } from '../../db/types.ts';
import { RconClient, RconError } from '../../lib/rcon/client.ts';
import { CommandError, judgeReply, renderCommand } from '../../lib/rcon/command.ts';
import { rconConfigured } from './shop.service.ts';

export interface DeliveryOptions {
  /** How often the queue is polled; also the first retry delay. */
  intervalMs: number;
  /** Connect-and-login deadline, and how long to wait for a command's answer. */
  timeoutMs: number;
}

export const DEFAULT_RCON_PORT = 25575;
const RETRY_CAP_MS = 10 * 60_000;

export const WORKER_TEXTS = {
  noServer: 'Не выбран сервер доставки: укажите сервер у товара или настройте RCON у одного сервера',
  serverGone: 'Сервер доставки удалён: выберите другой сервер у товара и выдайте повторно',
  noRcon: (name: string) => `На сервере «${name}» не настроен RCON`,
  unreachable: (name: string, why: string) => `Сервер «${name}» недоступен: ${why}`,
  badPassword: (name: string) => `Сервер «${name}» отклонил пароль RCON`,
  refused: 'Сервер отклонил команду',
  offline: 'Игрока нет в игре: выдадим, когда он зайдёт на сервер',
  noAnswer: (why: string) => `Сервер не ответил на команду (${why}) — она могла выполниться. Проверьте в игре, затем выдайте повторно или верните деньги.`,
  interrupted: 'Ответ сервера не получен: выдача прервалась — команда могла выполниться. Проверьте в игре, затем выдайте повторно или верните деньги.',
} as const;

/** Waits between attempts while a server or a player is unreachable: interval, ×2 each time, up to 10 min. */
export function retryDelayMs(retries: number, intervalMs: number): number {
  return Math.min(intervalMs * 2 ** Math.max(0, retries - 1), RETRY_CAP_MS);
}

/** A claim outlives the longest attempt (connect, then answer), so an expired one means its worker died. */
export const leaseMs = (o: DeliveryOptions) => 2 * o.timeoutMs + 30_000;

interface Target {
  id: number;
  name: string;
  host: string;
  port: number;
  password: string;
  template: string | null;
}

export interface DrainStats {
  done: number;
  failed: number;
  unknown: number;
  waiting: number;
}

const lockFree = (t: number) => (eb: ExpressionBuilder<Database, 'shop_deliveries'>) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', t)]);

/**
 * Sends every due delivery, one at a time. A row is claimed by a conditional update and moves to
 * 'sent' only after its server accepted the login, again conditionally on the claim: so several
 * instances never send one row twice, and a row is never 'sent' unless its command may have gone out.
 */
export async function drainDeliveries(db: Db, options: DeliveryOptions, log: FastifyBaseLogger, shouldStop: () => boolean = () => false, now = () => Date.now()): Promise<DrainStats> {
  const stats: DrainStats = { done: 0, failed: 0, unknown: 0, waiting: 0 };
  const lease = leaseMs(options);

  // A 'sent' row whose claim ran out lost its worker mid-command: it may have run, so it is not resent.
  const swept = await db
    .updateTable('shop_deliveries')
    .set({ state: 'unknown', last_error: WORKER_TEXTS.interrupted, lock_token: null, locked_until: null, updated_at: now() })
    .where('state', '=', 'sent')
    .where('sent_at', '<', now() - lease)
    .executeTakeFirst();
  stats.unknown += Number(swept.numUpdatedRows);

  const servers = new Map<number, Target | string>();
  let defaultServer: number | null | undefined;
  // Servers found unreachable in this run, with the reason: their rows wait without a new attempt.
  const down = new Map<number, string>();
  const conns = new Map<number, RconClient>();

  async function target(serverId: number | null): Promise<Target | string> {
    let id = serverId;
    if (id === null) {
      if (defaultServer === undefined) {
        const withRcon = (await db.selectFrom('servers').select(['id', 'rcon_password', 'rcon_host', 'ip_address']).where('rcon_password', 'is not', null).execute()).filter(rconConfigured);
        defaultServer = withRcon.length === 1 ? withRcon[0]!.id : null;
      }
      id = defaultServer;
      if (id === null) return WORKER_TEXTS.noServer;
    }
    const cached = servers.get(id);
    if (cached) return cached;
    const s = await db.selectFrom('servers').select(['id', 'name', 'ip_address', 'rcon_host', 'rcon_port', 'rcon_password', 'command_template']).where('id', '=', id).executeTakeFirst();
    const found: Target | string = !s
      ? WORKER_TEXTS.serverGone
      : !rconConfigured(s)
        ? WORKER_TEXTS.noRcon(s.name)
        : { id: s.id, name: s.name, host: s.rcon_host || s.ip_address, port: s.rcon_port ?? DEFAULT_RCON_PORT, password: s.rcon_password!, template: s.command_template };
    servers.set(id, found);
    return found;
  }

  async function deliverOne(row: { id: number; server_id: number | null; quantity: number; retries: number; order_id: number; item_id_minecraft: string; username: string }): Promise<void> {
    const token = randomUUID();
    const t = now();
    const claimed = await db
      .updateTable('shop_deliveries')
      .set({ lock_token: token, locked_until: t + lease })
      .where('id', '=', row.id)
      .where('state', '=', 'pending')
      .where('next_attempt_at', '<=', t)
      .where(lockFree(t))
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) return;

    const mine = () => db.updateTable('shop_deliveries').where('id', '=', row.id).where('lock_token', '=', token);
    const wait = async (message: string, reply?: string) => {
      const retries = Number(row.retries) + 1;
      stats.waiting += 1;
      await mine()
        .set({
          state: 'pending',
          lock_token: null,
          locked_until: null,
          retries,
          next_attempt_at: now() + retryDelayMs(retries, options.intervalMs),
          last_error: message,
          updated_at: now(),
          ...(reply !== undefined && { reply }),
        })
        .where('state', 'in', ['pending', 'sent'])
        .execute();
    };
    const settle = async (state: 'done' | 'failed' | 'unknown', fields: { reply?: string; last_error: string | null }) => {
      stats[state] += 1;
      await mine()
        .set({ state, lock_token: null, locked_until: null, updated_at: now(), ...fields, ...(state === 'done' && { done_at: now() }) })
        .where('state', 'in', ['pending', 'sent'])
        .execute();
    };

    const server = await target(row.server_id);
    if (typeof server === 'string') return wait(server);
    const isDown = down.get(server.id);
    if (isDown) return wait(isDown);

    let command: string;
    try {
      command = renderCommand(server.template, { player: row.username, item: row.item_id_minecraft, quantity: Number(row.quantity), order: row.order_id });
    } catch (err) {
      if (err instanceof CommandError) return settle('failed', { last_error: err.message });
      throw err;
    }

    let client = conns.get(server.id);
    if (!client || client.closed) {
      try {
        client = await RconClient.connect({ host: server.host, port: server.port, password: server.password, timeoutMs: options.timeoutMs });
        conns.set(server.id, client);
      } catch (err) {
        if (!(err instanceof RconError)) throw err;
        const message = err.kind === 'auth' ? WORKER_TEXTS.badPassword(server.name) : WORKER_TEXTS.unreachable(server.name, err.message);
        down.set(server.id, message);
        log.warn({ server: server.id, delivery: row.id }, message);
        return wait(message);
      }
    }

    const sent = await mine()
      .set({ state: 'sent', server_id: server.id, command, attempts: sql<number>`attempts + 1`, sent_at: now(), updated_at: now() })
      .where('state', '=', 'pending')
      .executeTakeFirst();
    // Refunded (or re-claimed after a lapse) in the meantime: not ours to send any more.
    if (Number(sent.numUpdatedRows) !== 1) return;

    let reply: string;
    try {
      reply = await client.command(command, options.timeoutMs);
    } catch (err) {
      conns.delete(server.id);
      client.close();
      // The connection had dropped before the command was written: nothing ran.
      if (err instanceof RconError && err.kind === 'connect') return wait(WORKER_TEXTS.unreachable(server.name, err.message));
      log.warn({ server: server.id, delivery: row.id }, 'delivery command got no answer');
      return settle('unknown', { last_error: WORKER_TEXTS.noAnswer(err instanceof Error ? err.message : String(err)) });
    }
    const text = reply.slice(0, 4000);
    const verdict = judgeReply(reply);
    if (verdict === 'offline') return wait(WORKER_TEXTS.offline, text);
    if (verdict === 'failed') return settle('failed', { reply: text, last_error: WORKER_TEXTS.refused });
    return settle('done', { reply: text, last_error: null });
  }

  try {
    for (;;) {
      if (shouldStop()) break;
      const t = now();
      const downIds = [...down.keys()];
      const due = await db
        .selectFrom('shop_deliveries as d')
        .innerJoin('shop_orders as o', 'o.id', 'd.order_id')
        .innerJoin('users as u', 'u.id', 'd.user_id')
        .select(['d.id', 'd.server_id', 'd.quantity', 'd.retries', 'd.order_id', 'o.item_id_minecraft', 'u.username'])
        .where('d.state', '=', 'pending')
        .where('d.next_attempt_at', '<=', t)
        .where((eb) => eb.or([eb('d.locked_until', 'is', null), eb('d.locked_until', '<', t)]))
        .$if(downIds.length > 0, (q) => q.where((eb) => eb.or([eb('d.server_id', 'is', null), eb('d.server_id', 'not in', downIds)])))
        .orderBy('d.id')
        .limit(20)
        .execute();
      if (due.length === 0) break;
      for (const row of due) {
        if (shouldStop()) break;
        await deliverOne(row);
      }
      // Rows of servers that went down during this pass wait too, without a connect each.
      for (const [serverId, message] of down) {
        const first = due.find((r) => r.server_id === serverId);
        const retries = Number(first?.retries ?? 0) + 1;
        const t2 = now();
        await db
          .updateTable('shop_deliveries')
          .set({ retries: sql<number>`retries + 1`, next_attempt_at: t2 + retryDelayMs(retries, options.intervalMs), last_error: message, updated_at: t2 })
          .where('state', '=', 'pending')
          .where('server_id', '=', serverId)
          .where('next_attempt_at', '<=', t2)
          .where(lockFree(t2))
          .execute();
      }
    }
  } finally {
    for (const c of conns.values()) c.close();
  }
  return stats;
}

/** Polls the delivery queue; kick() runs it at once (after a purchase or a resend). */
export class DeliveryWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly options: DeliveryOptions,
    private readonly log: FastifyBaseLogger,
  ) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), this.options.intervalMs);
    this.timer.unref();
    this.kick();
  }

  kick(): void {
    if (this.stopped || !this.timer) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.run()
      .catch((err: unknown) => this.log.error({ err }, 'delivery run failed'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async run(): Promise<void> {
    await drainDeliveries(this.db, this.options, this.log, () => this.stopped);
  }

  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.idle();
  }
}
