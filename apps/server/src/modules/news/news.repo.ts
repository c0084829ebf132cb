import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { NewsTable } from './news.tables.ts';

export type NewsRow = Selectable<NewsTable>;

export function listNewest(db: Db): Promise<NewsRow[]> {
  return db.selectFrom('news').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

/** `limit` items from `offset`, newest first (the feed's pages). */
export function listNewestPage(db: Db, offset: number, limit: number): Promise<NewsRow[]> {
  return db.selectFrom('news').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute();
}

export function findNews(db: Db, id: number): Promise<NewsRow | undefined> {
  return db.selectFrom('news').selectAll().where('id', '=', id).executeTakeFirst();
}

export function insertNews(db: Db, values: Insertable<NewsTable>): Promise<NewsRow> {
  return db.insertInto('news').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateNews(db: Db, id: number, values: Updateable<NewsTable>): Promise<NewsRow | undefined> {
  return db.updateTable('news').set(values).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function deleteNews(db: Db, id: number): Promise<void> {
  await db.deleteFrom('news').where('id', '=', id).execute();
}
