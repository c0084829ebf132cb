import type { Kysely, Migration } from 'kysely';
import { bigint, notNull } from '../../db/schema-helpers.ts';

export const profileKeysMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('profile_keys')
      .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
      .addColumn('private_key', 'text', notNull)
      .addColumn('public_key', 'text', notNull)
      .addColumn('signature_v1', 'text', notNull)
      .addColumn('signature_v2', 'text', notNull)
      .addColumn('issued_at', bigint, notNull)
      .addColumn('refreshed_after', bigint, notNull)
      .addColumn('expires_at', bigint, notNull)
      .execute();
    await db.schema.createIndex('profile_keys_expiry_idx').on('profile_keys').column('expires_at').execute();
  },
};
