import type { ExpressionBuilder, Expression, Kysely, Selectable, SqlBool, UpdateObject } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { Database } from '../../db/types.ts';
import { isPg } from '../../db/schema-helpers.ts';
import { ClaimOwner } from './claim-owner.ts';

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

type Where<T extends QueueTable> = (eb: ExpressionBuilder<Database, T>) => Expression<SqlBool>;

/**
 * Claims of one queue table by this process. claim() takes up to N due rows in one statement,
 * complete() (or record(), several rows in one statement) records outcomes only while the claim
 * is still ours, renew() extends a long claim's lease, release() gives back what was claimed and
 * not recorded (on stop, or when a worker is done with a claim).
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
    /** Whose claims these are (claim-owner.ts); by default a process of its own. */
    private readonly owner = new ClaimOwner(randomId()),
  ) {}

  /** Rows claimed and not yet recorded by this process. */
  get openCount(): number {
    let n = 0;
    for (const ids of this.open.values()) n += ids.size;
    return n;
  }

  /**
   * Claims up to `limit` due rows, oldest id first, and returns their `columns`. `set` adds
   * columns changed by the same statement (e.g. `attempts: sql\`attempts + 1\``); `where` narrows
   * this claim to some of the due rows (e.g. one game server's).
   */
  async claim<C extends keyof Selectable<Database[T]> & string>(
    limit: number,
    columns: readonly C[],
    options: { now?: number; set?: UpdateObject<Database, T>; where?: Where<T> } = {},
  ): Promise<Claim<ClaimedRow<T, C>>> {
    const now = options.now ?? Date.now();
    const token = this.owner.token();
    // Typed at the edges; the table is generic, which Kysely's builders cannot follow.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const db = this.db as unknown as Kysely<any>;
    const table = this.spec.table as string;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const claimable = (eb: any) =>
      eb.and([
        this.spec.due(eb, now),
        ...(options.where ? [options.where(eb)] : []),
        eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]),
      ]);
    let due = db.selectFrom(table).select('id').where(claimable).orderBy('id').limit(limit);
    if (isPg(db)) due = due.forUpdate().skipLocked();
    const rows = (await db
      .updateTable(table)
      .set({ ...options.set, lock_token: token, locked_until: now + this.spec.leaseMs })
      // Nothing else in this where: a filter here can lead PostgreSQL to a nested loop that runs the
      // limited subquery again for each row, and the claim then takes more than `limit` rows.
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
  async complete(token: string, id: number, set: UpdateObject<Database, T>, where?: Where<T>): Promise<boolean> {
    return (await this.record(token, [id], set, { where })).size === 1;
  }

  /**
   * Records the outcome of several claimed rows in one statement, on the rows still ours (and
   * matching `where`); returns their ids. The claim on them ends, unless `hold`: a step of the work
   * is recorded and more is to come under the same claim. `db`: a transaction to write in.
   */
  async record(
    token: string,
    ids: readonly number[],
    set: UpdateObject<Database, T>,
    options: { where?: Where<T>; hold?: boolean; db?: Db } = {},
  ): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const db = (options.db ?? this.db) as unknown as Kysely<any>;
    let update = db
      .updateTable(this.spec.table as string)
      .set(options.hold ? set : { ...set, lock_token: null, locked_until: null })
      .where('id', ids.length === 1 ? '=' : 'in', ids.length === 1 ? ids[0] : ids)
      .where('lock_token', '=', token);
    if (options.where) update = update.where(options.where as never);
    const rows = (await update.returning('id').execute()) as { id: number }[];
    if (!options.hold) for (const id of ids) this.forget(token, id);
    return new Set(rows.map((r) => Number(r.id)));
  }

  /** Extends the lease of a claim's rows (those matching `where`) to leaseMs from now; for work that outlasts half a lease. */
  async renew(token: string, options: { now?: number; where?: Where<T> } = {}): Promise<void> {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const db = this.db as unknown as Kysely<any>;
    let update = db
      .updateTable(this.spec.table as string)
      .set({ locked_until: (options.now ?? Date.now()) + this.spec.leaseMs })
      .where('lock_token', '=', token);
    if (options.where) update = update.where(options.where as never);
    await update.execute();
  }

  /**
   * Gives back the rows of one claim (`token`), or of every claim of this process, that were not
   * recorded: due again at once for any instance. `where` narrows it (rows whose work may already
   * have begun stay claimed). The claims are closed either way.
   */
  async release(token?: string, where?: Where<T>): Promise<number> {
    const tokens = token === undefined ? [...this.open.keys()] : [token];
    for (const t of tokens) this.open.delete(t);
    if (tokens.length === 0) return 0;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const db = this.db as unknown as Kysely<any>;
    let update = db
      .updateTable(this.spec.table as string)
      .set({ lock_token: null, locked_until: null })
      .where('lock_token', tokens.length === 1 ? '=' : 'in', tokens.length === 1 ? tokens[0] : tokens);
    if (where) update = update.where(where as never);
    const res = await update.executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /**
   * Gives back the rows an earlier life of this instance claimed and did not record (`where`
   * narrows it; `set` adds columns to change with it); returns how many. Called once at start,
   * before the first claim.
   */
  async takeBack(options: { where?: Where<T>; set?: UpdateObject<Database, T> } = {}): Promise<number> {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const db = this.db as unknown as Kysely<any>;
    let update = db
      .updateTable(this.spec.table as string)
      .set({ ...options.set, lock_token: null, locked_until: null })
      .where((eb) => this.owner.earlier(eb));
    if (options.where) update = update.where(options.where as never);
    const res = await update.executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  private forget(token: string, id: number): void {
    const ids = this.open.get(token);
    ids?.delete(id);
    if (ids?.size === 0) this.open.delete(token);
  }
}

const randomId = () => `process-${process.pid}-${Math.random()}`;
