import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import type { Job, ScheduledJobSpec } from '../../lib/jobs/index.ts';
import { DEFAULT_PORT, queryStatus, type ServerStatus, type StatusOptions } from '../../lib/minecraft/status.ts';
import { seenInGame, siteEvent } from '../users/users.ports.ts';
import * as repo from './servers.repo.ts';
import type { CheckTarget } from './servers.repo.ts';
import { LIST_CACHE_KEY } from './servers.service.ts';

/** Failed checks in a row before a server shows as offline: one lost packet must not flap it. */
export const FAILS_TO_OFFLINE = 2;
const DAY_MS = 86_400_000;
/** Every check is kept this long, then only the hourly peak. */
export const HISTORY_FULL_MS = 7 * DAY_MS;
export const HISTORY_KEEP_MS = 365 * DAY_MS;
export const MONITOR_JOB = 'servers.monitor';

/** History thinning, once an hour across all instances (lib/jobs/schedule.ts). */
export function thinHistoryJob(db: Db): ScheduledJobSpec {
  return { name: 'servers.thin-history', everyMs: 3_600_000, run: () => thinHistory(db, Date.now()) };
}

export type StatusCheck = (options: StatusOptions) => Promise<ServerStatus>;

/** stored: checked and recorded; skipped: not due, or another instance is checking it; lost: checked, not recorded. */
type CheckOutcome = 'stored' | 'skipped' | 'lost';

export interface SweepResult {
  checked: number;
  online: number;
  offline: number;
}

/**
 * Checks every server's status: in the background every config.monitor.intervalMs (job()), and on demand.
 * Each check is claimed by a conditional update (checking_until, and for background sweeps the
 * age of last_checked_at), so several instances never check one server twice at once; within one
 * process a second request for a server joins the check already running.
 */
export class ServerMonitor {
  private readonly inflight = new Map<number, Promise<CheckOutcome>>();

  constructor(
    private readonly ctx: AppContext,
    private readonly log: FastifyBaseLogger,
    private readonly check: StatusCheck = queryStatus,
  ) {}

  private get db(): Db {
    return this.ctx.db;
  }

  /** Aborts every check in flight (the sweep's and those requests asked for) when the jobs stop. */
  private get stopping(): AbortSignal {
    return this.ctx.jobs.signal;
  }

  /** The background sweep as a job of the runner (lib/jobs): every MONITOR_INTERVAL_SEC. */
  job(): Job {
    return { name: MONITOR_JOB, intervalMs: this.ctx.config.monitor.intervalMs, run: () => this.sweep(false) };
  }

