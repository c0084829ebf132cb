import { sql, type Kysely } from 'kysely';
import { offlineUuid } from '../../base/offline-uuid.ts';
import { isPg } from '../schema-helpers.ts';

/**
 * Game profiles: every account gets an immutable UUID, the offline-mode UUID of its name (issue
 * 14), so a server that moves from offline mode to the site's login keeps its players'
 * inventories. Existing accounts are filled in here, computed in JS (neither database has MD5
 * → UUID v3 the way Java does it). (The function is imported: what it computes is fixed by
 * Minecraft and will not change.)
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('uuid', 'varchar(36)').execute();
  const users = db as unknown as Kysely<{ users: { id: number; username: string; uuid: string | null } }>;
  const rows = await users.selectFrom('users').select(['id', 'username']).orderBy('id').execute();
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    const cases = sql.join(
      chunk.map((r) => sql`when ${r.id} then ${offlineUuid(r.username)}`),
      sql` `,
    );
    await users
      .updateTable('users')
      .set({ uuid: sql<string>`case id ${cases} end` })
      .where(
        'id',
        'in',
        chunk.map((r) => r.id),
      )
      .execute();
  }
  if (isPg(db)) await sql`alter table users alter column uuid set not null`.execute(db);
  await db.schema.createIndex('users_uuid_idx').on('users').column('uuid').unique().execute();
}

export async function down(): Promise<void> {
  // Migrations are frozen once landed; no downgrades.
}
