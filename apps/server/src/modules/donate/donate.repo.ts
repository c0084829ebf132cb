import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { DonateTiersTable } from './donate.tables.ts';

export type TierRow = Selectable<DonateTiersTable>;

/** The admin's order: position, then the order of creation. */
export function listTiers(db: Db): Promise<TierRow[]> {
  return db.selectFrom('donate_tiers').selectAll().orderBy('position').orderBy('id').execute();
}

export function findTier(db: Db, id: number): Promise<TierRow | undefined> {
  return db.selectFrom('donate_tiers').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function nextPosition(db: Db): Promise<number> {
  const row = await db
    .selectFrom('donate_tiers')
    .select((eb) => eb.fn.coalesce(eb.fn.max('position'), sql<number>`-1`).as('last'))
    .executeTakeFirst();
  return Number(row?.last ?? -1) + 1;
}

export function insertTier(db: Db, values: Insertable<DonateTiersTable>): Promise<TierRow> {
  return db.insertInto('donate_tiers').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateTier(db: Db, id: number, values: Updateable<DonateTiersTable>): Promise<TierRow | undefined> {
  return db.updateTable('donate_tiers').set(values).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function deleteTier(db: Db, id: number): Promise<void> {
  await db.deleteFrom('donate_tiers').where('id', '=', id).execute();
}

/** A new kit id: kits live in their tier's kits_json, so the ids come from a table of their own. */
export async function issueKitId(db: Db, tierId: number, now: number): Promise<number> {
  const row = await db.insertInto('donate_kit_ids').values({ tier_id: tierId, created_at: now }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** Which of these game servers exist. */
export async function existingServerIds(db: Db, ids: number[]): Promise<number[]> {
  const rows = await db.selectFrom('servers').select('id').where('id', 'in', ids).execute();
  return rows.map((r) => r.id);
}
