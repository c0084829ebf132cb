import os from 'node:os';
import { hash, verify } from '@node-rs/argon2';
import { Admission, type Caller } from './admission.ts';

export { PasswordsBusy, stranger, type Caller } from './admission.ts';

/**
 * Argon2id (algorithm 2: the package's enum is a const enum, which isolated modules cannot import)
 * with 12 MiB and 3 passes: one of the settings OWASP's password storage cheat sheet gives as equal
 * in defence to 19 MiB and 2 passes, and here half the CPU (docs/security.md): 12 MiB stays in the
 * processor's cache where 19 does not.
 */
const OPTIONS = { algorithm: 2, memoryCost: 12_288, timeCost: 3, parallelism: 1 };
/** The parameters part of a hash made with OPTIONS ($argon2id$v=19$m=12288,t=3,p=1$salt$hash). */
const CURRENT_PARAMS = `$m=${OPTIONS.memoryCost},t=${OPTIONS.timeCost},p=${OPTIONS.parallelism}$`;

/**
 * Each hash holds 12 MiB while it runs, on one of libuv's threads: one per core, at most four, so
 * memory does not balloon. The pool's threads run at a lower priority (lib/pool-threads.ts), so
 * pages still go first on a busy core; a slot is also held while the event loop takes a finished
 * hash's result, and with one slot per core a second hash runs in that gap instead of waiting.
 * Several instances on one machine share its cores: PASSWORD_SLOTS gives each its part
 * (usePasswordSlots below).
 */
export const SLOTS = Math.max(1, Math.min(4, os.availableParallelism()));

/**
 * The checks this process runs at once: PASSWORD_SLOTS when set (1–4), else one per core. Called
 * once at start, before any check.
 */
export function usePasswordSlots(configured: number): number {
  const slots = configured > 0 ? configured : SLOTS;
  passwordWork.setSlots(slots);
  return slots;
}

/** A stranger still waiting for its check after this long is refused (429 with Retry-After). */
export const MAX_WAIT_MS = 2000;
/**
 * A stranger whose estimated wait is longer than this is refused at once. Twice the bound: the
 * estimate runs high while a crowd is still arriving (admission.ts), and a newcomer it said would
 * wait up to twice the bound is still let in far more often than not.
 */
export const REFUSE_AT_ONCE_MS = 2 * MAX_WAIT_MS;

/**
 * The password work of this process, admitted by expected wait (admission.ts): one per process,
 * as the cores it shares are.
 */
export const passwordWork = new Admission({
  slots: SLOTS,
  maxWaitMs: MAX_WAIT_MS,
  refuseAtOnceMs: REFUSE_AT_ONCE_MS,
  maxWaiting: 4096,
  typicalMs: 10,
});

export function hashPassword(password: string, caller: Caller = 'known'): Promise<string> {
  return passwordWork.run(caller, () => hash(password, OPTIONS));
}

/** Throws PasswordsBusy (before any work) when the caller would wait too long. */
export function verifyPassword(passwordHash: string, password: string, caller: Caller): Promise<boolean> {
  return passwordWork.run(caller, () => verify(passwordHash, password).catch(() => false));
}

/** A hash made with other parameters (the 19 MiB of earlier versions): made anew at the next login. */
export function hashIsOutdated(passwordHash: string): boolean {
  return passwordHash.startsWith('$argon2') && !passwordHash.includes(CURRENT_PARAMS);
}

/**
 * After a successful check: the password hashed anew when the stored hash was made with older
 * parameters, or null (current already, or the checks are busy: the next login does it).
 */
export async function renewedHash(passwordHash: string, password: string): Promise<string | null> {
  if (!hashIsOutdated(passwordHash)) return null;
  try {
    return await hashPassword(password, 'known');
  } catch {
    return null;
  }
}

/**
 * The answer for a name that does not exist: no hash (strangers could make the site hash for
 * free), but the same admission and about the same wait as a real check, so that the timing does
 * not tell a wrong name from a wrong password.
 */
export function burnPasswordCheck(caller: Caller): Promise<void> {
  return passwordWork.burn(caller);
}

/**
 * A failed login — a name nobody has, a wrong password, a wrong second-factor code — is answered no
 * sooner than floorMs (and up to a tenth more) after it began, as pam_faildelay does for a system
 * login. The two kinds of failure then take the same time whatever the hash took, and a stranger's
 * loop of guesses turns at most once per floor instead of hundreds of times a second on the cores
 * the owner's login needs. A wait holds only a timer; refusals over a limit stay at once.
 */
export async function failedLoginFloor(startedAt: number, floorMs: number): Promise<void> {
  const wait = startedAt + floorMs * (1 + Math.random() * 0.1) - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}
