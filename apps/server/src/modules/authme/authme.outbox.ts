import type { AppContext } from '../../context.ts';
import { backoffMs, type Backoff } from '../../base/backoff.ts';
import { ClaimQueue, type Job, type ScheduledJobSpec } from '../../lib/jobs/index.ts';
import { activeBan } from '../users/ban-status.ts';
import { AuthMeError, type AuthMeDatabase } from './authme.database.ts';
import * as repo from './authme.repo.ts';
import type { AuthMeConfig } from './authme.settings.ts';
import { authMeOf, hashForWrite, lockSecret, text, warn, writes } from './authme.service.ts';

/**
 * Writes to AuthMe's table, queued in authme_outbox so that none is lost while AuthMe's database
 * is down: a new password is tried at once (the request waits for it, so /login in the game takes
 * it before the page says «готово»), the rest by the job. Each is a step that may be repeated:
 * a password write sets the same hash again, a lock is set only over the hash it read and lifted
 * only while the lock is still there.
 */

export const OUTBOX_JOB = 'authme.outbox';
const RETRY: Backoff = { baseMs: 10_000, capMs: 3_600_000, jitter: 0.2 };
const LEASE_MS = 60_000;
const COLUMNS = ['id', 'user_id', 'op', 'hash', 'salt', 'algorithm', 'site_hash', 'attempts'] as const;

const queues = new WeakMap<AppContext, ClaimQueue<'authme_outbox'>>();
function queueOf(ctx: AppContext): ClaimQueue<'authme_outbox'> {
  let q = queues.get(ctx);
  if (!q)
    queues.set(
      ctx,
      (q = new ClaimQueue(
        ctx.db,
        { table: 'authme_outbox', leaseMs: LEASE_MS, due: (eb, now) => eb('next_attempt_at', '<=', now) },
        ctx.claims,
      )),
    );
  return q;
}

type Op = Pick<repo.OutboxRow, (typeof COLUMNS)[number]>;

/** One queued write; 'done' also when there is nothing left to do (an account gone, a name someone else holds: warned). */
async function deliver(ctx: AppContext, cfg: AuthMeConfig, adb: AuthMeDatabase, op: Op): Promise<'done'> {
  const user = await ctx.db
    .selectFrom('users')
    .select(['id', 'username', 'username_lower', 'email', 'email_verified_at', 'deleted_at', 'banned_at', 'ban_until', 'ban_reason'])
    .where('id', '=', op.user_id)
    .executeTakeFirst();
  if (!user || user.deleted_at !== null) return 'done';
  const link = await repo.linkOf(ctx.db, user.id);
  const now = Date.now();
  if (op.op === 'password') {
    const hash = op.hash!;
    const salt = op.salt;
    if (link?.lock_hash) {
      // Locked by a ban: the new password waits in the link and goes in when the lock is lifted.
      await repo.updateLink(ctx.db, user.id, {
        hash,
        salt,
        algorithm: op.algorithm ?? link.algorithm,
        site_hash: op.site_hash ?? link.site_hash,
      });
      return 'done';
    }
    const email = user.email.toLowerCase().endsWith('@authme.invalid') ? null : user.email;
    if (link) {
      const changed = await adb.setPassword(link.authme_name, hash, salt);
      // Removed in AuthMe meanwhile: a password set on the site brings the row back.
      if (changed === 0)
        await adb.insert({ name: link.authme_name, realname: user.username, password: hash, salt, email, regdate: now, regip: null });
      await repo.updateLink(ctx.db, user.id, {
        hash,
        salt,
        algorithm: op.algorithm ?? link.algorithm,
        site_hash: op.site_hash ?? link.site_hash,
      });
      return 'done';
    }
    if (await adb.find(user.username_lower)) {
      await warn(ctx.db, 'name_taken', user.username);
      return 'done';
    }
    if (
      !(await adb.insert({ name: user.username_lower, realname: user.username, password: hash, salt, email, regdate: now, regip: null }))
    ) {
      await warn(ctx.db, 'name_taken', user.username);
      return 'done';
    }
    const linked = await repo.insertLink(ctx.db, {
      user_id: user.id,
      authme_name: user.username_lower,
      algorithm: op.algorithm ?? cfg.hash ?? 'BCRYPT',
      hash,
      salt,
      site_hash: op.site_hash ?? '',
      needs_email: 0,
      lock_hash: null,
      import_id: null,
      linked_at: now,
    });
    if (!linked) await warn(ctx.db, 'name_taken', user.username);
    return 'done';
  }
  // op 'ban': the game login follows the site's ban, when the owner's switch says so.
  if (!link) return 'done';
  const shouldLock = cfg.lockOnBan && activeBan(user, now) !== null;
  if (shouldLock && link.lock_hash === null) {
    const row = await adb.find(link.authme_name);
    if (!row) return 'done';
    const current = text(row.password) ?? '';
    const lock = await hashForWrite(cfg, lockSecret(), link.authme_name, 'known');
    if ((await adb.setPassword(link.authme_name, lock.hash, lock.salt, current)) === 0)
      throw new AuthMeError('other', 'пароль в AuthMe сменился во время блокировки: повтор');
    // What the player had (a change made in the game included) comes back when the ban ends.
    await repo.updateLink(ctx.db, user.id, { lock_hash: lock.hash, hash: current, salt: text(row.salt) });
  } else if (!shouldLock && link.lock_hash !== null) {
    // Only while the lock is still there: a password an AuthMe admin set meanwhile stays.
    await adb.setPassword(link.authme_name, link.hash, link.salt, link.lock_hash);
    await repo.updateLink(ctx.db, user.id, { lock_hash: null });
  }
  return 'done';
}

