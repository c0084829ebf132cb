import { sql } from 'kysely';
import type { Db, DbKind } from '../../db/index.ts';

/** Whether the payments feature's table exists yet (its migration may not have run). */
export async function paymentsTableExists(db: Db, kind: DbKind): Promise<boolean> {
  const found =
    kind === 'pg'
      ? await sql<{ t: string | null }>`select to_regclass('payments')::text as t`.execute(db)
      : await sql<{ t: string | null }>`select name as t from sqlite_master where type = 'table' and name = 'payments'`.execute(db);
  return !!found.rows[0]?.t;
}

/** Payments counted by status (for /metrics). */
export async function paymentsByStatus(db: Db): Promise<{ status: string; n: number }[]> {
  const { rows } = await sql<{ status: string; n: number }>`select status, count(*) as n from payments group by status`.execute(db);
  return rows;
}

/** The cheapest round trip to the database. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
