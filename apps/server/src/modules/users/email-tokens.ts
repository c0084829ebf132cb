import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { TokenParams } from '@kubik/contract';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Db } from '../../db/index.ts';
import { perDatabase, sharedSecret } from '../../lib/shared-secrets.ts';
import { hashToken } from '../../lib/tokens.ts';
import { findLiveEmailToken, insertEmailToken, markEmailTokenUsed } from './users.repo.ts';

// Each of these is one query, kept in the repository; callers find them here beside the other link functions.
export { deleteEmailTokensOf, expireEmailTokens, lastTokenAt } from './users.repo.ts';

/** Links sent by e-mail that prove the address: confirming it ('verify') and setting a new password ('reset'). Stored as hashes. */

type Kind = 'verify' | 'reset';
/** Every link the key signs: these two, and the e-mail change's confirm and cancel links (modules/email-change). */
export type LinkKind = Kind | 'email-confirm' | 'email-cancel';

/**
 * The key that signs the links (shared_secrets 'email_links', one per database, so every instance
 * knows it). A link's token is 24 random bytes and a 16-byte HMAC-SHA256 of its kind and those
 * bytes: a made-up or mistyped link is refused by its signature alone, before its body is read
 * or the database asked (a refusal costs almost nothing, also from many addresses).
 */
export class EmailLinkKey {
  private constructor(private readonly key: Buffer) {}

  static readonly load = perDatabase(async (db) => new EmailLinkKey(await sharedSecret(db, 'email_links')));

  /** A new link token of this kind. */
  issue(kind: LinkKind): string {
    const random = randomBytes(24).toString('base64url');
    return `${random}.${this.mac(kind, random)}`;
  }

  /** Whether the token carries this site's signature for this kind (it may still be used or expired). */
  signed(kind: LinkKind, token: string): boolean {
    const dot = token.indexOf('.');
    if (dot !== 32 || token.length !== 55) return false;
    // Compared as text: decoding would ignore the last character's unused bits, and a link
    // with one of them changed would pass.
    const given = Buffer.from(token.slice(dot + 1), 'latin1');
    const expected = Buffer.from(this.mac(kind, token.slice(0, dot)), 'latin1');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private mac(kind: LinkKind, random: string): string {
    return createHmac('sha256', this.key).update(`${kind}:${random}`).digest().subarray(0, 16).toString('base64url');
  }
}

/**
 * onRequest: a link whose token this site did not sign (made up, mistyped) is answered at once, as
 * the service would answer it, before its body is read or the database asked. Params outside
 * TokenParams go on to the schema's own 400.
 */
export function refuseUnsigned(links: EmailLinkKey, kind: LinkKind, refuse: (reply: FastifyReply) => void): onRequestHookHandler {
  return (request: FastifyRequest, reply, done) => {
    const params = request.params as { token?: unknown };
    if (typeof params.token === 'string' && links.signed(kind, params.token)) return done();
    if (!TokenParams.safeParse(params).success) return done();
    refuse(reply);
  };
}

export async function createEmailToken(db: Db, userId: number, kind: Kind, token: string, ttlMs: number): Promise<void> {
  const now = Date.now();
  await insertEmailToken(db, {
    user_id: userId,
    kind,
    token_hash: hashToken(token),
    created_at: now,
    expires_at: now + ttlMs,
    used_at: null,
  });
}

/** The user of a valid, unused token of this kind, without using it up; null when there is none. */
export async function findEmailTokenUser(db: Db, kind: Kind, token: string, now = Date.now()): Promise<number | null> {
  const row = await findLiveEmailToken(db, kind, hashToken(token), now);
  return row?.user_id ?? null;
}

/**
 * Marks a valid, unused token of this kind as used and returns its user id. The conditional
 * update makes a link single-use even when it is opened twice at the same moment.
 */
export async function consumeEmailToken(db: Db, kind: Kind, token: string, now = Date.now()): Promise<number | null> {
  const row = await findLiveEmailToken(db, kind, hashToken(token), now);
  if (!row) return null;
  return (await markEmailTokenUsed(db, row.id, now)) ? row.user_id : null;
}
