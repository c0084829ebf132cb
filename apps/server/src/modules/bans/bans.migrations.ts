import { sql, type Kysely, type Migration } from 'kysely';
import { bigint, notNull, withId } from '../../db/schema-helpers.ts';

// Names 2026112430_…–34_… (the account-security range 30–39 is shared with e-mail change and
// self-service deletion) and 2026120640_…; add new migrations with later names, never edit a landed one.
export const bansMigrations: Record<string, Migration> = {
  '2026112430_bans': {
    async up(db: Kysely<unknown>) {
      // The ban in force, on the row every login and every session lookup already reads.
      await db.schema.alterTable('users').addColumn('banned_at', bigint).execute();
      await db.schema.alterTable('users').addColumn('ban_until', bigint).execute();
      await db.schema.alterTable('users').addColumn('ban_reason', 'varchar(200)').execute();

      await withId(db, db.schema.createTable('bans'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('reason', 'varchar(200)', notNull)
        .addColumn('until', bigint)
        .addColumn('created_at', bigint, notNull)
        .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('lifted_at', bigint)
        .addColumn('lifted_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('lift_reason', 'varchar(16)')
        .execute();
      // One ban in force per player; the expiry job reads those with an end.
      await sql`create unique index bans_active_user on bans (user_id) where lifted_at is null`.execute(db);
      await sql`create index bans_active_until on bans (until) where lifted_at is null and until is not null`.execute(db);
      await db.schema.createIndex('bans_user_idx').on('bans').columns(['user_id', 'created_at']).execute();

      await db.schema
        .createTable('ban_server_commands')
        .addColumn('server_id', 'integer', (c) => c.primaryKey())
        .addColumn('ban_command', 'varchar(500)')
        .addColumn('unban_command', 'varchar(500)')
        .addColumn('updated_at', bigint, notNull)
        .execute();
    },
  },
  '2026120640_ban_public_reason': {
    async up(db: Kysely<unknown>) {
      // A ban's reason splits in two: `reason`, what the player and everyone see, and `note`, what
      // only staff see. Every reason given so far was typed as one text with no way to keep it
      // from the public, so it becomes the note, and the public reason starts empty: an admin
      // who wants the player told something writes it anew, knowing it is public.
      await db.schema
        .alterTable('bans')
        .addColumn('note', 'varchar(500)', (c) => c.notNull().defaultTo(''))
        .execute();
      await sql`update bans set note = reason, reason = ''`.execute(db);
      await sql`update users set ban_reason = null where ban_reason is not null`.execute(db);
    },
  },
};
