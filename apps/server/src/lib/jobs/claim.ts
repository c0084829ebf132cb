import { randomUUID } from 'node:crypto';
import type { ExpressionBuilder, Expression, Kysely, Selectable, SqlBool, UpdateObject } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { Database } from '../../db/types.ts';
import { isPg } from '../../db/schema-helpers.ts';

/** A queue table: an integer `id`, and a lease of `lock_token` + `locked_until` (epoch ms). */
export type QueueTable = {
  [T in keyof Database]: Database[T] extends { id: unknown; lock_token: string | null; locked_until: number | null } ? T : never;
}[keyof Database];

export interface QueueSpec<T extends QueueTable> {
  table: T;
  /** How long a claim lasts: longer than the slowest unit of work, so an expired one means its worker died. */
  leaseMs: number;
  /** Which rows are due, besides being unclaimed (e.g. not sent, next_attempt_at <= now). */
  due: (eb: ExpressionBuilder<Database, T>, now: number) => Expression<SqlBool>;
}

/** A claimed row: the columns asked for, and its id. */
export type ClaimedRow<T extends QueueTable, C extends keyof Selectable<Database[T]>> = Pick<Selectable<Database[T]>, C> & { id: number };

export interface Claim<R> {
  /** This claim's lock token; record outcomes with it. */
  token: string;
  rows: R[];
}

/**
 * Claims of one queue table by this process. claim() takes up to N due rows in one statement,
 * complete() records a row's outcome only while the claim is still ours, release() gives back
 * what was claimed and not recorded (on stop).
 *
 * PostgreSQL: `update … where id in (select id … for update skip locked limit N) returning …`,
 * so instances claiming at once take disjoint rows without waiting on each other. SQLite: the
 * same conditional update; SQLite runs one writer at a time, which makes it just as exclusive.
 */
export class ClaimQueue<T extends QueueTable> {
  /** Token → ids claimed with it and not yet recorded. */
  private readonly open = new Map<string, Set<number>>();

  constructor(
    private readonly db: Db,
    readonly spec: QueueSpec<T>,
  ) {}

  /** Rows claimed and not yet recorded by this process. */
  get openCount(): number {
    let n = 0;
    for (const ids of this.open.values()) n += ids.size;
    return n;
  }

  /**
   * Claims up to `limit` due rows, oldest id first, and returns their `columns`. `set` adds
   * columns changed by the same statement (e.g. `attempts: sql\`attempts + 1\``).
   */
  async claim<C extends keyof Selectable<Database[T]> & string>(
    limit: number,
    columns: readonly C[],
    options: { now?: number; set?: UpdateObject<Database, T> } = {},
  ): Promise<Claim<ClaimedRow<T, C>>> {
    const now = options.now ?? Date.now();
    const token = randomUUID();
    // Typed at the edges; the table is generic, which Kysely's builders cannot follow.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const db = this.db as unknown as Kysely<any>;
    const table = this.spec.table as string;
    let due = db
      .selectFrom(table)
      .select('id')
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      .where((eb: any) => eb.and([this.spec.due(eb, now), eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)])]))
      .orderBy('id')
      .limit(limit);
    if (isPg(db)) due = due.forUpdate().skipLocked();
    const rows = (await db
      .updateTable(table)
      .set({ ...options.set, lock_token: token, locked_until: now + this.spec.leaseMs })
      .where('id', 'in', due)
      .returning(['id', ...columns])
      .execute()) as ClaimedRow<T, C>[];
    rows.sort((a, b) => Number(a.id) - Number(b.id));
    if (rows.length > 0) this.open.set(token, new Set(rows.map((r) => Number(r.id))));
    return { token, rows };
  }

  /**
   * Records a claimed row's outcome and ends the claim, only if the claim is still ours (it did
   * not lapse and get taken by another worker). `where` narrows further (e.g. a state). True when
   * the row was updated.
   */
  async complete(
    token: string,
    id: number,
    set: UpdateObject<Database, T>,
    where?: (eb: ExpressionBuilder<Database, T>) => Expression<SqlBool>,
  ): Promise<boolean> {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const db = this.db as unknown as Kysely<any>;
    let update = db
      .updateTable(this.spec.table as string)
      .set({ ...set, lock_token: null, locked_until: null })
      .where('id', '=', id)
      .where('lock_token', '=', token);
    if (where) update = update.where(where as never);
    const res = await update.executeTakeFirst();
    this.forget(token, id);
    return Number(res.numUpdatedRows) === 1;
  }

  /** Gives back every row this process claimed and has not recorded: due again at once for any instance. */
  async release(): Promise<number> {
    const tokens = [...this.open.keys()];
    this.open.clear();
    if (tokens.length === 0) return 0;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const db = this.db as unknown as Kysely<any>;
    const res = await db
      .updateTable(this.spec.table as string)
      .set({ lock_token: null, locked_until: null })
      .where('lock_token', 'in', tokens)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  private forget(token: string, id: number): void {
    const ids = this.open.get(token);
    ids?.delete(id);
    if (ids?.size === 0) this.open.delete(token);
  }
}
