import type { Kysely } from 'kysely';
import { bigint, notNull } from '../../db/schema-helpers.ts';
import { clearTransparent, decodePng, encodePng, pixelHash } from '../../lib/skin/skin-image.ts';

// The tables as this migration found them (frozen here: later changes to the modules' types must
// not change what it does).
interface Tables {
  skins: { hash: string; png: Buffer; width: number; height: number; model: string; created_at: number };
  user_skins: { user_id: number; skin_hash: string };
  capes: { id: number; hash: string; png: Buffer };
  cape_grants: { id: number; cape_id: number; user_id: number | null; tier_id: number | null; created_at: number };
  user_capes: { user_id: number; cape_id: number };
  texture_aliases: { old_hash: string; new_hash: string; created_at: number };
}

/** The stored file under its new name: the hash of its pixels (colour under transparent pixels cleared, as uploads now are). */
async function rehash(png: Buffer): Promise<{ hash: string; png: Buffer }> {
  const pixels = await decodePng(Buffer.from(png));
  const before = Buffer.from(pixels.data);
  clearTransparent(pixels);
  return { hash: pixelHash(pixels), png: pixels.data.equals(before) ? Buffer.from(png) : await encodePng(pixels) };
}

/**
 * Textures are named by the hash authlib-injector's reference server computes
 * (lib/skin pixelHash), no longer by sha256("WxH:" + RGBA). Every stored skin and cape moves to
 * its new name, and the old name is kept in texture_aliases so that the old URLs — in signed
 * profiles that servers and clients cached, in player heads placed in worlds — keep answering.
 *
 * Two old files may come to one name (they differed only in the colour under fully transparent
 * pixels, which the new hash does not see): the first keeps it and the other's wearers, grants
 * and choices move to it. Each texture is moved on its own and a moved one is recognised by its
 * name, so a run cut short (SQLite runs migrations outside a transaction) finishes when rerun.
 * (The hash functions are imported: what they compute is fixed by the suite and will not change.)
 */
export async function up(raw: Kysely<unknown>): Promise<void> {
  const db = raw as unknown as Kysely<Tables>;
  await raw.schema
    .createTable('texture_aliases')
    .ifNotExists()
    .addColumn('old_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('new_hash', 'varchar(64)', notNull)
    .addColumn('created_at', bigint, notNull)
    .execute();
  const now = Date.now();
  const alias = (oldHash: string, newHash: string) =>
    db
      .insertInto('texture_aliases')
      .values({ old_hash: oldHash, new_hash: newHash, created_at: now })
      .onConflict((oc) => oc.column('old_hash').doUpdateSet({ new_hash: newHash }))
      .execute();

  for (const { hash } of await db.selectFrom('skins').select('hash').orderBy('created_at').orderBy('hash').execute()) {
    const row = await db.selectFrom('skins').selectAll().where('hash', '=', hash).executeTakeFirst();
    if (!row) continue;
    const next = await rehash(row.png);
    if (next.hash === hash) continue;
    await db
      .insertInto('skins')
      .values({ ...row, hash: next.hash, png: next.png })
      .onConflict((oc) => oc.column('hash').doNothing())
      .execute();
    await db.updateTable('user_skins').set({ skin_hash: next.hash }).where('skin_hash', '=', hash).execute();
    await alias(hash, next.hash);
    await db.deleteFrom('skins').where('hash', '=', hash).execute();
  }

  for (const { id } of await db.selectFrom('capes').select('id').orderBy('id').execute()) {
    const row = await db.selectFrom('capes').select(['id', 'hash', 'png']).where('id', '=', id).executeTakeFirst();
    if (!row) continue;
    const next = await rehash(row.png);
    if (next.hash === row.hash) continue;
    const twin = await db.selectFrom('capes').select('id').where('hash', '=', next.hash).where('id', '<>', id).executeTakeFirst();
    if (twin) {
      // The same cape to the game, uploaded twice: its grants and wearers go to the first one.
      for (const g of await db.selectFrom('cape_grants').selectAll().where('cape_id', '=', id).execute()) {
        const held = await db
          .selectFrom('cape_grants')
          .select('id')
          .where('cape_id', '=', twin.id)
          .where(g.user_id === null ? 'tier_id' : 'user_id', '=', (g.user_id ?? g.tier_id)!)
          .executeTakeFirst();
        if (held) await db.deleteFrom('cape_grants').where('id', '=', g.id).execute();
        else await db.updateTable('cape_grants').set({ cape_id: twin.id }).where('id', '=', g.id).execute();
      }
      await db.updateTable('user_capes').set({ cape_id: twin.id }).where('cape_id', '=', id).execute();
      await alias(row.hash, next.hash);
      await db.deleteFrom('capes').where('id', '=', id).execute();
    } else {
      await alias(row.hash, next.hash);
      await db.updateTable('capes').set({ hash: next.hash, png: next.png }).where('id', '=', id).execute();
    }
  }
}

export async function down(): Promise<void> {
  // Migrations are frozen once landed; no downgrades.
}
