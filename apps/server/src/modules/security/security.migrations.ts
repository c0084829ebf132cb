import type { Kysely, Migration } from 'kysely';
import { bigint, notNull } from '../../db/schema-helpers.ts';

// Names 2026112350_…–59_…; add new migrations with later names, never edit a landed one.
export const securityMigrations: Record<string, Migration> = {
  '2026112350_login_throttle': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('login_throttle')
        .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('failures', 'integer', notNull)
        .addColumn('last_failure_at', bigint, notNull)
        .addColumn('next_allowed_at', bigint, notNull)
        .execute();
      await db.schema
        .createTable('known_devices')
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('device_hash', 'varchar(64)', notNull)
        .addColumn('user_agent', 'varchar(255)')
        .addColumn('ip', 'varchar(64)')
        .addColumn('created_at', bigint, notNull)
        .addColumn('last_seen_at', bigint, notNull)
        .addPrimaryKeyConstraint('known_devices_pk', ['user_id', 'device_hash'])
        .execute();
      // Sessions in profile settings show when each was last used.
      await db.schema.alterTable('sessions').addColumn('last_seen_at', bigint).execute();
    },
  },
};
