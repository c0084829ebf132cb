import type { Db } from '../../db/index.ts';
import { heldTiers, type TextureSource } from '../users/users.ports.ts';

export interface CapeRow {
  id: number;
  title: string;
  hash: string;
  width: number;
  height: number;
  created_at: number;
}

export interface CapeGrant {
  id: number;
  cape_id: number;
  user_id: number | null;
  username: string | null;
  tier_id: number | null;
  tier_title: string | null;
}

const CAPE_COLUMNS = ['capes.id', 'capes.title', 'capes.hash', 'capes.width', 'capes.height', 'capes.created_at'] as const;

export function listCapes(db: Db): Promise<CapeRow[]> {
  return db.selectFrom('capes').select(CAPE_COLUMNS).orderBy('capes.id').execute();
}

export function findCape(db: Db, id: number): Promise<CapeRow | undefined> {
  return db.selectFrom('capes').select(CAPE_COLUMNS).where('capes.id', '=', id).executeTakeFirst();
}

export async function capePng(db: Db, hash: string): Promise<Buffer | null> {
  const row = await db.selectFrom('capes').select('png').where('hash', '=', hash).executeTakeFirst();
  return row ? Buffer.from(row.png) : null;
}

export function listGrants(db: Db): Promise<CapeGrant[]> {
  return db
    .selectFrom('cape_grants')
    .leftJoin('users', 'users.id', 'cape_grants.user_id')
    .leftJoin('donate_tiers', 'donate_tiers.id', 'cape_grants.tier_id')
    .select([
      'cape_grants.id',
      'cape_grants.cape_id',
      'cape_grants.user_id',
      'users.username',
      'cape_grants.tier_id',
      'donate_tiers.title as tier_title',
    ])
    .orderBy('cape_grants.id')
    .execute();
}

/**
 * The capes a player may wear now: given to them, or to a tier they hold (privileges answers
 * which: users core, heldTiers). Capes given to a player whose account was deleted stay with the
 * deleted row and are never shown.
 */
export async function allowedCapes(db: Db, userId: number, now = Date.now()): Promise<CapeRow[]> {
  const tiers = await heldTiers.ask()(db, userId, now);
  return db
    .selectFrom('capes')
    .select(CAPE_COLUMNS)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('cape_grants')
          .select('cape_grants.id')
          .whereRef('cape_grants.cape_id', '=', 'capes.id')
          .where((g) =>
            tiers.length > 0
              ? g.or([g('cape_grants.user_id', '=', userId), g('cape_grants.tier_id', 'in', tiers)])
              : g('cape_grants.user_id', '=', userId),
          ),
      ),
    )
    .orderBy('capes.id')
    .execute();
}

/** The cape the player chose, if a grant still lets them wear it. */
export async function wornCape(db: Db, userId: number, now = Date.now()): Promise<CapeRow | null> {
  const chosen = await db.selectFrom('user_capes').select('cape_id').where('user_id', '=', userId).executeTakeFirst();
  if (!chosen) return null;
  return (await allowedCapes(db, userId, now)).find((c) => c.id === chosen.cape_id) ?? null;
}

/** Capes as the game sees them (users core: capeTextures): game-auth hands them to launchers and serves the files. */
export const capeTextureSource: TextureSource<{ hash: string }> = {
  async worn(db, userId, now) {
    const cape = await wornCape(db, userId, now);
    return cape && { hash: cape.hash };
  },
  png: capePng,
};
