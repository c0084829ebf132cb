import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/index.ts';
import { heldTiers, type TextureSource } from '../users/users.ports.ts';
import type { CapeGrantsTable, CapesTable } from './capes.tables.ts';

/** A cape without its file (the file is only read to serve it). */
export type CapeRow = Omit<Selectable<CapesTable>, 'png'>;

/** A grant with whom it names: the player's name or the tier's title. */
export type CapeGrant = Awaited<ReturnType<typeof listGrants>>[number];

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

export function listGrants(db: Db) {
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

export async function insertCape(db: Db, values: Insertable<CapesTable>): Promise<number> {
  const row = await db.insertInto('capes').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function renameCape(db: Db, id: number, title: string): Promise<void> {
  await db.updateTable('capes').set({ title }).where('id', '=', id).execute();
}

/** Players who wore it go back to no cape; grants go with the cape. */
export async function deleteCape(db: Db, id: number): Promise<void> {
  await db.deleteFrom('user_capes').where('cape_id', '=', id).execute();
  await db.deleteFrom('cape_grants').where('cape_id', '=', id).execute();
  await db.deleteFrom('capes').where('id', '=', id).execute();
}

/** A live account by name, ignoring case: whom the admin gives a cape. */
export function findLivePlayer(db: Db, username: string) {
  return db
    .selectFrom('users')
    .select(['id', 'username'])
    .where('username_lower', '=', username.toLowerCase())
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** The donate tier a cape may be given to. */
export function findTier(db: Db, tierId: number) {
  return db.selectFrom('donate_tiers').select(['id', 'title']).where('id', '=', tierId).executeTakeFirst();
}

export async function insertGrant(db: Db, values: Insertable<CapeGrantsTable>): Promise<void> {
  await db.insertInto('cape_grants').values(values).execute();
}

export async function deleteGrant(db: Db, grantId: number): Promise<void> {
  await db.deleteFrom('cape_grants').where('id', '=', grantId).execute();
}

export async function takeOffCape(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('user_capes').where('user_id', '=', userId).execute();
}

export async function chooseCape(db: Db, userId: number, capeId: number, now: number): Promise<void> {
  await db
    .insertInto('user_capes')
    .values({ user_id: userId, cape_id: capeId, updated_at: now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ cape_id: capeId, updated_at: now }))
    .execute();
}
