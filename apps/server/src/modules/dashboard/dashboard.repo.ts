import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { ZonedDay } from '../../lib/zoned-days.ts';

/**
 * The days as a table (i, day_start, day_end) for a LEFT JOIN: each series is one query that
 * groups by day with the boundaries computed in code, the same on SQLite and PostgreSQL, with
 * empty days as zeros. (The casts give PostgreSQL the types of the VALUES' parameters.)
 */
function daysTable(days: ZonedDay[]): RawBuilder<unknown> {
  const rows = days.map((d, i) => sql`(cast(${i} as integer), cast(${d.start} as bigint), cast(${d.end} as bigint))`);
  return sql`days (i, day_start, day_end) as (values ${sql.join(rows)})`;
}

const num = (v: unknown) => Number(v ?? 0);

/** Kopecks of succeeded top-ups per day, by the time they were paid. */
export async function topupsByDay(db: Db, days: ZonedDay[]): Promise<number[]> {
  const { rows } = await sql<{ i: number; total: unknown }>`
    with ${daysTable(days)}
    select days.i as i, coalesce(sum(p.amount), 0) as total
    from days left join payments p on p.status = 'succeeded' and p.paid_at >= days.day_start and p.paid_at < days.day_end
    group by days.i order by days.i`.execute(db);
  return rows.map((r) => num(r.total));
}

/** Kopecks spent from balances (purchase rows, negative) and returned for purchases (refund rows) per day. */
export async function spendingByDay(db: Db, days: ZonedDay[]): Promise<{ purchases: number; refunds: number }[]> {
  const { rows } = await sql<{ i: number; purchases: unknown; refunds: unknown }>`
    with ${daysTable(days)}
    select days.i as i,
      coalesce(sum(case when l.reason = 'purchase' then -l.amount else 0 end), 0) as purchases,
      coalesce(sum(case when l.reason = 'refund' then l.amount else 0 end), 0) as refunds
    from days left join ledger l on l.reason in ('purchase', 'refund') and l.created_at >= days.day_start and l.created_at < days.day_end
    group by days.i order by days.i`.execute(db);
  return rows.map((r) => ({ purchases: num(r.purchases), refunds: num(r.refunds) }));
}

/** Accounts created per day (deleted ones too: they did register). */
export async function registrationsByDay(db: Db, days: ZonedDay[]): Promise<number[]> {
  const { rows } = await sql<{ i: number; total: unknown }>`
    with ${daysTable(days)}
    select days.i as i, count(u.id) as total
    from days left join users u on u.created_at >= days.day_start and u.created_at < days.day_end
    group by days.i order by days.i`.execute(db);
  return rows.map((r) => num(r.total));
}

export async function onlineNow(db: Db): Promise<{ now: number; max: number; up: number; total: number }> {
  const row = await db
    .selectFrom('servers')
    .select([
      sql<number>`count(*)`.as('total'),
      sql<number>`coalesce(sum(case when status = 'online' then 1 else 0 end), 0)`.as('up'),
      sql<number>`coalesce(sum(case when status = 'online' then online else 0 end), 0)`.as('now'),
      sql<number>`coalesce(sum(case when status = 'online' then max_online else 0 end), 0)`.as('max'),
    ])
    .executeTakeFirstOrThrow();
  return { now: num(row.now), max: num(row.max), up: num(row.up), total: num(row.total) };
}

/**
 * Most players at once over all servers since `since`: each server's highest count in a bucket
 * (a check period, or an hour where the history keeps hourly peaks), summed per bucket.
 */
export async function peakOnline(db: Db, since: number, until: number, bucketMs: number): Promise<{ total: number; at: number } | null> {
  const bucket = sql.lit(Math.max(1, Math.round(bucketMs)));
  const { rows } = await sql<{ bucket: unknown; total: unknown }>`
    select b.bucket as bucket, sum(b.peak) as total from (
      select h.server_id, h.at / ${bucket} as bucket, max(h.online) as peak
      from server_online_history h
      where h.at >= ${since} and h.at < ${until} and h.online is not null
      group by h.server_id, h.at / ${bucket}
    ) b
    group by b.bucket order by total desc, bucket desc limit 1`.execute(db);
  const row = rows[0];
  return row ? { total: num(row.total), at: num(row.bucket) * Math.max(1, Math.round(bucketMs)) } : null;
}

