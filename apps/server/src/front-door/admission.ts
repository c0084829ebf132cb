import { HttpError } from '../lib/errors.ts';
import { plural } from '../lib/plural.ts';
import { networkOf } from '../lib/rate-limit.ts';

/**
 * Admission of expensive work (password hashes) by the time a caller would wait, not by how many
 * wait. A launch day's crowd of newcomers waits its turn while the wait stays short: a stranger
 * who has waited `maxWaitMs` for its turn is refused then, and one whose estimated wait is far
 * longer (`refuseAtOnceMs`) is refused at once, before it waits at all.
 *
 * Why two bounds: the estimate extrapolates the pace of the latest checks, and while a crowd is
 * still arriving that pace is the slowest it will be. The arrivals' own work (reading the request,
 * the queries before the hash) runs on the main threads, which go before the hashes on a busy
 * core; once they stop coming the checks speed up, and the last of a burst wait far less than
 * the estimate said to them (docs/bench.md). Refused by the estimate, part of a crowd would meet
 * a 429 the machine has room for; the deadline keeps the promise of a short wait exactly, whatever
 * the pace does next, and the estimate still spares a caller a wait that cannot end in time.
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
  /** A stranger still waiting for its turn after this long is refused then (ms). */
  maxWaitMs: number;
  /** A stranger whose estimated wait is longer than this is refused at once (ms; maxWaitMs when not set). */
  refuseAtOnceMs?: number;
  /** At most this many may wait, known callers and strangers alike (memory). */
  maxWaiting: number;
  /** How long one check holds a slot before any has finished here (ms). */
  typicalMs: number;
  /** The clock (ms): performance.now, or a test's own. */
  now?: () => number;
}

/**
 * What the estimate learns from: the latest finished checks, those of the last WINDOW_MS, but never
 * fewer than MIN_SAMPLES (after a quiet hour the last few checks are still the best guess) nor more
 * than SAMPLES. A stretch of slow checks is forgotten after SAMPLES more or WINDOW_MS: a moving
 * average kept it for dozens, and refused a crowd the machine had room for again.
 */
const SAMPLES = 16;
const MIN_SAMPLES = 4;
const WINDOW_MS = 2000;
/** From this many checks in the window the longest is left out. */
const TRIM_FROM = 8;

/** A stranger waiting for its turn: let in, or refused when its wait reaches maxWaitMs. */
interface Waiter {
  start: () => void;
  timer?: ReturnType<typeof setTimeout>;
}

export class Admission {
  private running = 0;
  private slots: number;
  /** When each running check started (the clock), at most `slots` of them. */
  private readonly startedAt: number[] = [];
  private readonly known: (() => void)[] = [];
  /** Strangers' waiters by network, in the order their networks take turns (a Map keeps insertion order). */
  private readonly networks = new Map<string, Waiter[]>();
  private strangers = 0;
  /** The latest finished checks, a ring: when each finished and how long it held its slot (ms). */
  private readonly doneAt = new Float64Array(SAMPLES);
  private readonly heldMs = new Float64Array(SAMPLES);
  private done = 0;
  private readonly now: () => number;

  constructor(private readonly options: AdmissionOptions) {
    this.now = options.now ?? (() => performance.now());
    this.slots = options.slots;
  }

  /** Sets how many checks run at once; at start, before any check (the site's PASSWORD_SLOTS). */
  setSlots(slots: number): void {
    if (this.running > 0 || slots < 1) throw new Error('slots are set before any check, at least one');
    this.slots = slots;
  }

  /**
   * How long one check holds a slot now (ms): the slot time of the recent window's checks per
   * check finished, that is the inverse of the rate a slot finishes them at (the longest left out
   * of a window of eight or more). It counts all a
   * check's slot holds: the hash, its thread's waits for a core and the event loop's delay in
   * taking the result, so it follows the machine as it is during a burst. A check running longer
   * than that adds its overrun to the window: no check finishing is news too (a stalled machine
   * raises the estimate at once, by how long it stalls, instead of multiplying every wait by the
   * oldest check's age).
   */
  checkMs(now = this.now()): number {
    let held = 0;
    let count = 0;
    for (let i = 1; i <= Math.min(this.done, SAMPLES); i++) {
      const at = (this.done - i) % SAMPLES;
      if (count >= MIN_SAMPLES && now - this.doneAt[at]! > WINDOW_MS) break;
      held += this.heldMs[at]!;
      count++;
    }
    // The longest of a full enough window is left out: one check far longer than the rest is a
    // stall (a collection, the pool's thread kept from a core for a moment), counted while it lasted
    // (below); once over it says little about the next checks, and kept it refused a crowd for a
    // window more. A machine slow for good shows in every other check as well.
    if (count >= TRIM_FROM) {
      let longest = 0;
      for (let i = 1; i <= count; i++) longest = Math.max(longest, this.heldMs[(this.done - i) % SAMPLES]!);
      held -= longest;
      count--;
    }
    if (count === 0) {
      held = this.options.typicalMs;
      count = 1;
    }
    const typical = held / count;
    let overrun = 0;
    for (const started of this.startedAt) overrun += Math.max(0, now - started - typical);
    return (held + overrun) / count;
  }

