import os from 'node:os';
import { hash, verify } from '@node-rs/argon2';
import { HttpError } from './errors.ts';

/**
 * Argon2id (algorithm 2: the package's enum is a const enum, which isolated modules cannot import)
 * with 12 MiB and 3 passes: one of the settings OWASP's password storage cheat sheet gives as equal
 * in defence to 19 MiB and 2 passes, and here half the CPU (5.3–6.9 ms against 11.0–11.7 per check
 * on one core, issue 29): 12 MiB stays in the processor's cache where 19 does not.
 */
const OPTIONS = { algorithm: 2, memoryCost: 12_288, timeCost: 3, parallelism: 1 };
/** The parameters part of a hash made with OPTIONS ($argon2id$v=19$m=12288,t=3,p=1$salt$hash). */
const CURRENT_PARAMS = `$m=${OPTIONS.memoryCost},t=${OPTIONS.timeCost},p=${OPTIONS.parallelism}$`;

/**
 * Each hash holds 12 MiB while it runs, on one of libuv's four threads. At most one runs per two
 * cores: a burst of logins (or an attacker's flood) then keeps the other cores for serving pages,
 * and memory does not balloon — four at once took the site from 130 to 190 MB resident, which
 * the allocator then keeps (issue 17's 150 MB goal).
 *
 * Admission (issue 29): the checks waiting for a turn form two bounded queues. A check for
 * someone the site already knows — a browser whose device cookie logged in to the account, a
 * launcher whose clientToken did, a session of that same account — goes before every stranger's, and a
 * stranger's is refused at once (PasswordsBusy → 429 with Retry-After) when STRANGERS_WAITING
 * are already waiting, so a flood from rotating addresses cannot push the owner's login back
 * by more than one hash.
 */
export const MAX_AT_ONCE = Math.max(1, Math.min(4, Math.floor(os.availableParallelism() / 2)));
/** Strangers' checks that may wait for a turn; more are refused (about a quarter second of hashing per slot). */
export const STRANGERS_WAITING = 4 * MAX_AT_ONCE;
/** Known callers' checks that may wait; a bound only so memory stays bounded. */
export const KNOWN_WAITING = 64;

/** Who asks: 'known' goes first (see above), 'stranger' may be refused when the queue is full. */
export type Caller = 'known' | 'stranger';

/** The queue of password checks is full: answer 429 with Retry-After: retryAfterSec. */
export class PasswordsBusy extends HttpError {
  readonly retryAfterSec = 2;
  constructor() {
    super(429, 'Сейчас слишком много попыток входа. Повторите через 2 секунды.', { code: 'passwords_busy', extra: { retry_after: 2 } });
  }
}

let running = 0;
const known: (() => void)[] = [];
const strangers: (() => void)[] = [];
/** How long one check takes here (moving average, ms): an unknown name waits about as long without hashing. */
let typicalMs = 40;

/** Throws PasswordsBusy when a caller of this kind would have to wait and its queue is full. */
function admit(caller: Caller): void {
  if (running < MAX_AT_ONCE) return;
  if (caller === 'stranger' ? strangers.length >= STRANGERS_WAITING : known.length >= KNOWN_WAITING) throw new PasswordsBusy();
}

async function inTurn<T>(caller: Caller, work: () => Promise<T>): Promise<T> {
  admit(caller);
  if (running >= MAX_AT_ONCE) await new Promise<void>((resolve) => (caller === 'known' ? known : strangers).push(resolve));
  else running++;
  const started = performance.now();
  try {
    return await work();
  } finally {
    typicalMs = typicalMs * 0.9 + Math.min(1000, performance.now() - started) * 0.1;
    const next = known.shift() ?? strangers.shift();
    if (next) next();
    else running--;
  }
}

export function hashPassword(password: string, caller: Caller = 'known'): Promise<string> {
  return inTurn(caller, () => hash(password, OPTIONS));
}

/** Throws PasswordsBusy (before any work) when the caller's queue is full. */
export async function verifyPassword(passwordHash: string, password: string, caller: Caller = 'stranger'): Promise<boolean> {
  return inTurn(caller, () => verify(passwordHash, password).catch(() => false));
}

/** A hash made with other parameters (the 19 MiB of earlier versions): made anew at the next login. */
export function hashIsOutdated(passwordHash: string): boolean {
  return passwordHash.startsWith('$argon2') && !passwordHash.includes(CURRENT_PARAMS);
}

/**
 * The answer for a name that does not exist: no hash (strangers could make the site hash for
 * free), but the same admission and about the same wait as a real check, so that the timing does
 * not tell a wrong name from a wrong password.
 */
export async function burnPasswordCheck(caller: Caller = 'stranger'): Promise<void> {
  admit(caller);
  const waitAhead = running >= MAX_AT_ONCE ? ((caller === 'known' ? known.length : known.length + strangers.length) + 1) * typicalMs : 0;
  const ms = (waitAhead / MAX_AT_ONCE + typicalMs) * (0.85 + Math.random() * 0.3);
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A failed login — a name nobody has, a wrong password, a wrong second-factor code — is answered no
 * sooner than floorMs (and up to a tenth more) after it began, as pam_faildelay does for a system
 * login. The two kinds of failure then take the same time whatever the hash took, and a stranger's
 * loop of guesses turns at most once per floor: 32 loops of made-up names from rotating addresses
 * made 700–900 requests a second here, each a route, a lookup and an error answer, on the cores the
 * owner's login needs (issue 29). A wait holds only a timer; refusals over a limit stay at once.
 */
export async function failedLoginFloor(startedAt: number, floorMs: number): Promise<void> {
  const wait = startedAt + floorMs * (1 + Math.random() * 0.1) - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** For tests: the queue's state. */
export function passwordQueue(): { running: number; known: number; strangers: number; typicalMs: number } {
  return { running, known: known.length, strangers: strangers.length, typicalMs };
}
