import { sql } from 'kysely';
import type { Db } from '../../db/index.ts';

// What the store page shows of the community giving: money paid in a month, the latest purchases
// and the month's biggest payers. Each is one indexed query over a bounded range (the month, the
// newest rows), and the answer is cached (donate.community.ts).

/** Kopecks paid between `from` and `to` (top-ups and subscription payments), what was refunded taken off. */
export async function collectedBetween(db: Db, from: number, to: number): Promise<number> {
  const row = await db
    .selectFrom('payments')
    .select(sql<number>`coalesce(sum(amount - refunded_amount), 0)`.as('total'))
    .where('status', 'in', ['succeeded', 'refunding', 'refunded'])
    .where('paid_at', '>=', from)
    .where('paid_at', '<', to)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/** The month's biggest payers (kopecks), biggest first. */
export function topPayers(db: Db, from: number, to: number, limit: number) {
  return db
    .selectFrom('payments as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .select(['u.id', 'u.username', sql<number>`sum(p.amount - p.refunded_amount)`.as('total')])
    .where('p.status', 'in', ['succeeded', 'refunding', 'refunded'])
    .where('p.paid_at', '>=', from)
    .where('p.paid_at', '<', to)
    .where('u.deleted_at', 'is', null)
    .groupBy(['u.id', 'u.username'])
    .orderBy('total', 'desc')
    .limit(limit)
    .execute();
}

/** The newest shop orders with their buyers. */
export function latestOrders(db: Db, limit: number) {
  return db
    .selectFrom('shop_orders as o')
    .innerJoin('users as u', 'u.id', 'o.user_id')
    .select(['u.id as user_id', 'u.username', 'o.item_name as item', 'o.total', 'o.quantity', 'o.created_at'])
    .where('u.deleted_at', 'is', null)
    .orderBy('o.created_at', 'desc')
    .limit(limit)
    .execute();
}

/** The newest tier purchases (bought or by subscription) with their holders. */
export function latestTiers(db: Db, limit: number) {
  return db
    .selectFrom('privilege_purchases as pp')
    .innerJoin('users as u', 'u.id', 'pp.user_id')
    .innerJoin('privileges as p', 'p.id', 'pp.privilege_id')
    .select(['u.id as user_id', 'u.username', 'p.tier_title as item', 'pp.total', 'pp.months', 'pp.created_at'])
    .where('u.deleted_at', 'is', null)
    .orderBy('pp.created_at', 'desc')
    .limit(limit)
    .execute();
}
