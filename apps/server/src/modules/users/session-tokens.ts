import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/index.ts';

/** A signed token: 32 random bytes and a 16-byte HMAC-SHA256 of them, each in base64url. */
const RANDOM_CHARS = 43;
const SIGNED_CHARS = RANDOM_CHARS + 22;
/** What newToken() made before sessions were signed: 32 random bytes in base64url. */
const UNSIGNED_CHARS = 43;
/** Once no unsigned session was live, how often an unsigned token may make the database look again. */
const UNSIGNED_RECHECK_MS = 10 * 60_000;

/** Each database's keys, read once. */
const loaded = new WeakMap<Db, Promise<SessionTokens>>();

/**
 * Site session tokens (cookie and `Authorization: Bearer`) carry the site's signature (key:
 * shared_secrets 'sessions', one per database, so every instance knows it). A made-up or
 * mistyped token is refused by its signature alone, without hashing it for a database read
 * (issue 29: a refusal costs almost nothing, also from many addresses; a forged cookie cost a
 * query each).
 *
 * Sessions made before tokens were signed (rows with `signed = 0`, also those an instance of an
 * older version makes while several run) keep working until they end: while one may be live,
 * unsigned tokens are looked up as before. After that an unsigned token is refused without a
 * query, save one look every ten minutes for such sessions an older instance made meanwhile.
 */
export class SessionTokens {
  /** Unsigned sessions may be live until then (the latest one's end). */
  private unsignedUntil: number;
  private lookedAt: number;
  private looking: Promise<void> | null = null;

  private constructor(
    private readonly db: Db,
    private readonly key: Buffer,
    unsignedUntil: number,
    now: number,
  ) {
    this.unsignedUntil = unsignedUntil;
    this.lookedAt = now;
  }

  static load(db: Db): Promise<SessionTokens> {
    let tokens = loaded.get(db);
    if (!tokens) {
      tokens = (async () => {
        const now = Date.now();
        const [row, until] = await Promise.all([
          db.selectFrom('shared_secrets').select('value').where('name', '=', 'sessions').executeTakeFirstOrThrow(),
          unsignedSessionsUntil(db, now),
        ]);
        return new SessionTokens(db, Buffer.from(row.value, 'base64'), until, now);
      })();
      loaded.set(db, tokens);
      tokens.catch(() => loaded.delete(db));
    }
    return tokens;
  }

  /** A new session token. */
  issue(): string {
    const random = randomBytes(32).toString('base64url');
    return random + this.mac(random);
  }

  /** Whether the token is signed by this site (the session may still have ended). */
  signed(token: string): boolean {
    if (token.length !== SIGNED_CHARS) return false;
    // Compared as text: decoding would ignore the last character's unused bits.
    const given = Buffer.from(token.slice(RANDOM_CHARS), 'latin1');
    const expected = Buffer.from(this.mac(token.slice(0, RANDOM_CHARS)), 'latin1');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** Whether a database lookup could find a live session for the token. */
  async mayBeLive(token: string, now = Date.now()): Promise<boolean> {
    if (token.length !== UNSIGNED_CHARS) return this.signed(token);
    if (now < this.unsignedUntil) return true;
    if (now - this.lookedAt >= UNSIGNED_RECHECK_MS) {
      this.looking ??= unsignedSessionsUntil(this.db, now)
        .then((until) => {
          this.unsignedUntil = until;
          this.lookedAt = now;
        })
        .finally(() => (this.looking = null));
      await this.looking;
    }
    return now < this.unsignedUntil;
  }

  private mac(random: string): string {
    return createHmac('sha256', this.key).update(`session:${random}`).digest().subarray(0, 16).toString('base64url');
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
