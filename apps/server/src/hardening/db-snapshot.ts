import { sql, SqliteAdapter } from 'kysely';
import type { Db } from '../db/index.ts';

/** Every row of every table, each as JSON, sorted: two snapshots are equal when nothing changed. */
export type Snapshot = Map<string, string[]>;

const asJson = (row: unknown) => JSON.stringify(row, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

/**
 * Bookkeeping every accepted request may write, GETs included: when a session was last used
 * (modules/security/sessions.service.ts, at most once a minute). Not data a request changes.
 */
const BOOKKEEPING = new Set(['session_activity']);

/**
 * Reading every row of every table after every request is what made the fuzz tests slow, so a
 * cheap and exact write counter is read first, and the rows only when it moved:
 * - SQLite: `total_changes()` of the connection — the app and the tests share the one
 *   better-sqlite3 connection of the test handle (test/test-app.ts), and it counts every row an
 *   INSERT, UPDATE or DELETE touched, triggers included, rolled back or not.
 * - PostgreSQL: a test-only trigger on every (non-bookkeeping) table bumps a sequence per written
 *   row and per TRUNCATE. nextval is not transactional, so the bump is visible at once to every
 *   pooled connection, rolled back or not (the pg_stat counters are asynchronous: not usable).
 * The counter may move without the rows changing (a write rolled back, an update to the same
 * values): then the rows are read and compared as before, so nothing is missed, only re-read.
 */
const WRITES_SEQUENCE = 'zz_test_snapshot_writes';
const WRITES_FUNCTION = 'zz_test_snapshot_bump';

interface Tracking {
  tables: Promise<string[]>;
  /** The write counter now (read before the rows, so a write racing the read is seen next time). */
  counter: () => Promise<string>;
}

const tracking = new WeakMap<Db, Tracking>();
/** The counter each snapshot was read (or last confirmed unchanged) at, and the database it is of. */
const marks = new WeakMap<Snapshot, { db: Db; counter: string }>();

function track(db: Db): Tracking {
  let t = tracking.get(db);
  if (t) return t;
  const tables = db.introspection.getTables().then((ts) =>
    ts
      .filter((x) => !x.isView && !BOOKKEEPING.has(x.name))
      .map((x) => x.name)
      .sort(),
  );
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    t = {
      tables,
      counter: async () => String((await sql<{ n: number }>`select total_changes() as n`.execute(db)).rows[0]!.n),
    };
  } else {
    const installed = tables.then(async (names) => {
      await sql`create sequence if not exists ${sql.id(WRITES_SEQUENCE)}`.execute(db);
      await sql
        .raw(
          `create or replace function "${WRITES_FUNCTION}"() returns trigger language plpgsql as $$
           begin perform nextval('"${WRITES_SEQUENCE}"'); return null; end $$`,
        )
        .execute(db);
      for (const name of names) {
        await sql`drop trigger if exists ${sql.id(`${WRITES_FUNCTION}_row`)} on ${sql.table(name)}`.execute(db);
        await sql`drop trigger if exists ${sql.id(`${WRITES_FUNCTION}_truncate`)} on ${sql.table(name)}`.execute(db);
        await sql`create trigger ${sql.id(`${WRITES_FUNCTION}_row`)} after insert or update or delete on ${sql.table(name)}
                  for each row execute function ${sql.id(WRITES_FUNCTION)}()`.execute(db);
        await sql`create trigger ${sql.id(`${WRITES_FUNCTION}_truncate`)} after truncate on ${sql.table(name)}
                  for each statement execute function ${sql.id(WRITES_FUNCTION)}()`.execute(db);
      }
    });
    t = {
      tables,
      counter: async () => {
        await installed;
        const row = (
          await sql<{
            n: string;
            called: boolean;
          }>`select last_value::text as n, is_called as called from ${sql.table(WRITES_SEQUENCE)}`.execute(db)
        ).rows[0]!;
        return row.called ? row.n : '0';
      },
    };
  }
  tracking.set(db, t);
  return t;
}

/**
 * Every row of every table. With `previous` (an earlier snapshot of the same database) and
 * nothing written since it was taken, `previous` itself is returned without reading a row; when
 * something was written but the rows came out the same, `previous` is returned too.
 */
export async function snapshot(db: Db, previous?: Snapshot): Promise<Snapshot> {
  const t = track(db);
  const counter = await t.counter();
  const mark = previous && marks.get(previous);
  if (mark?.db === db && mark.counter === counter) return previous!;
  const names = await t.tables;
  // In parallel: PostgreSQL answers on several pooled connections; SQLite runs them one by one anyway.
  const all = await Promise.all(names.map((name) => sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db)));
  const fresh: Snapshot = new Map(names.map((name, i) => [name, all[i]!.rows.map(asJson).sort()]));
  if (previous && mark?.db === db && diffSnapshots(previous, fresh).length === 0) {
    marks.set(previous, { db, counter });
    return previous;
  }
  marks.set(fresh, { db, counter });
  return fresh;
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
