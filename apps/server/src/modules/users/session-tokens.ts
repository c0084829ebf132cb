import type { IncomingHttpHeaders } from 'node:http';
import { perDatabase, sharedSecret } from '../../lib/shared-secrets.ts';
import { TokenSigner, UnsignedGrace } from '../../lib/signed-tokens.ts';
import { lastUnsignedSessionEnd } from './users.repo.ts';

/** What newToken() made before sessions were signed: 32 random bytes in base64url. */
const UNSIGNED_CHARS = 43;

/**
 * Site session tokens (cookie and `Authorization: Bearer`) carry the site's signature (key:
 * shared_secrets 'sessions', one per database, so every instance knows it): 32 random bytes and a
 * 16-byte HMAC, 65 characters of base64url. A made-up or mistyped token is refused by its
 * signature alone, without a database read (a forged cookie cost a query each).
 * Sessions from before signing (rows with `signed = 0`) keep working until they end (UnsignedGrace).
 */
export class SessionTokens {
  private constructor(
    private readonly signer: TokenSigner,
    private readonly grace: UnsignedGrace,
  ) {}

  static readonly load = perDatabase(async (db) => {
    const [key, grace] = await Promise.all([sharedSecret(db, 'sessions'), UnsignedGrace.start((now) => lastUnsignedSessionEnd(db, now))]);
    return new SessionTokens(new TokenSigner(key, 'session', { randomBytes: 32, macBytes: 16, encoding: 'base64url' }), grace);
  });

  /** A new session token. */
  issue(): string {
    return this.signer.issue();
  }

  /** Whether the token is signed by this site (the session may still have ended). */
  signed(token: string): boolean {
    return this.signer.signed(token);
  }

  /** Whether a database lookup could find a live session for the token. */
  mayBeLive(token: string, now = Date.now()): Promise<boolean> | boolean {
    return this.grace.admits(token, UNSIGNED_CHARS, this.signer, now);
  }
}

/** The httpOnly cookie that carries a browser's session token. */
export const SESSION_COOKIE = 'kubik_session';
/**
 * Set and cleared with the session cookie, readable by the page and holding no secret (`1`): the
 * web app asks /api/user/me only when it is there, so a guest's page makes no call that must fail,
 * and a page drawn for guests is never sent to a browser that is signed in.
 */
export const SIGNED_IN_COOKIE = 'kubik_in';
/** Marks a browser where an account logged in (login throttling skips it; new-device letters). */
export const DEVICE_COOKIE = 'kubik_device';

/**
 * The session token a request carries: `Authorization: Bearer <token>` (launchers and API
 * clients), otherwise the session cookie. The one reader of a session token: the routes' access
 * check and the front door's answers from memory read the same token from the same request.
 * A cookie named twice counts by its first value, as the cookie parser reads it.
 */
export function sessionTokenOf(headers: IncomingHttpHeaders): string | null {
  const auth = headers.authorization;
  if (auth !== undefined && auth.startsWith('Bearer ')) return auth.slice(7).trim() || null;
  const cookie = headers.cookie;
  return cookie === undefined ? null : cookieValue(cookie, SESSION_COOKIE) || null;
}

/** Whether the browser says a session is signed in here (SIGNED_IN_COOKIE). */
export function signedInBrowser(headers: IncomingHttpHeaders): boolean {
  const cookie = headers.cookie;
  return cookie !== undefined && cookieValue(cookie, SIGNED_IN_COOKIE) === '1';
}

/** A cookie's value in a `Cookie` header (the first of that name), decoded as the cookie parser decodes it. */
function cookieValue(header: string, name: string): string | undefined {
  let at = 0;
  while (at < header.length) {
    const end = header.indexOf(';', at);
    const stop = end < 0 ? header.length : end;
    const eq = header.indexOf('=', at);
    if (eq >= 0 && eq < stop && header.slice(at, eq).trim() === name) {
      const value = header.slice(eq + 1, stop).trim();
      if (!value.includes('%')) return value;
      try {
        return decodeURIComponent(value);
      } catch {
        return value;
      }
    }
    at = stop + 1;
  }
  return undefined;
}
