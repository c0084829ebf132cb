import { createHash, randomBytes } from 'node:crypto';
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';

/**
 * Whose claims these are. Every lock token this process writes reads `<instance>.<life>.<random>`
 * (hex, so a LIKE pattern needs no escaping): the instance (INSTANCE_ID, by default the host and
 * port; the same across restarts) and this life of it (new at each start). A restarted instance
 * takes back at once what its previous life claimed and never finished — it knows that life is
 * over — instead of waiting for the leases to run out; other instances' live claims stay theirs.
 * On SQLite one process holds the site, so every claim of an earlier life is its own.
 */
export class ClaimOwner {
  readonly instance: string;
  readonly life: string;

  constructor(
    instanceId: string,
    private readonly onlyProcess = false,
  ) {
    this.instance = createHash('sha256').update(instanceId).digest('hex').slice(0, 12);
    this.life = randomBytes(4).toString('hex');
  }

  /** A new claim's lock token (38 characters). */
  token(): string {
    return `${this.instance}.${this.life}.${randomBytes(8).toString('hex')}`;
  }

  /** Rows whose `lock_token` an earlier life of this instance wrote (every earlier life's, on SQLite). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any queue table has the column
  earlier(eb: ExpressionBuilder<any, any>): Expression<SqlBool> {
    const mineNow = eb('lock_token', 'not like', `${this.instance}.${this.life}.%`);
    if (this.onlyProcess) return eb.and([eb('lock_token', 'is not', null), mineNow]);
    return eb.and([eb('lock_token', 'like', `${this.instance}.%`), mineNow]);
  }
}
