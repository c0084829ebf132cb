import { randomUUID } from 'node:crypto';
import type { DeliveryWaiting } from '@kubik/contract';
import type { FastifyBaseLogger } from 'fastify';
import { sql, type Selectable } from 'kysely';
import type { Db } from '../../db/index.ts';
import { isPg } from '../../db/schema-helpers.ts';
import { backoffMs } from '../../lib/backoff.ts';
import { RconClient, RconError } from '../../lib/rcon/client.ts';
import { CommandError, judgeReply, renderCommand, type CommandParams } from '../../lib/rcon/command.ts';
import { rconServerIds, rconTarget, type RconTarget } from './deliveries.queue.ts';
import type { DeliveriesTable } from './deliveries.tables.ts';

export interface DeliveryOptions {
  /** How often the queue is polled; also the first retry delay. */
  intervalMs: number;
  /** Connect-and-login deadline, and how long to wait for a command's answer. */
  timeoutMs: number;
  /** Rows one worker claims at a time for one server. */
  batchSize?: number;
  /** An idle connection to a game server is closed after this long. */
  idleCloseMs?: number;
  /** The clock (tests move it forward). */
  now?: () => number;
}

const RETRY_CAP_MS = 10 * 60_000;
/** A player who is not in the game is looked for again at least this often: they may join any minute. */
const OFFLINE_CAP_MS = 2 * 60_000;
const DEFAULT_BATCH = 100;

export const WORKER_TEXTS = {
  noServer: 'Не выбран сервер доставки: укажите сервер у товара или настройте RCON у одного сервера',
  noRconServers: 'Нет серверов с настроенным RCON: выдадим, когда он появится',
  serverGone: 'Сервер доставки удалён: выберите другой сервер и выдайте повторно',
  noRcon: (name: string) => `На сервере «${name}» не настроен RCON`,
  unreachable: (name: string, why: string) => `Сервер «${name}» недоступен: ${why}`,
  badPassword: (name: string) => `Сервер «${name}» отклонил пароль RCON`,
  refused: 'Сервер отклонил команду',
  offline: 'Игрока нет в игре: выдадим, когда он зайдёт на сервер',
  noAnswer: (why: string) =>
    `Сервер не ответил на команду (${why}) — она могла выполниться. Проверьте в игре, затем выдайте повторно или верните деньги.`,
  interrupted:
    'Ответ сервера не получен: выдача прервалась — команда могла выполниться. Проверьте в игре, затем выдайте повторно или верните деньги.',
} as const;

/** Waits between attempts while a server or a player is unreachable: interval, ×2 each time, up to a cap. */
export function retryDelayMs(retries: number, intervalMs: number, cap = RETRY_CAP_MS): number {
  return backoffMs(retries, { baseMs: intervalMs, capMs: cap });
}

/** A 'sent' row older than this lost its worker mid-command (the longest attempt is a connect and an answer). */
export const leaseMs = (o: Pick<DeliveryOptions, 'timeoutMs'>) => 2 * o.timeoutMs + 30_000;

export interface DrainStats {
  done: number;
  failed: number;
  unknown: number;
  waiting: number;
}

type Row = Selectable<DeliveriesTable> & { username: string | null; uuid: string | null };

/** The state a row is left in after a command, written together with the next command's 'sent'. */
type Outcome =
  | { kind: 'done'; row: Row; reply: string }
  | { kind: 'step'; row: Row; reply: string }
  | { kind: 'failed'; row: Row; reply?: string; error: string }
  | { kind: 'unknown'; row: Row; error: string }
  | { kind: 'wait'; row: Row; waiting: DeliveryWaiting; error: string; reply?: string }
  /** Marked 'sent' but never written to the server (the connection broke before, or the worker is stopping). */
  | { kind: 'unsent'; row: Row };

interface Item {
  row: Row;
  step: number;
  commands: string[] | null;
}

