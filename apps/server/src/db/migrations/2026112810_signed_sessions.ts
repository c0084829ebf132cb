import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';

/**
 * Session tokens carry the site's signature (modules/users/session-tokens.ts): the key, and a
 * mark on each session whether its token is signed. Every session made before this is unsigned
 * (0), and so is one an instance of an older version still makes while several run: those are
 * looked up as before until the last of them ends.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('sessions')
    .addColumn('signed', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await (db as Kysely<{ shared_secrets: { name: string; value: string; created_at: number } }>)
    .insertInto('shared_secrets')
    .values({ name: 'sessions', value: randomBytes(32).toString('base64'), created_at: Date.now() })
    .execute();
}

export async function down(): Promise<void> {
  // Migrations are frozen once landed; no downgrades.
}
