import { AZLINK_DEFAULT_PING_PORT } from '@kubik/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/index.ts';
import type { ClaimOwner, ClaimQueue } from '../../lib/jobs/index.ts';
import { pingAzLink } from '../../lib/azlink-ping.ts';
import { RconError, type RconClient } from '../../lib/rcon/client.ts';
import { CommandError, renderCommand, type CommandParams } from '../../lib/rcon/command.ts';
import { RconPool } from '../../lib/rcon/pool.ts';
import { assignServers, claimFor, deliveryQueue, dueServers, leaseMs, waitingOn, type ClaimedDelivery } from './deliveries.claims.ts';
import {
  connectionProblem,
  OUTCOME_TEXTS,
  OutcomeWriter,
  outcomeOfError,
  outcomeOfReply,
  type DrainStats,
  type Outcome,
} from './deliveries.outcomes.ts';
import { rconServerIds, rconTarget, viaPlugin, type RconTarget } from './deliveries.queue.ts';
import { serversWithNewPluginRows } from './deliveries.plugin.ts';
import { serverForDelivery } from './deliveries.repo.ts';

export { leaseMs, type DrainStats };

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

const DEFAULT_BATCH = 100;
/** A plugin server is pinged at most this often (AzLink itself skips a fetch within 5 s of the last). */
const PING_EVERY_MS = 60_000;
const PING_TIMEOUT_MS = 3000;

interface Item {
  row: ClaimedDelivery;
  step: number;
  commands: string[] | null;
}

/** The most rows marked 'sent' in one commit (what a crash can leave 'unknown'). */
const MAX_WINDOW = 8;

const ewma = (avg: number, sample: number) => avg * 0.8 + sample * 0.2;

interface Lane {
  /** Asked to look for work once more before it ends (a kick came while it ran). */
  again: boolean;
  done: Promise<void>;
}

/**
 * Sends the delivery queue to the game servers. Each server with due rows gets a lane of its own:
 * one connection, kept open (lib/rcon/pool.ts), and one command at a time (as RCON requires), so
 * that a slow or silent server holds back nothing but itself. A lane claims due rows in batches
 * through the jobs runner's claim queue (deliveries.claims.ts), marks rows 'sent' before their
 * commands go out and writes outcomes in the same transaction as the next rows' 'sent' (see
 * sendBatch; what each answer means and the states: deliveries.outcomes.ts), and several
 * instances never send one row twice. It runs as the job runner's 'deliveries' job
 * (deliveries.routes.ts): each pass is one `tick()`.
 */
