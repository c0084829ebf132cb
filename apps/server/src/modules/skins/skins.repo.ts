import type { SkinModel } from '@kubik/contract';
import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { TextureSource } from '../users/users.ports.ts';
import type { User } from '../users/users.repo.ts';
import type { SkinsTable, UserSkinsTable } from './skins.tables.ts';

/** The skin a player wears, as far as serving it needs: the file's size, and the model the player chose. */
export type WornSkin = Pick<Selectable<SkinsTable>, 'hash' | 'width' | 'height'> & Pick<Selectable<UserSkinsTable>, 'model'>;

export type Player = Pick<User, 'id' | 'username'> & { skin: WornSkin | null };

function worn(row: { skin_hash: string | null; width: number | null; height: number | null; model: SkinModel | null }): WornSkin | null {
  return row.skin_hash && row.width && row.height && row.model
    ? { hash: row.skin_hash, width: row.width, height: row.height, model: row.model }
    : null;
}

export async function findWornSkin(db: Db, userId: number): Promise<WornSkin | null> {
  const row = await db
    .selectFrom('user_skins')
    .innerJoin('skins', 'skins.hash', 'user_skins.skin_hash')
    .select(['user_skins.skin_hash', 'user_skins.model', 'skins.width', 'skins.height'])
    .where('user_skins.user_id', '=', userId)
    .executeTakeFirst();
  return row ? worn(row) : null;
}

/** A player by name, ignoring case; deleted accounts are not found. */
export async function findPlayer(db: Db, username: string): Promise<Player | null> {
  const row = await db
    .selectFrom('users')
    .leftJoin('user_skins', 'user_skins.user_id', 'users.id')
    .leftJoin('skins', 'skins.hash', 'user_skins.skin_hash')
    .select(['users.id', 'users.username', 'user_skins.skin_hash', 'user_skins.model', 'skins.width', 'skins.height'])
    .where('users.username_lower', '=', username.toLowerCase())
    .where('users.deleted_at', 'is', null)
    .executeTakeFirst();
  return row ? { id: row.id, username: row.username, skin: worn(row) } : null;
}

export async function skinPng(db: Db, hash: string): Promise<Buffer | null> {
  const row = await db.selectFrom('skins').select('png').where('hash', '=', hash).executeTakeFirst();
  return row ? Buffer.from(row.png) : null;
}

/** Skins as the game sees them (users core: skinTextures): game-auth hands them to launchers and serves the files. */
export const skinTextureSource: TextureSource<{ hash: string; slim: boolean }> = {
  async worn(db, userId) {
    const skin = await findWornSkin(db, userId);
    return skin && { hash: skin.hash, slim: skin.model === 'slim' };
  },
  png: skinPng,
};

/** The hash of the skin the player wears; null when they wear the site's default. */
export async function wornSkinHash(db: Db, userId: number): Promise<string | null> {
  const row = await db.selectFrom('user_skins').select('skin_hash').where('user_id', '=', userId).executeTakeFirst();
  return row?.skin_hash ?? null;
}

/**
 * Stores the file unless someone has uploaded the same pixels before. The upsert touches an
 * existing skin row so that, in the caller's transaction, it stays locked until the player's row
 * points at it (putOnSkin): a concurrent clean-up of the same skin (deleteUnusedSkin) then waits
 * instead of removing it underneath.
 */
export async function storeSkin(db: Db, skin: Omit<Selectable<SkinsTable>, 'created_at'>, now: number): Promise<void> {
  await db
    .insertInto('skins')
    .values({ hash: skin.hash, png: skin.png, width: skin.width, height: skin.height, model: skin.model, created_at: now })
    .onConflict((oc) => oc.column('hash').doUpdateSet((eb) => ({ hash: eb.ref('excluded.hash') })))
    .execute();
}

export async function putOnSkin(db: Db, userId: number, hash: string, model: SkinModel, now: number): Promise<void> {
  await db
    .insertInto('user_skins')
    .values({ user_id: userId, skin_hash: hash, model, updated_at: now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ skin_hash: hash, model, updated_at: now }))
    .execute();
}

/**
 * Removes a skin nobody wears any more. If someone put it on meanwhile, the foreign key from
 * user_skins refuses the delete; that, like any failure here, only leaves a few unused kilobytes
 * behind, so it must not fail the upload that has already succeeded.
 */
export async function deleteUnusedSkin(db: Db, hash: string): Promise<void> {
  try {
    await db
      .deleteFrom('skins')
      .where('hash', '=', hash)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('user_skins').select('user_id').where('skin_hash', '=', hash))))
      .execute();
  } catch {
    // Kept: see above.
  }
}

export async function setModel(db: Db, userId: number, model: SkinModel): Promise<boolean> {
  const res = await db.updateTable('user_skins').set({ model, updated_at: Date.now() }).where('user_id', '=', userId).executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