/** The most rows marked 'sent' in one commit (what a crash can leave 'unknown'). */
const MAX_WINDOW = 8;

const ewma = (avg: number, sample: number) => avg * 0.8 + sample * 0.2;

interface Connection {
  client: RconClient;
  key: string;
  idle: NodeJS.Timeout | null;
}

interface Lane {
  /** Asked to look for work once more before it ends (a kick came while it ran). */
  again: boolean;
  done: Promise<void>;
}

/**
 * Sends the delivery queue to the game servers. Each server with due rows gets a lane of its own:
 * one connection, kept open, and one command at a time (as RCON requires), so that a slow or silent
 * server holds back nothing but itself. A lane claims due rows in batches by one conditional update
 * (FOR UPDATE SKIP LOCKED on PostgreSQL), marks rows 'sent' before their commands go out and
 * writes outcomes in the same transaction as the next rows' 'sent' (see sendBatch), and several
 * instances never send one row twice. It runs as the job runner's 'deliveries' job
 * (deliveries.routes.ts): each pass is one `tick()`.
 */
export class DeliveryWorker {
  readonly stats: DrainStats = { done: 0, failed: 0, unknown: 0, waiting: 0 };
  private readonly lanes = new Map<number, Lane>();
  private readonly conns = new Map<number, Connection>();
  private readonly token = randomUUID();
  private readonly now: () => number;
  private readonly batch: number;
  private readonly lease: number;
  private readonly pg: boolean;
  private stopped = false;
  /** Running averages (ms) of a commit and of a command's answer: they set the window. */
  private commitMs = 0;
  private commandMs = 1;
  private watching = false;
  private ticking: Promise<void> | null = null;
  private tickAgain = false;

  constructor(
    private readonly db: Db,
    private readonly options: DeliveryOptions,
    private readonly log: FastifyBaseLogger,
  ) {
    this.now = options.now ?? Date.now;
    this.batch = options.batchSize ?? DEFAULT_BATCH;
    this.lease = leaseMs(options);
    this.pg = isPg(db as never);
  }

