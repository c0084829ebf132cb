import type { Insertable, Updateable } from 'kysely';
import { sql } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { PromoRow } from '../purchases/purchases.promo.ts';
import type { PromoCodesTable } from '../purchases/purchases.tables.ts';

/** Revenue and discount given per code, in kopecks; `ids` narrows it to those codes. */
export async function promoStats(db: Db, ids?: number[]): Promise<Map<number, { revenue: number; discount: number }>> {
  let q = db
    .selectFrom('promo_uses')
    .select([
      'promo_id',
      (eb) => eb.fn.coalesce(eb.fn.sum<number>('total'), sql<number>`0`).as('revenue'),
      (eb) => eb.fn.coalesce(eb.fn.sum<number>('discount'), sql<number>`0`).as('discount'),
    ])
    .groupBy('promo_id');
  if (ids) q = q.where('promo_id', 'in', ids);
  const rows = await q.execute();
  return new Map(rows.map((r) => [r.promo_id, { revenue: Number(r.revenue), discount: Number(r.discount) }]));
}

export function listPromoRows(db: Db): Promise<PromoRow[]> {
  return db.selectFrom('promo_codes').selectAll().orderBy('id', 'desc').execute();
}

export function findPromoById(db: Db, id: number): Promise<PromoRow | undefined> {
  return db.selectFrom('promo_codes').selectAll().where('id', '=', id).executeTakeFirst();
}

export function insertPromo(db: Db, values: Insertable<PromoCodesTable>): Promise<PromoRow> {
  return db.insertInto('promo_codes').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updatePromoRow(db: Db, id: number, values: Updateable<PromoCodesTable>): Promise<PromoRow> {
  return db.updateTable('promo_codes').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}