  /**
   * One pass over the servers. `force` (the admin's button) checks every server now; otherwise
   * only those whose last check is older than most of an interval (another instance may have
   * just done it).
   */
  async sweep(force: boolean): Promise<SweepResult> {
    const now = Date.now();
    const { intervalMs, timeoutMs, concurrency } = this.ctx.config.monitor;
    const staleBefore = force ? null : now - intervalMs * 0.8;
    const rounds = Math.max(1, Math.ceil((await repo.countServers(this.db)) / concurrency));
    // One statement claims every due server for this sweep, so that all checks start together
    // (and silent servers' deadlines overlap) instead of each waiting for its own claim behind
    // the others' writes. The claim outlasts the sweep, so a crashed instance's runs out by itself.
    const queue = await repo.claimDueServers(this.db, now, staleBefore, now + rounds * (timeoutMs + 5000));
    let changed = false;
    let checked = 0;
    const workers = Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
      for (let next = queue.shift(); next && !this.stopping.aborted; next = queue.shift()) {
        const outcome = await this.checkServer(next, null, true);
        if (outcome !== 'skipped') checked += 1;
        if (outcome === 'stored') changed = true;
      }
    });
    await Promise.all(workers);
    // Stopped midway: the servers not checked are free for the next sweep at once.
    if (queue.length > 0)
      await repo.releaseClaims(
        this.db,
        queue.map((r) => r.id),
      );
    if (changed) await this.ctx.publicCache.invalidate(LIST_CACHE_KEY);
    const { total, online } = await repo.onlineCounts(this.db);
    return { checked, online, offline: total - online };
  }

  /** Checks one server now unless it is being checked already (then waits for that check); true when a result was stored. */
  async checkNow(id: number): Promise<boolean> {
    const row = await repo.checkTarget(this.db, id);
    return row ? (await this.checkServer(row, null)) === 'stored' : false;
  }

  /** `staleBefore`: check only if the last check is older (background sweeps); null checks now. */
  private checkServer(row: CheckTarget, staleBefore: number | null, claimed = false): Promise<CheckOutcome> {
    const running = this.inflight.get(row.id);
    if (running) return running;
    const job = this.runCheck(row, staleBefore, claimed)
      .catch((err: unknown): CheckOutcome => {
        this.log.error({ err, serverId: row.id }, 'server check failed to record');
        return 'lost';
      })
      .finally(() => this.inflight.delete(row.id));
    this.inflight.set(row.id, job);
    return job;
  }

  /** `claimed`: the sweep has claimed the row already. */
  private async runCheck(row: CheckTarget, staleBefore: number | null, claimed: boolean): Promise<CheckOutcome> {
    const startedAt = Date.now();
    const { timeoutMs } = this.ctx.config.monitor;
    if (!claimed) {
      // The claim lasts past the check's deadline, so a crashed instance's claim runs out by itself.
      if (!(await repo.claimServer(this.db, row.id, startedAt, staleBefore, startedAt + timeoutMs + 5000))) return 'skipped';
    }

    let status: ServerStatus | null = null;
    let error = 'Адрес сервера не указан';
    if (row.ip_address) {
      try {
        // The default port means "as the game would connect": a host name may have an SRV record.
        status = await this.check({
          host: row.ip_address,
          port: row.port === DEFAULT_PORT ? undefined : row.port,
          timeoutMs,
          signal: this.stopping,
        });
      } catch (err) {
        error = (err as Error).message;
      }
    }
    if (this.stopping.aborted && !status) {
      await repo.releaseClaim(this.db, row.id).catch(() => {});
      return 'lost';
    }

    const at = Date.now();
    const before = await repo.statusBefore(this.db, row.id);
    const stored = status
      ? await repo.recordOnline(this.db, row, status, at)
      : await repo.recordFailedCheck(this.db, row, error.slice(0, 255), at, FAILS_TO_OFFLINE);
    if (!stored) {
      // Edited meanwhile (a new address resets the readings) or deleted: the result is stale.
      await repo.releaseClaim(this.db, row.id);
      return 'lost';
    }
    if (before) {
      // Told once per change: down after the failures that turn it offline, up at the first answer after.
      const event =
        // A new or just edited server is offline without failed checks: its first answer is no comeback.
        status && before.status === 'offline' && Number(before.fail_count) >= FAILS_TO_OFFLINE
          ? ({ kind: 'server_up', id: row.id, server: before.name, online: status.online, at } as const)
          : !status && before.status === 'online' && Number(before.fail_count) + 1 >= FAILS_TO_OFFLINE
            ? ({ kind: 'server_down', id: row.id, server: before.name, at } as const)
            : null;
      if (event) await siteEvent.run(this.db, event).catch((err: unknown) => this.log.warn({ err }, 'server status event: not queued'));
    }
    await repo.addHistoryPoint(this.db, row.id, at, status ? status.online : null).catch(() => {
      // The server was deleted while it was being checked.
    });
    if (status && status.sample.length > 0) {
      await seenInGame
        .run(this.db, status.sample, at)
        .catch((err: unknown) => this.log.warn({ err }, 'players seen in game: not recorded'));
    }
    return 'stored';
  }
}

/** Keeps every check of the last 7 days; older ones only as each server's peak of each hour; nothing past a year. */
export async function thinHistory(db: Db, now: number): Promise<number> {
  const dropped = await repo.dropHistoryBefore(db, now - HISTORY_KEEP_MS);
  return dropped + (await repo.thinHistoryBefore(db, now - HISTORY_FULL_MS));
}
