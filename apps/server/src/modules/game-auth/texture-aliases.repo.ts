import type { Db } from '../../db/index.ts';

/** The name a texture has had since issue 27's hash, for its name before (texture-hashes.migration.ts). */
export async function renamedTexture(db: Db, oldHash: string): Promise<string | null> {
  const row = await db.selectFrom('texture_aliases').select('new_hash').where('old_hash', '=', oldHash).executeTakeFirst();
  return row?.new_hash ?? null;
}