/** What failed, and what is not given yet — by why it waits, and how many of those wait long. */
export async function deliveryCounts(db: Db, waitingBefore: number) {
  const count = (condition: RawBuilder<unknown>) => sql<number>`coalesce(sum(case when ${condition} then 1 else 0 end), 0)`;
  const pending = (waiting: string) => count(sql`state = 'pending' and waiting = ${waiting}`);
  const row = await db
    .selectFrom('deliveries')
    .where('state', 'in', ['failed', 'unknown', 'pending', 'sent'])
    .select([
      count(sql`state = 'failed'`).as('failed'),
      count(sql`state = 'unknown'`).as('unknown'),
      count(sql`state in ('pending', 'sent') and created_at < ${waitingBefore}`).as('waiting'),
      count(sql`state = 'sent'`).as('sending'),
      pending('server_down').as('server_down'),
      pending('no_server').as('no_server'),
      pending('player_offline').as('player_offline'),
      count(sql`state = 'pending' and waiting is null`).as('queued'),
    ])
    .executeTakeFirstOrThrow();
  const by = {
    sending: num(row.sending),
    server_down: num(row.server_down),
    no_server: num(row.no_server),
    player_offline: num(row.player_offline),
    queued: num(row.queued),
  };
  return {
    failed: num(row.failed),
    unknown: num(row.unknown),
    waiting: num(row.waiting),
    pending: { total: Object.values(by).reduce((a, b) => a + b, 0), ...by },
  };
}

function deliveryRows(db: Db) {
  return db
    .selectFrom('deliveries as d')
    .leftJoin('users as u', 'u.id', 'd.user_id')
    .leftJoin('servers as s', 's.id', 'd.server_id')
    .select(['d.id', 'd.source', 'd.label', 'd.state', 'd.waiting', 'd.last_error', 'd.created_at', 'u.username', 's.name as server']);
}

/** The newest failures (refused, or never confirmed). */
export function failedDeliveries(db: Db, limit: number) {
  return deliveryRows(db).where('d.state', 'in', ['failed', 'unknown']).orderBy('d.id', 'desc').limit(limit).execute();
}

/** What is not given yet, the longest waiting first. */
export function waitingDeliveries(db: Db, limit: number) {
  return deliveryRows(db).where('d.state', 'in', ['pending', 'sent']).orderBy('d.id', 'asc').limit(limit).execute();
}

export function latestShopOrders(db: Db, limit: number) {
  return db
    .selectFrom('shop_orders as o')
    .innerJoin('users as u', 'u.id', 'o.user_id')
    .select(['o.id', 'o.user_id', 'u.username', 'o.item_name', 'o.quantity', 'o.pieces', 'o.total', 'o.created_at'])
    .orderBy('o.id', 'desc')
    .limit(limit)
    .execute();
}

export function latestPrivilegePurchases(db: Db, limit: number) {
  return db
    .selectFrom('privilege_purchases as pp')
    .innerJoin('users as u', 'u.id', 'pp.user_id')
    .innerJoin('privileges as p', 'p.id', 'pp.privilege_id')
    .select(['pp.id', 'pp.user_id', 'u.username', 'p.tier_title', 'pp.months', 'pp.total', 'pp.created_at'])
    .orderBy('pp.id', 'desc')
    .limit(limit)
    .execute();
}

export function latestPayments(db: Db, limit: number) {
  return db
    .selectFrom('payments as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .select(['p.id', 'p.user_id', 'u.username', 'p.provider', 'p.amount', 'p.status', 'p.created_at'])
    .orderBy('p.created_at', 'desc')
    .orderBy('p.id', 'desc')
    .limit(limit)
    .execute();
}
