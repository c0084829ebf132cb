import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { MediaTable } from './media.tables.ts';

/** Stores the file unless the same bytes are stored already; whether this call stored it. */
export async function insertMediaUnlessStored(db: Db, values: Insertable<MediaTable>): Promise<boolean> {
  const inserted = await db
    .insertInto('media')
    .values(values)
    .onConflict((oc) => oc.column('hash').doNothing())
    .returning('hash')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Every file without its bytes, newest first. */
export function listMedia(db: Db) {
  return db
    .selectFrom('media')
    .select(['hash', 'type', 'size', 'width', 'height', 'name', 'created_at'])
    .orderBy('created_at', 'desc')
    .orderBy('hash')
    .execute();
}

/** Deletes the file; what it was, or undefined when there was none. */
export function deleteMedia(db: Db, hash: string) {
  return db.deleteFrom('media').where('hash', '=', hash).returning(['type', 'name', 'width', 'height', 'size']).executeTakeFirst();
}

export function mediaFile(db: Db, hash: string) {
  return db.selectFrom('media').select(['type', 'bytes']).where('hash', '=', hash).executeTakeFirst();
}

// The texts an owner edits that may hold an image address, where the media list looks for uses.

export function newsTexts(db: Db) {
  return db.selectFrom('news').select(['title', 'image_url', 'content']).execute();
}

export function shopItemTexts(db: Db) {
  return db.selectFrom('shop_items').select(['name', 'icon', 'description']).where('deleted_at', 'is', null).execute();
}

export function donateTierTexts(db: Db) {
  return db.selectFrom('donate_tiers').select(['title', 'image_url', 'content', 'kits_json', 'features_json']).execute();
}

export function serverTexts(db: Db) {
  return db.selectFrom('servers').select(['name', 'image_url', 'description']).execute();
}

export function settingTexts(db: Db) {
  return db.selectFrom('settings').select(['key', 'value']).execute();
}

/** Pages arrive with their own feature: whatever columns the table has, when it exists (none otherwise). */
export async function pageTexts(db: Db): Promise<Record<string, unknown>[]> {
  const tables = await db.introspection.getTables();
  if (!tables.some((t) => t.name === 'pages')) return [];
  return (await sql<Record<string, unknown>>`select * from pages`.execute(db)).rows;
}