export class DeliveryWorker {
  readonly stats: DrainStats = { done: 0, failed: 0, unknown: 0, waiting: 0 };
  private readonly lanes = new Map<number, Lane>();
  private readonly pool: RconPool;
  private readonly queue: ClaimQueue<'deliveries'>;
  private readonly outcomes: OutcomeWriter;
  private readonly now: () => number;
  private readonly batch: number;
  private readonly lease: number;
  private stopped = false;
  /** When each plugin server was last pinged. */
  private readonly pinged = new Map<number, number>();
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
    /** Whose claims these are (lib/jobs/claim-owner.ts); by default a process of its own. */
    owner?: ClaimOwner,
  ) {
    this.now = options.now ?? Date.now;
    this.batch = options.batchSize ?? DEFAULT_BATCH;
    this.lease = leaseMs(options);
    this.queue = deliveryQueue(db, this.lease, owner);
    this.outcomes = new OutcomeWriter(db, this.queue, this.stats, { intervalMs: options.intervalMs, now: this.now });
    this.pool = new RconPool({ timeoutMs: options.timeoutMs, idleCloseMs: options.idleCloseMs, inUse: (id) => this.lanes.has(id) });
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

  /**
   * Takes back what an earlier life of this instance claimed (the job's recover, before its first
   * pass): rows it had not sent are due again at once; a row it had marked 'sent' may have run, so
   * it is not resent but judged interrupted, as when a lease runs out.
   */
  async recover(): Promise<void> {
    const t = this.now();
    this.stats.unknown += await this.queue.takeBack({
      where: (eb) => eb('state', '=', 'sent'),
      set: { state: 'unknown', last_error: OUTCOME_TEXTS.interrupted, updated_at: t },
    });
    await this.queue.takeBack({ where: (eb) => eb('state', '=', 'pending') });
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
    // Each lane gave back its claim; this catches one whose release failed.
    await this.queue.release(undefined, (eb) => eb('state', '=', 'pending'));
    this.pool.closeAll();
  }

  private async pass(): Promise<void> {
    const t = this.now();
    await this.outcomes.sweepInterrupted(t, this.lease);
    await assignServers(
      this.db,
      t,
      () => rconServerIds(this.db),
      (scope, retries) => this.outcomes.waitNoServer(t, scope, retries),
    );
    this.pingPlugins(t);
    for (const id of await dueServers(this.db, t)) {
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

  private async runLane(serverId: number, lane: Lane): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      lane.again = false;
      const s = await serverForDelivery(this.db, serverId);
      // Switched to the plugin since the pass looked: its rows wait for the plugin's call.
      if (s && viaPlugin(s)) {
        this.pool.close(serverId);
        return;
      }
      const target = s ? rconTarget(s) : null;
      if (!target) {
        this.pool.close(serverId);
        const message = s ? OUTCOME_TEXTS.noRcon(s.name) : OUTCOME_TEXTS.serverGone;
        await this.outcomes.waitServer(serverId, null, null, 'no_server', message);
        this.log.warn({ server: serverId }, message);
        return;
      }
      const { token, rows } = await claimFor(this.db, this.queue, serverId, this.batch, this.now());
      if (rows.length === 0) {
        if (lane.again) continue;
        return;
      }
      const reachable = await this.sendBatch(target, token, rows);
      if (!reachable) return;
    }
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
  private async sendBatch(target: RconTarget, token: string, rows: ClaimedDelivery[]): Promise<boolean> {
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
          await this.queue.renew(token, { now: renewed, where: waitingOn(target.id) });
        }
        const client = await this.connection(target);
        if (typeof client === 'string') {
          await this.outcomes.commit(token, outcomes, []);
          outcomes = [];
          await this.outcomes.waitServer(target.id, token, queue[0]!.row, 'server_down', client);
          this.log.warn({ server: target.id }, client);
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
        const marked = await this.outcomes.commit(
          token,
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
            this.pool.close(target.id);
            const outcome = outcomeOfError(row, err);
            if (outcome.kind === 'unknown') this.log.warn({ server: target.id, delivery: row.id }, 'delivery command got no answer');
            outcomes.push(outcome);
            continue;
          }
          this.commandMs = ewma(this.commandMs, performance.now() - sending);
          const more = item.step + 1 < (item.commands?.length ?? 1);
          const outcome = outcomeOfReply(row, reply, more);
          outcomes.push(outcome);
          // The next command of the same delivery goes first in the next window.
          if (outcome.kind === 'step') queue.unshift({ ...item, step: item.step + 1 });
        }
      }
      await this.outcomes.commit(token, outcomes, []);
      outcomes = [];
      return true;
    } finally {
      if (outcomes.length > 0) await this.outcomes.commit(token, outcomes, []);
      // Claimed but never sent (stopping, or an error): free for anyone at once.
      await this.queue.release(token, waitingOn(target.id));
    }
  }

  /**
   * New deliveries for servers that deliver through the AzLink plugin with instant commands on:
   * the plugin is asked to fetch now. Never awaited (a purchase never waits on a game server);
   * a server is asked at most once a minute; a failure is logged.
   */
  private pingPlugins(t: number): void {
    serversWithNewPluginRows(this.db, t)
      .then((servers) => {
        for (const s of servers) {
          if ((this.pinged.get(s.id) ?? -Infinity) > t - PING_EVERY_MS || !s.ip_address || !s.link_token_hash) continue;
          this.pinged.set(s.id, t);
          const port = s.link_ping_port ?? AZLINK_DEFAULT_PING_PORT;
          pingAzLink(s.ip_address, port, s.link_token_hash, PING_TIMEOUT_MS)
            .then((status) => {
              if (status !== 200) this.log.warn({ server: s.id, status }, 'AzLink instant ping refused');
            })
            .catch((err: unknown) => this.log.warn({ err, server: s.id, port }, 'AzLink instant ping failed'));
        }
      })
      .catch((err: unknown) => this.log.warn({ err }, 'AzLink instant ping: servers not read'));
  }

  /** Rows to mark 'sent' in one commit: how many commands fit in the time of a commit, from 1 to MAX_WINDOW. */
  private window(): number {
    return Math.max(1, Math.min(MAX_WINDOW, Math.ceil(this.commitMs / Math.max(this.commandMs, 0.05))));
  }

  /** The server's open connection, or a new one; a string says why there is none. */
  private async connection(target: RconTarget): Promise<RconClient | string> {
    try {
      return await this.pool.get(target.id, target);
    } catch (err) {
      if (!(err instanceof RconError)) throw err;
      return connectionProblem(target.name, err);
    }
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
