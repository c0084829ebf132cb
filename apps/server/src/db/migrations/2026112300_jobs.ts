import type { Kysely } from 'kysely';
import { bigint, notNull } from '../schema-helpers.ts';

/**
 * Background jobs (lib/jobs): job_schedule holds one row per periodic singleton job, and the mail
 * outbox gets the lock token the shared claim helper records outcomes with.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('job_schedule')
    .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('next_run_at', bigint, notNull)
    .addColumn('lock_token', 'varchar(64)')
    .addColumn('locked_until', bigint)
    .addColumn('last_started_at', bigint)
    .addColumn('last_finished_at', bigint)
    .addColumn('last_error', 'text')
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('runs', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('mail_outbox').addColumn('lock_token', 'varchar(64)').execute();
}

export async function down(): Promise<void> {
  // Migrations are frozen once landed; no downgrades.
}
