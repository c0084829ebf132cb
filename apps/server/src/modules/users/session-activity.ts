import type { Db } from '../../db/index.ts';
import { recordSessionUse } from './users.repo.ts';

/** How often one instance writes a session's last use (a write per request would be wasteful). */
export const ACTIVITY_EVERY_MS = 60_000;

/**
 * When each session was last used («Сеансы и устройства» shows it), written at most once a minute
 * per session and instance. The table (`session_activity`) was created by the security feature's
 * migration; the users core writes it, as it writes the sessions it belongs to.
 */
export class SessionActivity {
  private readonly written = new Map<string, number>();

  constructor(private readonly db: Db) {}

  /** True when this instance wrote the session's use within the minute: touch() would write nothing now. */
  fresh(tokenHash: string, now = Date.now()): boolean {
    const last = this.written.get(tokenHash);
    return last !== undefined && now - last < ACTIVITY_EVERY_MS;
  }

  async touch(tokenHash: string, ip: string, now = Date.now()): Promise<void> {
    if (this.fresh(tokenHash, now)) return;
    if (this.written.size > 50_000) this.written.clear();
    this.written.set(tokenHash, now);
    const values = { last_seen_at: now, ip: ip.slice(0, 64) };
    try {
      await recordSessionUse(this.db, tokenHash, values);
    } catch {
      // The session ended meanwhile (the foreign key refuses the row): nothing to remember.
    }
  }
}
