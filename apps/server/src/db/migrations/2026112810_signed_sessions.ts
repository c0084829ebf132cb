import type { Kysely } from 'kysely';
import { addSignedTokens } from '../schema-helpers.ts';

/**
 * Session tokens carry the site's signature (modules/users/session-tokens.ts): the key, and a
 * mark on each session whether its token is signed. Every session made before this is unsigned
 * (0), and so is one an instance of an older version still makes while several run: those are
 * looked up as before until the last of them ends.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await addSignedTokens(db, 'sessions', 'sessions');
}

export async function down(): Promise<void> {
  // Migrations are frozen once landed; no downgrades.
}
