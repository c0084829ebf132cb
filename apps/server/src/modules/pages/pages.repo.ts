import type { Insertable, Selectable } from 'kysely';
import type { Db, DbKind } from '../../db/index.ts';
import type { PagesTable } from './pages.tables.ts';

export type PageRow = Selectable<PagesTable>;

export function findPage(db: Db, slug: string): Promise<PageRow | undefined> {
  return db.selectFrom('pages').selectAll().where('slug', '=', slug).executeTakeFirst();
}

/** The page, if any; on PostgreSQL its row stays locked until the transaction ends, so two saves of one page run one after the other. */
export function lockPage(trx: Db, kind: DbKind, slug: string): Promise<PageRow | undefined> {
  let q = trx.selectFrom('pages').selectAll().where('slug', '=', slug);
  if (kind === 'pg') q = q.forUpdate();
  return q.executeTakeFirst();
}

/** The pages shown in the footer or the menu, in the owner's order. */
export function linkedPages(db: Db) {
  return db
    .selectFrom('pages')
    .select(['slug', 'title', 'place', 'body'])
    .where('place', '!=', 'none')
    .orderBy('position')
    .orderBy('slug')
    .execute();
}

export function listPages(db: Db): Promise<PageRow[]> {
  return db.selectFrom('pages').selectAll().orderBy('position').orderBy('slug').execute();
}

/** Saves the page under its address; two admins creating the same address at once: the second one's insert becomes an update. */
export function upsertPage(trx: Db, slug: string, values: Omit<Insertable<PagesTable>, 'slug'>): Promise<PageRow> {
  return trx
    .insertInto('pages')
    .values({ slug, ...values })
    .onConflict((oc) => oc.column('slug').doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deletePage(trx: Db, slug: string): Promise<void> {
  await trx.deleteFrom('pages').where('slug', '=', slug).execute();
}
