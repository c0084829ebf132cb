import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { AuthMeImportsTable, AuthMeLinksTable, AuthMeOutboxTable } from './authme.tables.ts';

/** The site's side of the AuthMe link: links, the write queue, warnings, imports. */

export type Link = Selectable<AuthMeLinksTable>;
export type OutboxRow = Selectable<AuthMeOutboxTable>;
export type ImportRow = Selectable<AuthMeImportsTable>;

/** The site's password of an account that has none of its own yet: made from AuthMe, checked against the link's copy. */
export const NO_SITE_PASSWORD = '!authme';

export function linkOf(db: Db, userId: number): Promise<Link | undefined> {
  return db.selectFrom('authme_links').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

export function linkByName(db: Db, authmeName: string): Promise<Link | undefined> {
  return db.selectFrom('authme_links').selectAll().where('authme_name', '=', authmeName).executeTakeFirst();
}

/** A new link; false when the account or the AuthMe name is linked already. */
export async function insertLink(db: Db, link: Insertable<AuthMeLinksTable>): Promise<boolean> {
  const res = await db
    .insertInto('authme_links')
    .values(link)
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function updateLink(db: Db, userId: number, set: Updateable<AuthMeLinksTable>): Promise<void> {
  await db.updateTable('authme_links').set(set).where('user_id', '=', userId).execute();
}

/** An erased account is no longer the AuthMe player's: its link and waiting writes go (the AuthMe row stays). */
export async function forgetLinksOf(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('authme_outbox').where('user_id', '=', userId).execute();
  await db.deleteFrom('authme_links').where('user_id', '=', userId).execute();
}

export async function countLinks(db: Db): Promise<number> {
  const row = await db
    .selectFrom('authme_links')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Linked accounts whose game login is locked while it should not be, or (with the switch on) banned and not locked yet. */
export async function linksOutOfStep(db: Db, lockOnBan: boolean, now: number): Promise<number[]> {
  const rows = await db
    .selectFrom('authme_links')
    .innerJoin('users', 'users.id', 'authme_links.user_id')
    .select('authme_links.user_id')
    .where((eb) => {
      const isBanned = eb.and([
        eb('users.banned_at', 'is not', null),
        eb.or([eb('users.ban_until', 'is', null), eb('users.ban_until', '>', now)]),
      ]);
      const locked = eb('authme_links.lock_hash', 'is not', null);
      return lockOnBan ? eb.or([eb.and([isBanned, eb('authme_links.lock_hash', 'is', null)]), eb.and([locked, eb.not(isBanned)])]) : locked;
    })
    .limit(1000)
    .execute();
  return rows.map((r) => r.user_id);
}

// --- The write queue --------------------------------------------------------------------------

export async function enqueue(
  db: Db,
  op: Pick<Insertable<AuthMeOutboxTable>, 'user_id' | 'op' | 'hash' | 'salt' | 'algorithm' | 'site_hash'>,
  now: number,
): Promise<void> {
  // A newer password makes an older one still waiting pointless; a ban op is one per account.
  await db.deleteFrom('authme_outbox').where('user_id', '=', op.user_id).where('op', '=', op.op).where('lock_token', 'is', null).execute();
  await db
    .insertInto('authme_outbox')
    .values({ ...op, created_at: now, attempts: 0, next_attempt_at: now, last_error: null, lock_token: null, locked_until: null })
    .execute();
}

export async function pendingWrites(db: Db): Promise<number> {
  const row = await db
    .selectFrom('authme_outbox')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

// --- Warnings ---------------------------------------------------------------------------------

/** One more warning of a kind for the owner; the latest case's detail kept (cut to 300 characters). */
export async function addWarning(db: Db, kind: string, detail: string | null, now = Date.now()): Promise<void> {
  const text = detail === null ? null : detail.slice(0, 300);
  await db
    .insertInto('authme_warnings')
    .values({ kind, count: 1, first_at: now, last_at: now, detail: text })
    .onConflict((oc) =>
      oc.column('kind').doUpdateSet((eb) => ({
        count: eb('authme_warnings.count', '+', 1),
        last_at: now,
        detail: text,
      })),
    )
    .execute();
}

export function warnings(db: Db) {
  return db.selectFrom('authme_warnings').selectAll().orderBy('last_at', 'desc').execute();
}

export async function clearWarnings(db: Db): Promise<void> {
  await db.deleteFrom('authme_warnings').execute();
}

// --- Imports ----------------------------------------------------------------------------------

export function lastImport(db: Db): Promise<ImportRow | undefined> {
  return db.selectFrom('authme_imports').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirst();
}

export function importById(db: Db, id: number): Promise<ImportRow | undefined> {
  return db.selectFrom('authme_imports').selectAll().where('id', '=', id).executeTakeFirst();
}

export function activeImport(db: Db): Promise<ImportRow | undefined> {
  return db.selectFrom('authme_imports').selectAll().where('state', 'in', ['queued', 'running']).orderBy('id').limit(1).executeTakeFirst();
}

export async function createImport(db: Db, mode: 'dry' | 'import', createdBy: number | null, total: number, now: number): Promise<number> {
  const row = await db
    .insertInto('authme_imports')
    .values({
      mode,
      state: 'queued',
      created_by: createdBy,
      created_at: now,
      finished_at: null,
      cursor: null,
      total,
      processed: 0,
      created: 0,
      linked: 0,
      name_collisions: 0,
      without_email: 0,
      refused: 0,
      broken_hashes: 0,
      error: null,
      lock_token: null,
      locked_until: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export function refusals(db: Db, importId: number, limit: number) {
  return db.selectFrom('authme_refusals').select(['name', 'reason']).where('import_id', '=', importId).orderBy('id').limit(limit).execute();
}
