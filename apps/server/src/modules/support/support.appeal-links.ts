import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/index.ts';
import { perDatabase, sharedSecret } from '../../lib/shared-secrets.ts';

/** How long an appeal link works (while the ban it names is in force). */
export const APPEAL_LINK_TTL_MS = 30 * 86_400_000;

export interface AppealClaim {
  userId: number;
  /** The ban's start (users.banned_at): a new ban makes the old links void. */
  since: number;
  expires: number;
}

const SHAPE = /^([0-9a-z]{1,12})\.([0-9a-z]{1,12})\.([0-9a-z]{1,12})\.([A-Za-z0-9_-]{22})$/;

/**
 * A banned player cannot log in, so an appeal is made with a link that stands for the login: it
 * names the account and the ban in force and carries the site's signature (HMAC-SHA256 with the
 * key shared_secrets 'support_appeals', truncated to 16 bytes). It is handed out only where the
 * account was proven — the password login's refusal of a banned account (after the password and
 * the second factor) — or sent to the account's address. A made-up, altered or expired link is
 * refused by its signature and time alone, before the body is read or the database asked.
 */
export class AppealLinks {
  private constructor(private readonly key: Buffer) {}

  static readonly load = perDatabase(async (db: Db) => new AppealLinks(await sharedSecret(db, 'support_appeals')));

  issue(userId: number, since: number, now = Date.now()): string {
    const body = `${userId.toString(36)}.${since.toString(36)}.${(now + APPEAL_LINK_TTL_MS).toString(36)}`;
    return `${body}.${this.mac(body)}`;
  }

  /** The claim of a link this site signed and that has not expired; null otherwise. */
  read(token: string, now = Date.now()): AppealClaim | null {
    const m = SHAPE.exec(token);
    if (!m) return null;
    const body = `${m[1]}.${m[2]}.${m[3]}`;
    // Compared as text: decoding would ignore the last character's unused bits.
    const given = Buffer.from(m[4]!, 'latin1');
    const expected = Buffer.from(this.mac(body), 'latin1');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const claim = { userId: parseInt(m[1]!, 36), since: parseInt(m[2]!, 36), expires: parseInt(m[3]!, 36) };
    return claim.expires > now && Number.isSafeInteger(claim.userId) ? claim : null;
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(`appeal:${body}`).digest().subarray(0, 16).toString('base64url');
  }
}