  /**
   * One look at the queue: starts a lane for every server with due rows; does not wait for the
   * lanes (a slow server's lane must not hold back the next look for the others). `signal`, the
   * job runner's, stops the lanes after the command at hand.
   */
  async tick(signal?: AbortSignal): Promise<void> {
    if (signal && !this.watching) {
      this.watching = true;
      if (signal.aborted) this.stopped = true;
      else signal.addEventListener('abort', () => (this.stopped = true), { once: true });
    }
    if (this.stopped) return;
    if (this.ticking) {
      this.tickAgain = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      do {
        this.tickAgain = false;
        await this.pass();
      } while (this.tickAgain && !this.stopped);
    })().finally(() => {
      this.ticking = null;
    });
    return this.ticking;
  }

  /** Runs until nothing is due (tests, the benchmark): ticks and waits for every lane. */
  async drain(): Promise<DrainStats> {
    for (let i = 0; i < 1000 && !this.stopped; i++) {
      await this.tick();
      if (this.lanes.size === 0) break;
      await Promise.all([...this.lanes.values()].map((l) => l.done));
    }
    return this.stats;
  }

  async idle(): Promise<void> {
    while (this.ticking || this.lanes.size > 0) {
      await this.ticking;
      await Promise.all([...this.lanes.values()].map((l) => l.done));
    }
  }

  /** Lets each lane finish the command it is on, gives back unsent claims, closes connections (the job's release). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle();
    for (const id of [...this.conns.keys()]) this.closeConnection(id);
  }

  private async pass(): Promise<void> {
    const t = this.now();
    // A 'sent' row whose claim ran out lost its worker mid-command: it may have run, so it is not resent.
    const swept = await this.db
      .updateTable('deliveries')
      .set({ state: 'unknown', last_error: WORKER_TEXTS.interrupted, lock_token: null, locked_until: null, updated_at: t })
      .where('state', '=', 'sent')
      .where('sent_at', '<', t - this.lease)
      .executeTakeFirst();
    this.stats.unknown += Number(swept.numUpdatedRows);
    await this.resolveUnassigned(t);

    const due = await this.db
      .selectFrom('deliveries')
      .select('server_id')
      .distinct()
      .where('state', '=', 'pending')
      .where('server_id', 'is not', null)
      .where('next_attempt_at', '<=', t)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', t)]))
      .execute();
    for (const { server_id } of due) {
      const id = server_id!;
      const running = this.lanes.get(id);
      if (running) {
        running.again = true;
        continue;
      }
      if (this.stopped) break;
      const lane: Lane = { again: false, done: Promise.resolve() };
      lane.done = this.runLane(id, lane)
        .catch((err: unknown) => this.log.error({ err, server: id }, 'delivery lane failed'))
        .finally(() => this.lanes.delete(id));
      this.lanes.set(id, lane);
    }
  }

  /** Rows without a server yet: 'only' gets the only server with RCON, 'all' is fanned out to every one. */
  private async resolveUnassigned(t: number): Promise<void> {
    const unassigned = (scope: 'only' | 'all') =>
      this.db
        .updateTable('deliveries')
        .where('state', '=', 'pending')
        .where('server_id', 'is', null)
        .where('server_scope', scope === 'all' ? '=' : '!=', 'all')
        .where('next_attempt_at', '<=', t)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', t)]));
    const due = await this.db
      .selectFrom('deliveries')
      .select(['server_scope', (eb) => eb.fn.max('retries').as('retries'), (eb) => eb.fn.countAll<number>().as('n')])
      .where('state', '=', 'pending')
      .where('server_id', 'is', null)
      .where('next_attempt_at', '<=', t)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', t)]))
      .groupBy('server_scope')
      .execute();
    if (due.length === 0) return;
    const servers = await rconServerIds(this.db);
    for (const group of due) {
      const all = group.server_scope === 'all';
      if (!all && servers.length === 1) {
        await unassigned('only').set({ server_id: servers[0]!, updated_at: t }).execute();
      } else if (all && servers.length > 0) {
        await this.fanOut(t, servers);
      } else {
        // Nothing to send to: they all wait together, without a row-by-row update.
        const retries = Number(group.retries ?? 0) + 1;
        const res = await unassigned(all ? 'all' : 'only')
          .set({
            waiting: 'no_server',
            last_error: all ? WORKER_TEXTS.noRconServers : WORKER_TEXTS.noServer,
            retries: sql<number>`retries + 1`,
            next_attempt_at: t + retryDelayMs(retries, this.options.intervalMs),
            updated_at: t,
          })
          .executeTakeFirst();
        this.stats.waiting += Number(res.numUpdatedRows);
      }
    }
  }

  /** A row for "every server with RCON" made when there was none becomes one row per server. */
  private async fanOut(t: number, servers: number[]): Promise<void> {
    const rows = await this.db
      .selectFrom('deliveries')
      .selectAll()
      .where('state', '=', 'pending')
      .where('server_id', 'is', null)
      .where('server_scope', '=', 'all')
      .where('next_attempt_at', '<=', t)
      .limit(100)
      .execute();
    for (const row of rows) {
      await this.db.transaction().execute(async (trx) => {
        const taken = await trx
          .updateTable('deliveries')
          .set({ server_id: servers[0]!, waiting: null, last_error: null, updated_at: t })
          .where('id', '=', row.id)
          .where('server_id', 'is', null)
          .where('state', '=', 'pending')
          .executeTakeFirst();
        if (Number(taken.numUpdatedRows) !== 1 || servers.length === 1) return;
        const { id: _id, ...copy } = row;
        await trx
          .insertInto('deliveries')
          .values(
            servers.slice(1).map((server_id) => ({ ...copy, server_id, waiting: null, last_error: null, created_at: t, updated_at: t })),
          )
          .execute();
      });
    }
  }

  private async runLane(serverId: number, lane: Lane): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      lane.again = false;
      const s = await this.db
        .selectFrom('servers')
        .select(['id', 'name', 'ip_address', 'rcon_host', 'rcon_port', 'rcon_password', 'command_template'])
        .where('id', '=', serverId)
        .executeTakeFirst();
      const target = s ? rconTarget(s) : null;
      if (!target) {
        this.closeConnection(serverId);
        await this.waitServer(serverId, null, 'no_server', s ? WORKER_TEXTS.noRcon(s.name) : WORKER_TEXTS.serverGone);
        return;
      }
      const rows = await this.claim(serverId);
      if (rows.length === 0) {
        if (lane.again) continue;
        return;
      }
      const reachable = await this.sendBatch(target, rows);
      if (!reachable) return;
    }
  }

  private async claim(serverId: number): Promise<Row[]> {
    const t = this.now();
    const due = this.db
      .selectFrom('deliveries')
      .select('id')
      .where('state', '=', 'pending')
      .where('server_id', '=', serverId)
      .where('next_attempt_at', '<=', t)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', t)]))
      .orderBy('id')
      .limit(this.batch)
      .$if(this.pg, (q) => q.forUpdate().skipLocked());
    const claimed = await this.db
      .updateTable('deliveries')
      .set({ lock_token: this.token, locked_until: t + this.lease })
      .where('id', 'in', due)
      .where('state', '=', 'pending')
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', t)]))
      .returningAll()
      .execute();
    if (claimed.length === 0) return [];
    const userIds = [...new Set(claimed.map((r) => r.user_id).filter((id): id is number => id !== null))];
    // {player} and {uuid} as the account is now (a renamed player gets it under the new name).
    const users =
      userIds.length === 0 ? [] : await this.db.selectFrom('users').select(['id', 'username', 'uuid']).where('id', 'in', userIds).execute();
    const byId = new Map(users.map((u) => [u.id, u]));
    return claimed
      .map((r) => {
        const u = r.user_id === null ? undefined : byId.get(r.user_id);
        return { ...r, username: u?.username ?? null, uuid: u?.uuid ?? null };
      })
      .sort((a, b) => a.id - b.id);
  }

  /**
   * Sends a claimed batch; false when the server could not be reached (its rows then wait).
   *
   * Rows go out in windows: one transaction writes the previous window's outcomes and marks the
   * next window's rows 'sent', then their commands go out one by one. The window is as wide as a
   * commit is slower than a command (1 on SQLite, where a commit costs less than an answer; up to
   * MAX_WINDOW on PostgreSQL, where each commit waits for a disk flush), so that the game server,
   * not the disk, sets the pace. What it costs: after a crash of this process or of the database,
   * up to a window's rows read 'unknown' (never resent on their own) where one would.
   */
  private async sendBatch(target: RconTarget, rows: Row[]): Promise<boolean> {
    const queue: Item[] = rows.map((row) => ({
      row,
      step: Number(row.step),
      commands: row.commands === null ? null : (JSON.parse(row.commands) as string[]),
    }));
    let outcomes: Outcome[] = [];
    let renewed = this.now();
    try {
      while (queue.length > 0 && !this.stopped) {
        if (this.now() - renewed > this.lease / 2) {
          renewed = this.now();
          await this.db
            .updateTable('deliveries')
            .set({ locked_until: renewed + this.lease })
            .where('lock_token', '=', this.token)
            .where('server_id', '=', target.id)
            .where('state', '=', 'pending')
            .execute();
        }
        const client = await this.connection(target);
        if (typeof client === 'string') {
          await this.commit(outcomes, []);
          outcomes = [];
          await this.waitServer(target.id, queue[0]!.row, 'server_down', client);
          return false;
        }
        const window: { item: Item; command: string }[] = [];
        while (queue.length > 0 && window.length < this.window()) {
          const item = queue.shift()!;
          const steps = item.commands?.length ?? 1;
          if (item.step >= steps) continue;
          try {
            const command = renderCommand(item.commands ? item.commands[item.step] : target.template, {
              player: item.row.username,
              uuid: item.row.uuid,
              params: JSON.parse(item.row.params) as CommandParams,
            });
            window.push({ item, command });
          } catch (err) {
            if (!(err instanceof CommandError)) throw err;
            outcomes.push({ kind: 'failed', row: item.row, error: err.message });
          }
        }
        if (window.length === 0) continue;
        const committing = performance.now();
        const markedAt = this.now();
        const marked = await this.commit(
          outcomes,
          window.map((w) => ({ id: w.item.row.id, step: w.item.step, command: w.command })),
          target.id,
        );
        this.commitMs = ewma(this.commitMs, performance.now() - committing);
        outcomes = [];
        let broken = false;
        for (const { item, command } of window) {
          const row = item.row;
          // Refunded, or claimed by another instance after a lapse: not ours to send any more.
          if (!marked.has(row.id)) continue;
          // A window that took too long (slow answers): its last rows must not go out so late that
          // another instance may already judge them interrupted.
          if (broken || this.stopped || this.now() - markedAt > this.lease / 2) {
            // Marked but never written to the server: nothing ran.
            outcomes.push({ kind: 'unsent', row });
            continue;
          }
          const sending = performance.now();
          let reply: string;
          try {
            reply = await client.command(command, this.options.timeoutMs);
          } catch (err) {
            broken = true;
            this.closeConnection(target.id);
            if (err instanceof RconError && (err.kind === 'connect' || err.kind === 'auth')) {
              // The connection was gone before the command was written: nothing ran.
              outcomes.push({ kind: 'unsent', row });
            } else if (err instanceof RconError) {
              this.log.warn({ server: target.id, delivery: row.id }, 'delivery command got no answer');
              outcomes.push({ kind: 'unknown', row, error: WORKER_TEXTS.noAnswer(err.message) });
            } else {
              outcomes.push({ kind: 'failed', row, error: err instanceof Error ? err.message : String(err) });
            }
            continue;
          }
          this.commandMs = ewma(this.commandMs, performance.now() - sending);
          const text = reply.slice(0, 4000);
          const verdict = judgeReply(reply);
          if (verdict === 'offline')
            outcomes.push({ kind: 'wait', row, waiting: 'player_offline', error: WORKER_TEXTS.offline, reply: text });
          else if (verdict === 'failed') outcomes.push({ kind: 'failed', row, reply: text, error: WORKER_TEXTS.refused });
          else if (item.step + 1 < (item.commands?.length ?? 1)) {
            // The next command of the same delivery goes first in the next window.
            outcomes.push({ kind: 'step', row, reply: text });
            queue.unshift({ ...item, step: item.step + 1 });
          } else outcomes.push({ kind: 'done', row, reply: text });
        }
      }
      await this.commit(outcomes, []);
      outcomes = [];
      return true;
    } finally {
      if (outcomes.length > 0) await this.commit(outcomes, []);
      // Claimed but never sent (stopping, or an error): free for anyone at once.
      await this.db
        .updateTable('deliveries')
        .set({ lock_token: null, locked_until: null })
        .where('lock_token', '=', this.token)
        .where('server_id', '=', target.id)
        .where('state', '=', 'pending')
        .execute();
    }
  }

  /** Rows to mark 'sent' in one commit: how many commands fit in the time of a commit, from 1 to MAX_WINDOW. */
  private window(): number {
    return Math.max(1, Math.min(MAX_WINDOW, Math.ceil(this.commitMs / Math.max(this.commandMs, 0.05))));
  }

  /**
   * One transaction: the outcomes of commands already answered, then 'sent' on the next rows (one
   * statement). The 'sent' is on disk before a command goes out, so a crash leaves it 'unknown',
   * never resent. Returns the ids that were still ours to send.
   */
  private async commit(
    outcomes: Outcome[],
    next: { id: number; step: number; command: string }[],
    serverId?: number,
  ): Promise<Set<number>> {
    if (outcomes.length === 0 && next.length === 0) return new Set();
    const run = async (db: Db): Promise<Set<number>> => {
      // The common case, a window of commands that all went well, is one statement.
      const done = outcomes.filter((o): o is Extract<Outcome, { kind: 'done' }> => o.kind === 'done');
      if (done.length > 1) await this.applyDone(db, done);
      for (const o of outcomes) if (done.length <= 1 || o.kind !== 'done') await this.apply(db, o);
      if (next.length === 0) return new Set();
      const t = this.now();
      const cases = (pick: (n: (typeof next)[number]) => string | number) =>
        sql.join(
          next.map((n) => sql`when ${n.id} then ${pick(n)}`),
          sql` `,
        );
      const marked = await db
        .updateTable('deliveries')
        .set({
          state: 'sent',
          server_id: serverId!,
          step: sql<number>`cast(case id ${cases((n) => n.step)} end as integer)`,
          command: sql<string>`cast(case id ${cases((n) => n.command)} end as text)`,
          waiting: null,
          attempts: sql<number>`attempts + 1`,
          sent_at: t,
          updated_at: t,
        })
        .where(
          'id',
          'in',
          next.map((n) => n.id),
        )
        .where('lock_token', '=', this.token)
        .where('state', 'in', ['pending', 'sent'])
        .returning('id')
        .execute();
      return new Set(marked.map((m) => m.id));
    };
    if (outcomes.length + (next.length > 0 ? 1 : 0) > 1) return this.db.transaction().execute(run);
    return run(this.db);
  }

  private async applyDone(db: Db, done: Extract<Outcome, { kind: 'done' }>[]): Promise<void> {
    const t = this.now();
    this.stats.done += done.length;
    await db
      .updateTable('deliveries')
      .set({
        state: 'done',
        step: sql<number>`step + 1`,
        reply: sql<string>`cast(case id ${sql.join(
          done.map((o) => sql`when ${o.row.id} then ${o.reply}`),
          sql` `,
        )} end as text)`,
        last_error: null,
        waiting: null,
        retries: 0,
        done_at: t,
        lock_token: null,
        locked_until: null,
        updated_at: t,
      })
      .where(
        'id',
        'in',
        done.map((o) => o.row.id),
      )
      .where('lock_token', '=', this.token)
      .where('state', 'in', ['pending', 'sent'])
      .execute();
  }

  private async apply(db: Db, o: Outcome): Promise<void> {
    const t = this.now();
    const mine = db
      .updateTable('deliveries')
      .where('id', '=', o.row.id)
      .where('lock_token', '=', this.token)
      .where('state', 'in', ['pending', 'sent']);
    const release = { lock_token: null, locked_until: null, updated_at: t };
    switch (o.kind) {
      case 'step':
        await mine.set({ reply: o.reply, step: sql<number>`step + 1`, updated_at: t }).execute();
        return;
      case 'done':
        this.stats.done += 1;
        await mine
          .set({
            ...release,
            state: 'done',
            step: sql<number>`step + 1`,
            reply: o.reply,
            last_error: null,
            waiting: null,
            retries: 0,
            done_at: t,
          })
          .execute();
        return;
      case 'failed':
        this.stats.failed += 1;
        await mine
          .set({ ...release, state: 'failed', waiting: null, last_error: o.error, ...(o.reply !== undefined && { reply: o.reply }) })
          .execute();
        return;
      case 'unknown':
        this.stats.unknown += 1;
        await mine.set({ ...release, state: 'unknown', waiting: null, last_error: o.error }).execute();
        return;
      case 'unsent':
        // Back as it was before it was marked: due at once (a broken connection is tried again, a stop leaves it to the next worker).
        await mine.set({ ...release, state: 'pending', attempts: sql<number>`attempts - 1` }).execute();
        return;
      case 'wait': {
        this.stats.waiting += 1;
        const retries = Number(o.row.retries) + 1;
        const delay = retryDelayMs(retries, this.options.intervalMs, o.waiting === 'player_offline' ? OFFLINE_CAP_MS : RETRY_CAP_MS);
        await mine
          .set({
            ...release,
            state: 'pending',
            waiting: o.waiting,
            last_error: o.error,
            retries,
            next_attempt_at: t + delay,
            ...(o.reply !== undefined && { reply: o.reply }),
          })
          .execute();
        return;
      }
    }
  }

  /**
   * The server cannot be reached (or has no RCON): this lane's claimed rows and every other due
   * row of the server wait, without a connect each.
   */
  private async waitServer(serverId: number, first: Row | null, waiting: DeliveryWaiting, message: string): Promise<void> {
    const t = this.now();
    const worst = await this.db
      .selectFrom('deliveries')
      .select((eb) => eb.fn.max('retries').as('retries'))
      .where('server_id', '=', serverId)
      .where('state', '=', 'pending')
      .where('next_attempt_at', '<=', t)
      .executeTakeFirst();
    const retries = Math.max(Number(worst?.retries ?? 0), Number(first?.retries ?? 0)) + 1;
    const res = await this.db
      .updateTable('deliveries')
      .set({
        waiting,
        last_error: message,
        retries: sql<number>`retries + 1`,
        next_attempt_at: t + retryDelayMs(retries, this.options.intervalMs),
        lock_token: null,
        locked_until: null,
        updated_at: t,
      })
      .where('server_id', '=', serverId)
      .where('state', '=', 'pending')
      .where((eb) =>
        eb.or([
          eb('lock_token', '=', this.token),
          eb.and([eb('next_attempt_at', '<=', t), eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', t)])]),
        ]),
      )
      .executeTakeFirst();
    this.stats.waiting += Number(res.numUpdatedRows);
    this.log.warn({ server: serverId }, message);
  }

  /** The server's open connection, or a new one; a string says why there is none. */
  private async connection(target: RconTarget): Promise<RconClient | string> {
    const key = `${target.host}\n${target.port}\n${target.password}`;
    const open = this.conns.get(target.id);
    if (open && open.key === key && !open.client.closed) {
      if (open.idle) clearTimeout(open.idle);
      open.idle = this.idleTimer(target.id);
      return open.client;
    }
    this.closeConnection(target.id);
    try {
      const client = await RconClient.connect({
        host: target.host,
        port: target.port,
        password: target.password,
        timeoutMs: this.options.timeoutMs,
      });
      this.conns.set(target.id, { client, key, idle: this.idleTimer(target.id) });
      return client;
    } catch (err) {
      if (!(err instanceof RconError)) throw err;
      return err.kind === 'auth' ? WORKER_TEXTS.badPassword(target.name) : WORKER_TEXTS.unreachable(target.name, err.message);
    }
  }

  private idleTimer(serverId: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      if (!this.lanes.has(serverId)) this.closeConnection(serverId);
    }, this.options.idleCloseMs ?? 60_000);
    timer.unref();
    return timer;
  }

  private closeConnection(serverId: number): void {
    const c = this.conns.get(serverId);
    if (!c) return;
    this.conns.delete(serverId);
    if (c.idle) clearTimeout(c.idle);
    c.client.close();
  }
}

/** Sends everything due, once, with a worker of its own (tests and the benchmark). */
export async function drainDeliveries(db: Db, options: DeliveryOptions, log: FastifyBaseLogger): Promise<DrainStats> {
  const worker = new DeliveryWorker(db, options, log);
  try {
    return await worker.drain();
  } finally {
    await worker.stop();
  }
}
