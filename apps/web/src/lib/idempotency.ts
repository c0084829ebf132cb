import { ApiError } from './api.ts';

/**
 * A key for one purchase: made when its confirmation opens and sent with every try of it, so a
 * double submit, a retry after a lost answer or a second click after an error buys once; opening
 * the confirmation again makes a new one. crypto.getRandomValues works on plain-http sites too.
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `buy-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Sends a request that carries its Idempotency-Key. When the answer is lost on the way (no
 * connection), the same request goes once more a second later: the server answers it with the
 * first result instead of buying twice.
 */
export async function sendIdempotent<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 0) throw err;
    await new Promise((r) => setTimeout(r, 1000));
    return send();
  }
}
