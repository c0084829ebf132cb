import { HttpError } from '../lib/errors.ts';
import { plural } from '../lib/plural.ts';
import { addressKey } from '../lib/rate-limit.ts';

/**
 * Admission of expensive work (password hashes) by the time a caller would wait, not by how many
 * wait. A launch day's crowd of newcomers waits its turn while the wait stays short; a caller is
 * refused only when the wait it would face is longer than `maxWaitMs`.
 *
 * Who goes first: callers the site already knows (a browser or launcher that logged in to the
 * account before, a signed-in session) before every stranger. Strangers are served in turn by
 * network (an IPv4 /24, an IPv6 /64): one check from each network that waits, then the next round,
 * so a flood from one network lengthens its own wait and barely anyone else's. Memory stays
 * bounded: each waiter is a callback, the wait bound caps how many one network can queue, and
 * `maxWaiting` caps all of them.
 */

/** Who asks: 'known', or a stranger by the address the request came from. */
export type Caller = 'known' | { address: string };

/** A stranger's caller, by the request's address. */
export const stranger = (address: string): Caller => ({ address });

/** The check would wait too long: 429 with Retry-After. */
export class PasswordsBusy extends HttpError {
  constructor(readonly retryAfterSec: number) {
    super(
      429,
      `Сейчас слишком много попыток входа. Повторите через ${retryAfterSec} ${plural(retryAfterSec, ['секунду', 'секунды', 'секунд'])}.`,
      { code: 'passwords_busy', extra: { retry_after: retryAfterSec } },
    );
  }
}

export interface AdmissionOptions {
  /** Checks that run at once. */
  slots: number;
  /** A stranger who would wait longer than this is refused. */
  maxWaitMs: number;
  /** At most this many may wait, known callers and strangers alike (memory). */
  maxWaiting: number;
  /** How long one check takes before any was timed (ms). */
  typicalMs: number;
}

/** The network a stranger's turn is shared with: IPv4 /24, IPv6 /64 (addressKey gives the /64). */
export function networkOf(address: string): string {
  const key = addressKey(address);
  if (key.includes(':')) return key;
  const dot = key.lastIndexOf('.');
  return dot < 0 ? key : `${key.slice(0, dot)}.0/24`;
}

export class Admission {
  private running = 0;
  /** When each running check started (performance.now()), at most `slots` of them. */
  private readonly startedAt: number[] = [];
  private readonly known: (() => void)[] = [];
  /** Strangers' waiters by network, in the order their networks take turns (a Map keeps insertion order). */
  private readonly networks = new Map<string, (() => void)[]>();
  private strangers = 0;
  /** How long one check takes here, a moving average (ms). */
  private typicalMs: number;

  constructor(private readonly options: AdmissionOptions) {
    this.typicalMs = options.typicalMs;
  }

  /** How long a check asked now by this caller would wait for its turn (ms). */
  expectedWaitMs(caller: Caller): number {
    if (this.running < this.options.slots) return 0;
    let ahead = this.known.length;
    if (caller !== 'known') {
      const mine = this.networks.get(networkOf(caller.address))?.length ?? 0;
      // Round by round: every network ahead gives at most one more check than this one has waiting.
      for (const queue of this.networks.values()) ahead += Math.min(queue.length, mine + 1);
    }
    // A slot frees after about half a check on average; then `ahead` checks go, `slots` at a time.
    // A check running longer than the average says the machine is slower now than the average knows.
    const oldest = this.startedAt.length > 0 ? performance.now() - Math.min(...this.startedAt) : 0;
    return Math.max(this.typicalMs, oldest) * (0.5 + ahead / this.options.slots);
  }

  /** Throws Busy, before any work, when the caller would wait too long or nothing more may wait. */
  admit(caller: Caller): void {
    if (this.running < this.options.slots) return;
    if (this.known.length + this.strangers >= this.options.maxWaiting) throw new PasswordsBusy(this.retryAfterSec());
    if (caller === 'known') return;
    const wait = this.expectedWaitMs(caller);
    if (wait > this.options.maxWaitMs) throw new PasswordsBusy(this.retryAfterSec(wait));
  }

  /** Runs the work in the caller's turn; throws Busy (before any work) instead of a long wait. */
  async run<T>(caller: Caller, work: () => Promise<T>): Promise<T> {
    this.admit(caller);
    if (this.running >= this.options.slots) await new Promise<void>((resolve) => this.enqueue(caller, resolve));
    else this.running++;
    const started = performance.now();
    this.startedAt.push(started);
    try {
      return await work();
    } finally {
      this.startedAt.splice(this.startedAt.indexOf(started), 1);
      // At least a millisecond: no real check is quicker, and the bound on waiters stays finite.
      this.typicalMs = this.typicalMs * 0.9 + Math.min(1000, Math.max(1, performance.now() - started)) * 0.1;
      const next = this.next();
      if (next) next();
      else this.running--;
    }
  }

  /**
   * Waits about as long as this caller's check would take, without doing one (a name nobody has:
   * the timing must not tell it from a wrong password, and a stranger must not make the site hash
   * for free). Admitted like a check.
   */
  async burn(caller: Caller): Promise<void> {
    this.admit(caller);
    const ms = (this.expectedWaitMs(caller) + this.typicalMs) * (0.85 + Math.random() * 0.3);
    await new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** For tests and the bench: what runs and waits now. */
  state(): { running: number; known: number; strangers: number; networks: number; typicalMs: number } {
    return {
      running: this.running,
      known: this.known.length,
      strangers: this.strangers,
      networks: this.networks.size,
      typicalMs: this.typicalMs,
    };
  }

  private enqueue(caller: Caller, resolve: () => void): void {
    if (caller === 'known') return void this.known.push(resolve);
    const network = networkOf(caller.address);
    const queue = this.networks.get(network);
    if (queue) queue.push(resolve);
    else this.networks.set(network, [resolve]);
    this.strangers++;
  }

  /** The next waiter: known callers first, then the first network in turn, which goes to the back. */
  private next(): (() => void) | undefined {
    const known = this.known.shift();
    if (known) return known;
    for (const [network, queue] of this.networks) {
      const waiter = queue.shift()!;
      this.networks.delete(network);
      if (queue.length > 0) this.networks.set(network, queue);
      this.strangers--;
      return waiter;
    }
    return undefined;
  }

  private retryAfterSec(waitMs = this.options.maxWaitMs): number {
    return Math.max(1, Math.min(60, Math.ceil(waitMs / 1000)));
  }
}