/**
 * Writes due now (of one account, when `userId` is given), in order; a write that fails waits
 * and is tried again (10 s doubling to an hour). Returns how many were made.
 */
export async function drainOutbox(ctx: AppContext, options: { userId?: number; signal?: AbortSignal } = {}): Promise<number> {
  const found = await authMeOf(ctx);
  if (!found) return 0;
  const queue = queueOf(ctx);
  let done = 0;
  for (;;) {
    if (options.signal?.aborted) break;
    const claim = await queue.claim(
      20,
      COLUMNS,
      options.userId === undefined ? {} : { where: (eb) => eb('user_id', '=', options.userId!) },
    );
    if (claim.rows.length === 0) break;
    let failed = false;
    for (const op of claim.rows) {
      try {
        await deliver(ctx, found.cfg, found.adb, op);
        await ctx.db.deleteFrom('authme_outbox').where('id', '=', op.id).where('lock_token', '=', claim.token).execute();
        done++;
      } catch (err) {
        failed = true;
        const message = err instanceof Error ? err.message : String(err);
        await warn(ctx.db, err instanceof AuthMeError && err.kind === 'unreachable' ? 'unreachable' : 'write_failed', message);
        await queue.complete(claim.token, op.id, {
          attempts: op.attempts + 1,
          next_attempt_at: Date.now() + backoffMs(op.attempts + 1, RETRY),
          last_error: message.slice(0, 500),
        });
      }
    }
    await queue.release(claim.token);
    // AuthMe failing now: the rest waits for the next pass rather than each failing in turn.
    if (failed) break;
  }
  return done;
}

writes.deliverFor = async (ctx, userId) => {
  await drainOutbox(ctx, { userId });
};

export function outboxJob(ctx: AppContext): Job {
  const queue = queueOf(ctx);
  return {
    name: OUTBOX_JOB,
    intervalMs: 10_000,
    recover: () => queue.takeBack(),
    run: (signal) => drainOutbox(ctx, { signal }),
    release: async () => void (await queue.release()),
  };
}

/**
 * Locks and unlocks that should be but are not queued: bans that ran out before the bans job
 * lifted them, the owner's switch turned, a write that never happened. Returns how many were queued.
 */
export async function queueBanSteps(ctx: AppContext): Promise<number> {
  const found = await authMeOf(ctx);
  if (!found) return 0;
  const ids = await repo.linksOutOfStep(ctx.db, found.cfg.lockOnBan, Date.now());
  if (ids.length === 0) return 0;
  const queued = new Set(
    (await ctx.db.selectFrom('authme_outbox').select('user_id').where('op', '=', 'ban').where('user_id', 'in', ids).execute()).map(
      (r) => r.user_id,
    ),
  );
  let n = 0;
  for (const id of ids) {
    if (queued.has(id)) continue;
    await repo.enqueue(ctx.db, { user_id: id, op: 'ban', hash: null, salt: null, algorithm: null, site_hash: null }, Date.now());
    n++;
  }
  if (n > 0) ctx.jobs.kick(OUTBOX_JOB);
  return n;
}

export function banStepsJob(ctx: AppContext): ScheduledJobSpec {
  return { name: 'authme.ban-steps', everyMs: 5 * 60_000, run: () => queueBanSteps(ctx) };
}
