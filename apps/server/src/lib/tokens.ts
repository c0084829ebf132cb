import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits, URL-safe: used for devices and one-time tickets (e-mail links and sessions are signed: modules/users/email-tokens.ts, session-tokens.ts). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Tokens are stored only as hashes, so a leaked database holds no usable link or session. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
