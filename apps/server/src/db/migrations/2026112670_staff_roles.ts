import { sql, type Kysely } from 'kysely';
import { bigint, isPg, notNull, withId } from '../schema-helpers.ts';

/**
 * Staff roles: a role is a name and a JSON list of permissions; `users.role_id`
 * gives a staff member one. The owner stays `users.is_admin = 1` and needs no role. The session
 * lookup joins the role, so a change to staff_roles must clear the user caches like a change to
 * users does (on PostgreSQL through the same NOTIFY trigger function as 2026112250).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('staff_roles'))
    .addColumn('name', 'varchar(60)', notNull)
    .addColumn('name_lower', 'varchar(60)', (c) => c.notNull().unique())
    .addColumn('permissions', 'text', notNull)
    .addColumn('created_at', bigint, notNull)
    .addColumn('updated_at', bigint, notNull)
    .execute();
  await db.schema.alterTable('users').addColumn('role_id', 'integer').execute();
  await db.schema.createIndex('users_role_idx').on('users').column('role_id').execute();
  if (isPg(db)) {
    await sql`
      create trigger staff_roles_user_cache_notify
      after insert or update or delete on staff_roles
      for each statement execute function kubik_user_cache_notify()`.execute(db);
  }
}
