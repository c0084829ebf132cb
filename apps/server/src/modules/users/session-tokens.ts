import type { Db } from '../../db/index.ts';
import { perDatabase, sharedSecret } from '../../lib/shared-secrets.ts';
import { TokenSigner, UnsignedGrace } from '../../lib/signed-tokens.ts';

/** What newToken() made before sessions were signed: 32 random bytes in base64url. */
const UNSIGNED_CHARS = 43;

/**
 * Site session tokens (cookie and `Authorization: Bearer`) carry the site's signature (key:
 * shared_secrets 'sessions', one per database, so every instance knows it): 32 random bytes and a
 * 16-byte HMAC, 65 characters of base64url. A made-up or mistyped token is refused by its
 * signature alone, without a database read (issue 29: a forged cookie cost a query each).
 * Sessions from before signing (rows with `signed = 0`) keep working until they end (UnsignedGrace).
 */
export class SessionTokens {
  private constructor(
    private readonly signer: TokenSigner,
    private readonly grace: UnsignedGrace,
  ) {}

  static readonly load = perDatabase(async (db) => {
    const [key, grace] = await Promise.all([sharedSecret(db, 'sessions'), UnsignedGrace.start((now) => unsignedSessionsUntil(db, now))]);
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

async function unsignedSessionsUntil(db: Db, now: number): Promise<number> {
  const row = await db
    .selectFrom('sessions')
    .select((eb) => eb.fn.max('expires_at').as('until'))
    .where('signed', '=', 0)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.until == null ? 0 : Number(row.until);
}