  /** How long a check asked now by this caller would wait for its turn (ms). */
  expectedWaitMs(caller: Caller): number {
    const { slots } = this;
    if (this.running < slots) return 0;
    let ahead = this.known.length;
    if (caller !== 'known') {
      const mine = this.networks.get(networkOf(caller.address))?.length ?? 0;
      // Round by round: every network ahead gives at most one more check than this one has waiting.
      for (const queue of this.networks.values()) ahead += Math.min(queue.length, mine + 1);
    }
    const now = this.now();
    const check = this.checkMs(now);
    // When each slot frees: a running check's rest by its age (a check past the typical time may
    // end any moment), a slot just handed on but not yet started a whole check.
    const frees = this.startedAt.map((started) => Math.max(0, check - (now - started)));
    while (frees.length < slots) frees.push(check);
    frees.sort((a, b) => a - b);
    // The slots then take the waiters in rotation, each a check at a time: the caller's turn comes
    // when the slot its place falls to has run the checks before it.
    return frees[ahead % slots]! + Math.floor(ahead / slots) * check;
  }

  /** Throws Busy, before any work, when the caller would wait too long or nothing more may wait. */
  admit(caller: Caller): void {
    if (this.running < this.slots) return;
    if (this.known.length + this.strangers >= this.options.maxWaiting) throw new PasswordsBusy(this.retryAfterSec());
    if (caller === 'known') return;
    const wait = this.expectedWaitMs(caller);
    if (wait > this.refuseAtOnceMs) throw new PasswordsBusy(this.retryAfterSec(wait));
  }

  private get refuseAtOnceMs(): number {
    return this.options.refuseAtOnceMs ?? this.options.maxWaitMs;
  }

  /** Runs the work in the caller's turn; throws Busy (before any work) instead of a long wait. */
  async run<T>(caller: Caller, work: () => Promise<T>): Promise<T> {
    this.admit(caller);
    if (this.running >= this.slots) await new Promise<void>((resolve, reject) => this.enqueue(caller, resolve, reject));
    else this.running++;
    const started = this.now();
    this.startedAt.push(started);
    try {
      return await work();
    } finally {
      const now = this.now();
      this.startedAt.splice(this.startedAt.indexOf(started), 1);
      const at = this.done % SAMPLES;
      this.doneAt[at] = now;
      // At least a millisecond: no real check is quicker, and the bound on waiters stays finite.
      this.heldMs[at] = Math.max(1, now - started);
      this.done++;
      this.handOn();
    }
  }

  /** A slot ends its work: to the next waiter, or free. */
  private handOn(): void {
    const next = this.next();
    if (next) next();
    else this.running--;
  }

  /**
   * Waits about as long as this caller's check would take, without doing one (a name nobody has:
   * the timing must not tell it from a wrong password, and a stranger must not make the site hash
   * for free). It is admitted like a check and waits in line like one, deadline included; when its
   * turn comes it hands the slot on at once and waits about one check's time outside it.
   */
  async burn(caller: Caller): Promise<void> {
    this.admit(caller);
    if (this.running >= this.slots) {
      await new Promise<void>((resolve, reject) => this.enqueue(caller, resolve, reject));
      this.handOn();
    }
    const ms = this.checkMs() * (0.85 + Math.random() * 0.3);
    await new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** For tests and the bench: what runs and waits now. */
  state(): { running: number; known: number; strangers: number; networks: number; typicalMs: number } {
    return {
      running: this.running,
      known: this.known.length,
      strangers: this.strangers,
      networks: this.networks.size,
      typicalMs: this.checkMs(),
    };
  }

  private enqueue(caller: Caller, resolve: () => void, reject: (err: Error) => void): void {
    if (caller === 'known') return void this.known.push(resolve);
    const network = networkOf(caller.address);
    const waiter: Waiter = { start: resolve };
    waiter.timer = setTimeout(() => {
      // Still waiting at the deadline: out of the queue, refused with what the wait looks like now.
      const queue = this.networks.get(network);
      const at = queue?.indexOf(waiter) ?? -1;
      if (!queue || at < 0) return;
      queue.splice(at, 1);
      if (queue.length === 0) this.networks.delete(network);
      this.strangers--;
      reject(new PasswordsBusy(this.retryAfterSec(Math.max(this.options.maxWaitMs, this.expectedWaitMs(caller)))));
    }, this.options.maxWaitMs);
    waiter.timer.unref?.();
    const queue = this.networks.get(network);
    if (queue) queue.push(waiter);
    else this.networks.set(network, [waiter]);
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
      clearTimeout(waiter.timer);
      return waiter.start;
    }
    return undefined;
  }

  private retryAfterSec(waitMs = this.options.maxWaitMs): number {
    return Math.max(1, Math.min(60, Math.ceil(waitMs / 1000)));
  }
}
