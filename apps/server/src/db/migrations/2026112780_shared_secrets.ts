import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { bigint, notNull } from '../schema-helpers.ts';

/**
 * Secrets the site makes for itself and every instance on the database shares (unlike DATA_DIR's
 * secrets.key, of which each instance has its own unless SECRETS_KEY is set): 'email_links' signs
 * the links sent by e-mail (modules/users/email-tokens.ts), so that a made-up link is refused
 * without a database read. Made here, once per database.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('shared_secrets')
    .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('value', 'text', notNull)
    .addColumn('created_at', bigint, notNull)
    .execute();
  await (db as Kysely<{ shared_secrets: { name: string; value: string; created_at: number } }>)
    .insertInto('shared_secrets')
    .values({ name: 'email_links', value: randomBytes(32).toString('base64'), created_at: Date.now() })
    .execute();
}

export async function down(): Promise<void> {
  // Migrations are frozen once landed; no downgrades.
}
