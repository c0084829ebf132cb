import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * Whether a secret, signature or code someone sent equals the expected one, in constant time:
 * both sides are hashed first, so neither the contents nor the length leak through timing.
 */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}
