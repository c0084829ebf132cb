import type { Db } from '../../db/index.ts';

/** A texture's name by its hash, for the name it had before (texture-hashes.migration.ts). */
export async function renamedTexture(db: Db, oldHash: string): Promise<string | null> {
  const row = await db.selectFrom('texture_aliases').select('new_hash').where('old_hash', '=', oldHash).executeTakeFirst();
  return row?.new_hash ?? null;
}
