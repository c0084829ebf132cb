import { createHash } from 'node:crypto';
import type { Db } from '../../db/index.ts';
import { conflict, isUniqueViolation } from '../../lib/errors.ts';
import type { ScheduledJobSpec } from '../../lib/jobs/index.ts';
import { deleteKeysBefore, findLegacyKey, findPurchaseKey, insertPurchaseKey, savePurchaseAnswer } from './purchases.repo.ts';

/** The ways to spend the balance; each purchase's key is kept with its kind. */
export const PURCHASE_KINDS = ['shop', 'tier', 'cart'] as const;
export type PurchaseKind = (typeof PURCHASE_KINDS)[number];

/** How long a key answers with its first result. */
export const KEY_TTL_MS = 7 * 86_400_000;

export const KEY_TEXTS = {
  keyReused: 'Этот ключ Idempotency-Key уже использован для другой покупки',
  keyInFlight: 'Эта покупка уже выполняется. Обновите страницу через несколько секунд.',
} as const;

/** JSON with the keys of every object sorted and undefined ones left out: one request, one text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** What a key stands for: SHA-256 of the kind and the request. */
export function requestFingerprint(kind: PurchaseKind, request: unknown): string {
  return createHash('sha256')
    .update(`${kind}\n${canonical(request)}`)
    .digest('hex');
}

/** One purchase as its key sees it. */
export interface KeyedRequest {
  /** Whose key it is: the player who pays. */
  userId: number;
  /** The Idempotency-Key header, if sent; without one every request is a purchase of its own. */
  key: string | undefined;
  kind: PurchaseKind;
  /** Everything that makes this purchase what it is (the body, the path's id); its retry sends the same. */
  request: unknown;
}

interface StoredKey {
  request: string;
  response: string | null;
}

function replay<A>(prev: StoredKey, fingerprint: string): A {
  if (prev.request !== fingerprint) throw conflict(KEY_TEXTS.keyReused, { code: 'idempotency_key_reused' });
  // Only a committed purchase leaves a key behind, and it commits together with its answer.
  if (!prev.response) throw conflict(KEY_TEXTS.keyInFlight, { code: 'idempotency_key_in_flight' });
  return JSON.parse(prev.response) as A;
}

async function findKey(db: Db, kind: PurchaseKind, userId: number, key: string): Promise<StoredKey | undefined> {
  const row = await findPurchaseKey(db, userId, key);
  return row ?? legacyKey(db, kind, userId, key);
}

/**
 * A key the previous release wrote to its own table while this one was already answering (the
 * rolling restart runs both). Goes with those tables in the next release.
 */
async function legacyKey(db: Db, kind: PurchaseKind, userId: number, key: string): Promise<StoredKey | undefined> {
  if (kind === 'cart') return undefined;
  const row = await findLegacyKey(db, kind === 'shop' ? 'shop_idempotency' : 'privilege_idempotency', userId, key, Date.now() - KEY_TTL_MS);
  const pair = row && /^(\d+):(\d+)$/.exec(row.request);
  if (!row || !pair) return undefined;
  const [a, b] = [Number(pair[1]), Number(pair[2])];
  const request = kind === 'shop' ? { shop_id: a, quantity: b } : { tier_id: a, months: b };
  return { request: requestFingerprint(kind, request), response: row.response };
}

/**
 * Runs `run` in a transaction once per key: a request whose key was used before gets the first
 * answer back (or 409 when the key came with another request) and changes nothing. The key is
 * written first in the transaction, so a concurrent request with the same key waits on it
 * (PostgreSQL) or fails on it (SQLite) and then replays what the first one committed; a refused
 * purchase rolls its key back with everything else, so the same key may try again.
 */
/**
 * PostgreSQL may pick a purchase as the victim of a deadlock (a tier gift locks two players, a
 * delivery or a refund one of them) or of a serialization failure: the transaction rolled back
 * whole, so running it again is safe. A few tries, then the error stands.
 */
const RETRYABLE = new Set(['40P01', '40001']);

/**
 * Thrown by a purchase step when what it read changed under it (an admin's edit): the purchase
 * runs again; after the last try the player gets `refusal`.
 */
export class RetryPurchase extends Error {
  constructor(readonly refusal: Error) {
    super(refusal.message);
  }
}

async function retried<A>(attempt: () => Promise<A>): Promise<A> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      const again = err instanceof RetryPurchase || RETRYABLE.has(String((err as { code?: unknown }).code));
      if (!again) throw err;
      if (i >= 3) throw err instanceof RetryPurchase ? err.refusal : err;
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * i));
    }
  }
}

export async function idempotent<A>(db: Db, keyed: KeyedRequest, run: (trx: Db) => Promise<A>): Promise<A> {
  const { userId, key, kind } = keyed;
  if (!key) return retried(() => db.transaction().execute(run));
  const fingerprint = requestFingerprint(kind, keyed.request);
  const prev = await findKey(db, kind, userId, key);
  if (prev) return replay(prev, fingerprint);
  try {
    return await retried(() =>
      db.transaction().execute(async (trx) => {
        await insertPurchaseKey(trx, { user_id: userId, key, kind, request: fingerprint, response: null, created_at: Date.now() });
        const answer = await run(trx);
        await savePurchaseAnswer(trx, userId, key, JSON.stringify(answer));
        return answer;
      }),
    );
  } catch (err) {
    if (isUniqueViolation(err)) {
      const first = await findKey(db, kind, userId, key);
      if (first) return replay(first, fingerprint);
    }
    throw err;
  }
}

/** Keys are kept a week: an hourly job across all instances drops older ones. */
export function keyCleanupJob(db: Db): ScheduledJobSpec {
  return {
    name: 'purchases.key-cleanup',
    everyMs: 3_600_000,
    run: () => deleteKeysBefore(db, Date.now() - KEY_TTL_MS),
  };
}
