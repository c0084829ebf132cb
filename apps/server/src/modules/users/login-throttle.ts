import type { Db } from '../../db/index.ts';
import { backoffMs, type Backoff } from '../../base/backoff.ts';
import { HttpError } from '../../lib/errors.ts';
import { plural } from '../../lib/plural.ts';
import { networkOf, type RateLimiter } from '../../lib/rate-limit.ts';
import { hashToken } from '../../lib/tokens.ts';
import { advanceThrottle, deleteDevicesOf, insertDevice, isDeviceKnown, throttleOf, touchDevice } from './users.repo.ts';

// One query, kept in the repository; the logins find it here beside the rest of the throttle.
export { clearLoginFailures } from './users.repo.ts';

/**
 * Login throttling per account. The old per-name counter locked the owner out for
 * fifteen minutes after ten wrong passwords from anywhere, and the name and the e-mail each had
 * their own ten. Now every failed password check of an account counts, by user id, whatever was
 * typed; after `free` failures each further try from an unknown device waits a delay that
 * doubles (1 s, 2 s, 4 s … at most MAX_DELAY_MS), and a try inside the delay is refused without
 * looking at the password (and does not extend it). The owner's browser, known by the device
 * cookie set at a successful login, skips the delay: guessing from elsewhere never locks them out.
 * Both logins (the site's, the launchers') count here; the tables came with security's migration
 * 2026112350_login_throttle (security.tables.ts declares them).
 */
export const MAX_DELAY_MS = 5 * 60_000;
/** Failures older than this are forgotten at the next try. */
export const FAILURE_MEMORY_MS = 3_600_000;

const DELAY: Backoff = { baseMs: 1000, capMs: MAX_DELAY_MS };

export function delayAfter(failures: number, free: number): number {
  if (failures < free) return 0;
  return backoffMs(failures - free + 1, DELAY);
}

export type Reservation = { ok: true } | { ok: false; retryInMs: number };

/**
 * Counts a try of `userId` before its password is checked. A compare-and-set on the row makes
 * parallel tries take turns: of two that read the same row, one is refused.
 */
export async function reserveLoginTry(db: Db, userId: number, free: number, now = Date.now()): Promise<Reservation> {
  const row = await throttleOf(db, userId);
  const nextAllowed = Number(row.next_allowed_at);
  if (now < nextAllowed) return { ok: false, retryInMs: nextAllowed - now };
  const previous = now - Number(row.last_failure_at) > FAILURE_MEMORY_MS ? 0 : row.failures;
  const failures = previous + 1;
  const counted = await advanceThrottle(db, row, { failures, last_failure_at: now, next_allowed_at: now + delayAfter(failures, free) });
  if (!counted) return { ok: false, retryInMs: 1000 };
  return { ok: true };
}

/** The key strangers' failed logins from one network are counted under. */
const networkFailures = (ip: string) => `login:fail:${networkOf(ip)}`;

/**
 * Strangers' failed logins (wrong passwords and names nobody has, from browsers and launchers the
 * account does not know) are also counted per network, an IPv4 /24 or an IPv6 /64, web and
 * launchers together. Past RATE_LIMIT_LOGIN_NETWORK in a window (RATE_LIMIT_WINDOW_SEC) that network's strangers are refused before any
 * hash until the window ends, while every known browser and launcher still logs in. Each address
 * alone stays under its own limit, so without this one network rotating its addresses kept the
 * cores hashing its guesses: 32 loops from one /24 were about a hundred hashes a second.
 * Milliseconds the caller's network is still refused for here (0: not refused), from memory.
 */
export function networkRefusedFor(limiter: RateLimiter, ip: string, now = Date.now()): number {
  return limiter.blockedFor(networkFailures(ip), now);
}

/** Counts a stranger's failed login against its network; the failure itself is still the answer. */
export async function countNetworkFailure(limiter: RateLimiter, ip: string, limit: number): Promise<void> {
  try {
    await limiter.hit(networkFailures(ip), limit);
  } catch (err) {
    // Over the limit: the network is refused from the next try on (the limiter keeps it in memory).
    if (!(err instanceof HttpError && err.statusCode === 429)) throw err;
  }
}

/** Whether this browser's device cookie belongs to a past successful login of the account. */
export async function isKnownDevice(db: Db, userId: number, deviceToken: string | undefined): Promise<boolean> {
  if (!deviceToken || deviceToken.length > 200) return false;
  return isDeviceKnown(db, userId, hashToken(deviceToken));
}

/**
 * Forgets the browsers where the account logged in, all but the one of `keepToken`: they get the
 * login delay and, at their next login, the new-device letter again.
 */
export async function forgetDevices(db: Db, userId: number, keepToken?: string): Promise<void> {
  await deleteDevicesOf(db, userId, keepToken && keepToken.length <= 200 ? hashToken(keepToken) : null);
}

/** Remembers the browser after a successful login; true when it was new for the account. */
export async function rememberDevice(
  db: Db,
  userId: number,
  deviceToken: string,
  meta: { ip?: string; userAgent?: string },
  now = Date.now(),
): Promise<boolean> {
  const device_hash = hashToken(deviceToken);
  const ip = meta.ip?.slice(0, 64) ?? null;
  if (await touchDevice(db, userId, device_hash, { last_seen_at: now, ip })) return false;
  // Two logins from one new browser at once: only the one that added it says so.
  return insertDevice(db, {
    user_id: userId,
    device_hash,
    user_agent: meta.userAgent?.slice(0, 255) ?? null,
    ip,
    created_at: now,
    last_seen_at: now,
  });
}

export function retryText(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  if (s < 60) return `Слишком много неудачных попыток входа. Попробуйте через ${s} ${plural(s, ['секунду', 'секунды', 'секунд'])}.`;
  const m = Math.ceil(s / 60);
  return `Слишком много неудачных попыток входа. Попробуйте через ${m} ${plural(m, ['минуту', 'минуты', 'минут'])}.`;
}
