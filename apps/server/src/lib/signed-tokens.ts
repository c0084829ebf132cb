import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Tokens that carry the site's signature: random bytes and a truncated HMAC-SHA256 of them (of
 * `purpose:random`, so a token made for one use is no good for another), both in one encoding,
 * back to back. A made-up or altered token is refused by its signature alone, before it is hashed
 * for a database read (a refusal costs almost nothing, also from many addresses).
 */
export class TokenSigner {
  private readonly randomChars: number;
  /** How many characters a signed token has. */
  readonly length: number;

  constructor(
    private readonly key: Buffer,
    private readonly purpose: string,
    private readonly shape: { randomBytes: number; macBytes: number; encoding: 'hex' | 'base64url' },
  ) {
    this.randomChars = charsOf(shape.randomBytes, shape.encoding);
    this.length = this.randomChars + charsOf(shape.macBytes, shape.encoding);
  }

  issue(): string {
    const random = randomBytes(this.shape.randomBytes).toString(this.shape.encoding);
    return random + this.mac(random);
  }

  /** Whether the token carries this signature (what it stands for may still have ended). */
  signed(token: string): boolean {
    if (token.length !== this.length) return false;
    // Compared as text: decoding would skip characters outside the alphabet and ignore the last
    // base64 character's unused bits.
    const given = Buffer.from(token.slice(this.randomChars), 'latin1');
    const expected = Buffer.from(this.mac(token.slice(0, this.randomChars)), 'latin1');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private mac(random: string): string {
    return createHmac('sha256', this.key)
      .update(`${this.purpose}:${random}`)
      .digest()
      .subarray(0, this.shape.macBytes)
      .toString(this.shape.encoding);
  }
}

function charsOf(bytes: number, encoding: 'hex' | 'base64url'): number {
  return encoding === 'hex' ? bytes * 2 : Math.ceil((bytes * 4) / 3);
}

/** Once no unsigned token was live, how often an unsigned one may make the database look again. */
const UNSIGNED_RECHECK_MS = 10 * 60_000;

/**
 * Tokens made before signing began stay good until they end: while one may be live (`latestEnd`
 * says until when, from the rows marked unsigned), an unsigned token is looked up as before. After
 * that it is refused without a query, save one look every ten minutes for those an instance of an
 * older version made meanwhile (while several run during an upgrade).
 */
export class UnsignedGrace {
  private looking: Promise<void> | null = null;

  private constructor(
    private readonly latestEnd: (now: number) => Promise<number>,
    private until: number,
    private lookedAt: number,
  ) {}

  static async start(latestEnd: (now: number) => Promise<number>, now = Date.now()): Promise<UnsignedGrace> {
    return new UnsignedGrace(latestEnd, await latestEnd(now), now);
  }

  /**
   * Whether a lookup could find a live token: one of the old unsigned length while the grace
   * lasts, any other only with the signer's signature.
   */
  admits(token: string, unsignedLength: number, signer: TokenSigner, now = Date.now()): Promise<boolean> | boolean {
    return token.length === unsignedLength ? this.mayBeLive(now) : signer.signed(token);
  }

  /** Whether an unsigned token may still be live at `now`. */
  async mayBeLive(now = Date.now()): Promise<boolean> {
    if (now < this.until) return true;
    if (now - this.lookedAt >= UNSIGNED_RECHECK_MS) {
      this.looking ??= this.latestEnd(now)
        .then((until) => {
          this.until = until;
          this.lookedAt = now;
        })
        .finally(() => (this.looking = null));
      await this.looking;
    }
    return now < this.until;
  }
}
