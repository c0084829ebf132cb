import { sql } from 'kysely';
import type { Db } from '../db/index.ts';

/** Every row of every table, each as JSON, sorted: two snapshots are equal when nothing changed. */
export type Snapshot = Map<string, string[]>;

const asJson = (row: unknown) => JSON.stringify(row, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

const tableNames = new WeakMap<Db, Promise<string[]>>();

/**
 * Bookkeeping every accepted request may write, GETs included: when a session was last used
 * (modules/security/sessions.service.ts, at most once a minute). Not data a request changes.
 */
const BOOKKEEPING = new Set(['session_activity']);

export async function snapshot(db: Db): Promise<Snapshot> {
  if (!tableNames.has(db))
    tableNames.set(
      db,
      db.introspection.getTables().then((ts) =>
        ts
          .filter((t) => !t.isView && !BOOKKEEPING.has(t.name))
          .map((t) => t.name)
          .sort(),
      ),
    );
  const names = await tableNames.get(db)!;
  // In parallel: PostgreSQL answers on several pooled connections; SQLite runs them one by one anyway.
  const all = await Promise.all(names.map((name) => sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db)));
  return new Map(names.map((name, i) => [name, all[i]!.rows.map(asJson).sort()]));
}

/** What changed between two snapshots, one line per added or removed row (a changed row is both). */
export function diffSnapshots(before: Snapshot, after: Snapshot): string[] {
  const lines: string[] = [];
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const a = new Set(before.get(name) ?? []);
    const b = new Set(after.get(name) ?? []);
    for (const row of a) if (!b.has(row)) lines.push(`${name} − ${row.slice(0, 300)}`);
    for (const row of b) if (!a.has(row)) lines.push(`${name} + ${row.slice(0, 300)}`);
  }
  return lines;
}

/** Rows that are new or changed in `after`, parsed back. */
export function changedRows(before: Snapshot, after: Snapshot): { table: string; row: Record<string, unknown> }[] {
  const out: { table: string; row: Record<string, unknown> }[] = [];
  for (const [name, rows] of after) {
    const a = new Set(before.get(name) ?? []);
    for (const row of rows) if (!a.has(row)) out.push({ table: name, row: JSON.parse(row) as Record<string, unknown> });
  }
  return out;
}
