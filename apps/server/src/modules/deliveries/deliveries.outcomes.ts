import type { DeliveryWaiting } from '@kubik/contract';
import { sql, type ExpressionBuilder, type UpdateObject } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { Database } from '../../db/types.ts';
import { backoffMs, type Backoff } from '../../base/backoff.ts';
import type { ClaimQueue } from '../../lib/jobs/index.ts';
import { RconError } from '../../lib/rcon/client.ts';
import { judgeReply } from '../../lib/rcon/command.ts';
import { notifyMany } from '../notices/notices.service.ts';
import { unassigned, type ClaimedDelivery } from './deliveries.claims.ts';

/*
 * A delivery's states, and what moves it (every move is one conditional update, on the claim and
 * the state, so that no row is ever sent twice):
 *
 *   pending ──(marked before its command goes out)──▶ sent ──answered──▶ done
 *                                                      │ ├─ refused ─────▶ failed
 *                                                      │ ├─ no answer ───▶ unknown (never resent on its own)
 *                                                      │ ├─ player not in the game ─▶ pending, waiting player_offline
 *                                                      │ ├─ more commands to run ───▶ sent (the next step)
 *                                                      │ └─ never written (connection gone, stopping) ─▶ pending, due at once
 *                                                      └─ its worker vanished (the claim ran out) ───▶ unknown
 *   pending ──server unreachable, password refused──▶ pending, waiting server_down
 *   pending ──no server with RCON to send to────────▶ pending, waiting no_server
 *   failed | unknown ──admin «Выдать повторно»──▶ pending     (deliveries.service.ts)
 *   pending | failed | unknown ──shop refund───▶ refunded     (shop/refund.service.ts)
 */

export const OUTCOME_TEXTS = {
  noServer: 'Не выбран сервер доставки: укажите сервер у товара или настройте RCON у одного сервера',
  noRconServers: 'Нет серверов с настроенным RCON: выдадим, когда он появится',
  serverGone: 'Сервер доставки удалён: выберите другой сервер и выдайте повторно',
  noRcon: (name: string) => `На сервере «${name}» не настроен RCON`,
  unreachable: (name: string, why: string) => `Сервер «${name}» недоступен: ${why}`,
  badPassword: (name: string) => `Сервер «${name}» отклонил пароль RCON`,
  refused: 'Сервер отклонил команду',
  offline: 'Игрока нет в игре: выдадим, когда он зайдёт на сервер',
  noAnswer: (why: string) =>
    `Сервер не ответил на команду (${why}) — она могла выполниться. Проверьте в игре, затем выдайте повторно или верните деньги.`,
  interrupted:
    'Ответ сервера не получен: выдача прервалась — команда могла выполниться. Проверьте в игре, затем выдайте повторно или верните деньги.',
} as const;

const NONE: ReadonlySet<number> = new Set();

/** What the player is told when a row of these sources is given or fails (bans and a privilege's end are told by their own features). */
const TOLD: Record<string, { done: (label: string) => string; failed: (label: string) => string }> = {
  shop: { done: (l) => `Покупка выдана: ${l}`, failed: (l) => `Ошибка выдачи: ${l}` },
  privilege_grant: { done: (l) => `Привилегия выдана: ${l}`, failed: (l) => `Ошибка выдачи привилегии: ${l}` },
  kit: { done: (l) => `Набор выдан: ${l}`, failed: (l) => `Ошибка выдачи набора: ${l}` },
};
export const DELIVERY_NOTICE_TEXTS = {
  failedBody: 'Администратор уже видит ошибку: выдаст повторно или вернёт деньги.',
} as const;

/** What tellPlayers needs of a row that just turned done or failed. */
export interface EndedRow {
  id: number;
  user_id: number | null;
  source: string;
  source_id: number | null;
  label: string;
  state: string;
}

/** The columns of an EndedRow, for a select or an update's RETURNING. */
export const ENDED_COLUMNS = ['id', 'user_id', 'source', 'source_id', 'label', 'state'] as const;

/**
 * Notices for rows that just turned done or failed, in the transaction that recorded it: one per
 * purchase (its stacks and servers are rows of one source), «given» once none of its rows is still
 * on the way, «failed» once per batch. A few statements whatever the batch's size: one read of the
 * rows (none with tellPlayersOf), one of the sources still on the way, the notices' (notifyMany).
 */
export async function tellPlayers(db: Db, ids: number[], now: number): Promise<void> {
  if (ids.length === 0) return;
  // By key only: with a condition on the state too, SQLite (which keeps no statistics) would
  // rather walk the index on state, over every row ever done, than look up these few ids.
  const rows = await db.selectFrom('deliveries').select(ENDED_COLUMNS).where('id', 'in', ids).execute();
  await tellPlayersOf(db, rows, now);
}

/** tellPlayers for rows already at hand (an update's RETURNING): no read of them again. */
export async function tellPlayersOf(db: Db, ended: readonly EndedRow[], now: number): Promise<void> {
  const rows = ended
    .filter((r) => r.user_id !== null && Object.hasOwn(TOLD, r.source) && (r.state === 'done' || r.state === 'failed'))
    .sort((a, b) => Number(a.id) - Number(b.id));
  if (rows.length === 0) return;
  const seen = new Set<string>();
  const told = rows.filter((r) => {
    const key = `${r.source}:${r.source_id ?? `row${r.id}`}:${r.state}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  // Sources with a row still on the way: their «given» waits for the last one. One read for all of them.
  const given = new Map<string, number[]>();
  for (const r of told) {
    if (r.state === 'failed' || r.source_id === null) continue;
    const list = given.get(r.source);
    if (list) list.push(r.source_id);
    else given.set(r.source, [r.source_id]);
  }
  const open = new Set<string>();
  if (given.size > 0) {
    const moving = await db
      .selectFrom('deliveries')
      .select(['source', 'source_id'])
      .distinct()
      .where((eb) => eb.or([...given].map(([source, sourceIds]) => eb.and([eb('source', '=', source), eb('source_id', 'in', sourceIds)]))))
      .where('state', 'in', ['pending', 'sent'])
      .execute();
    for (const m of moving) open.add(`${m.source}:${m.source_id}`);
  }
  await notifyMany(
    db,
    told
      .filter((r) => r.state === 'failed' || r.source_id === null || !open.has(`${r.source}:${r.source_id}`))
      .map((r) => {
        const failed = r.state === 'failed';
        return {
          userId: r.user_id!,
          notice: {
            kind: failed ? 'delivery_failed' : 'delivery_done',
            title: TOLD[r.source]![failed ? 'failed' : 'done'](r.label),
            body: failed ? DELIVERY_NOTICE_TEXTS.failedBody : null,
            link: '/profile',
            data: { delivery_id: Number(r.id), source: r.source },
          },
        };
      }),
    now,
  );
}

/** The longest wait for a server that cannot be reached (or a server to appear). */
const RETRY_CAP_MS = 10 * 60_000;
/** A player who is not in the game is looked for again at least this often: they may join any minute. */
const OFFLINE_CAP_MS = 2 * 60_000;

/** Waits between attempts while a server or a player is unreachable: the poll interval, ×2 each time, up to a cap. */
export function waitSchedule(intervalMs: number, waiting: DeliveryWaiting): Backoff {
  return { baseMs: intervalMs, capMs: waiting === 'player_offline' ? OFFLINE_CAP_MS : RETRY_CAP_MS };
}

export interface DrainStats {
  done: number;
  failed: number;
  unknown: number;
  waiting: number;
}

/** What became of a row's command; written together with the next commands' 'sent'. */
export type Outcome =
  | { kind: 'done'; row: ClaimedDelivery; reply: string }
  | { kind: 'step'; row: ClaimedDelivery; reply: string }
  | { kind: 'failed'; row: ClaimedDelivery; reply?: string; error: string }
  | { kind: 'unknown'; row: ClaimedDelivery; error: string }
  | { kind: 'wait'; row: ClaimedDelivery; waiting: DeliveryWaiting; error: string; reply?: string }
  /** Marked 'sent' but never written to the server (the connection broke before, or the worker is stopping). */
  | { kind: 'unsent'; row: ClaimedDelivery };

/** What the server's answer to a row's command means; `more`: the delivery has commands after this one. */
export function outcomeOfReply(row: ClaimedDelivery, reply: string, more: boolean): Outcome {
  const text = reply.slice(0, 4000);
  const verdict = judgeReply(reply);
  if (verdict === 'offline') return { kind: 'wait', row, waiting: 'player_offline', error: OUTCOME_TEXTS.offline, reply: text };
  if (verdict === 'failed') return { kind: 'failed', row, reply: text, error: OUTCOME_TEXTS.refused };
  return more ? { kind: 'step', row, reply: text } : { kind: 'done', row, reply: text };
}

/** What a command that threw means: written or not, answered or not. */
export function outcomeOfError(row: ClaimedDelivery, err: unknown): Outcome {
  // The connection was gone before the command was written: nothing ran.
  if (err instanceof RconError && (err.kind === 'connect' || err.kind === 'auth')) return { kind: 'unsent', row };
  if (err instanceof RconError) return { kind: 'unknown', row, error: OUTCOME_TEXTS.noAnswer(err.message) };
  return { kind: 'failed', row, error: err instanceof Error ? err.message : String(err) };
}

/** Why a server's connection could not be had, for the admin and the log. */
export function connectionProblem(serverName: string, err: RconError): string {
  return err.kind === 'auth' ? OUTCOME_TEXTS.badPassword(serverName) : OUTCOME_TEXTS.unreachable(serverName, err.message);
}

/** A command to mark 'sent' before it goes out. */
export interface Marked {
  id: number;
  step: number;
  command: string;
}

/** Writes the states of one worker's rows: outcomes and 'sent' marks on its claims, waits of whole servers. */
export class OutcomeWriter {
  constructor(
    private readonly db: Db,
    private readonly queue: ClaimQueue<'deliveries'>,
    private readonly stats: DrainStats,
    private readonly options: { intervalMs: number; now: () => number },
  ) {}

  /**
   * One transaction: the outcomes of commands already answered, then 'sent' on the next rows (one
   * statement). The 'sent' is on disk before a command goes out, so a crash leaves it 'unknown',
   * never resent. Returns the ids that were still ours to send.
   */
  async commit(token: string, outcomes: Outcome[], next: Marked[], serverId?: number): Promise<Set<number>> {
    if (outcomes.length === 0 && next.length === 0) return new Set();
    const t0 = this.options.now();
    const run = async (db: Db): Promise<Set<number>> => {
      // The common case, a window of commands that all went well, is one statement.
      const done = outcomes.filter((o): o is Extract<Outcome, { kind: 'done' }> => o.kind === 'done');
      const ended: number[] = [];
      if (done.length > 1) ended.push(...(await this.applyDone(db, token, done)));
      for (const o of outcomes) if (done.length <= 1 || o.kind !== 'done') ended.push(...(await this.apply(db, token, o)));
      await tellPlayers(db, ended, t0);
      if (next.length === 0) return new Set();
      const t = this.options.now();
      const cases = (pick: (n: Marked) => string | number) =>
        sql.join(
          next.map((n) => sql`when ${n.id} then ${pick(n)}`),
          sql` `,
        );
      return this.queue.record(
        token,
        next.map((n) => n.id),
        {
          state: 'sent',
          server_id: serverId!,
          step: sql<number>`cast(case id ${cases((n) => n.step)} end as integer)`,
          command: sql<string>`cast(case id ${cases((n) => n.command)} end as text)`,
          waiting: null,
          attempts: sql<number>`attempts + 1`,
          sent_at: t,
          updated_at: t,
        },
        { where: inFlight, hold: true, db },
      );
    };
    // A row given or failed also writes the player's notice: one transaction with it.
    const tells = outcomes.some((o) => o.kind === 'done' || o.kind === 'failed');
    if (tells || outcomes.length + (next.length > 0 ? 1 : 0) > 1) return this.db.transaction().execute(run);
    return run(this.db);
  }

  /** Returns the ids that turned done. */
  private async applyDone(db: Db, token: string, done: Extract<Outcome, { kind: 'done' }>[]): Promise<Set<number>> {
    const t = this.options.now();
    this.stats.done += done.length;
    return this.queue.record(
      token,
      done.map((o) => o.row.id),
      {
        state: 'done',
        step: sql<number>`step + 1`,
        reply: sql<string>`cast(case id ${sql.join(
          done.map((o) => sql`when ${o.row.id} then ${o.reply}`),
          sql` `,
        )} end as text)`,
        last_error: null,
        waiting: null,
        retries: 0,
        done_at: t,
        updated_at: t,
      },
      { where: inFlight, db },
    );
  }

  /** Returns the id when the row turned done or failed (the player is told), else nothing. */
  private async apply(db: Db, token: string, o: Outcome): Promise<ReadonlySet<number>> {
    const t = this.options.now();
    const record = (set: UpdateObject<Database, 'deliveries'>, hold = false) =>
      this.queue.record(token, [o.row.id], { ...set, updated_at: t }, { where: inFlight, hold, db });
    switch (o.kind) {
      case 'step':
        await record({ reply: o.reply, step: sql<number>`step + 1` }, true);
        return NONE;
      case 'done':
        this.stats.done += 1;
        return record({
          state: 'done',
          step: sql<number>`step + 1`,
          reply: o.reply,
          last_error: null,
          waiting: null,
          retries: 0,
          done_at: t,
        });
      case 'failed':
        this.stats.failed += 1;
        return record({ state: 'failed', waiting: null, last_error: o.error, ...(o.reply !== undefined && { reply: o.reply }) });
      case 'unknown':
        this.stats.unknown += 1;
        await record({ state: 'unknown', waiting: null, last_error: o.error });
        return NONE;
      case 'unsent':
        // Back as it was before it was marked: due at once (a broken connection is tried again, a stop leaves it to the next worker).
        await record({ state: 'pending', attempts: sql<number>`attempts - 1` });
        return NONE;
      case 'wait': {
        this.stats.waiting += 1;
        const retries = Number(o.row.retries) + 1;
        await record({
          state: 'pending',
          waiting: o.waiting,
          last_error: o.error,
          retries,
          next_attempt_at: t + backoffMs(retries, waitSchedule(this.options.intervalMs, o.waiting)),
          ...(o.reply !== undefined && { reply: o.reply }),
        });
        return NONE;
      }
    }
  }

  /**
   * The server cannot be reached (or has no RCON): the rows of this claim (`token`) and every other
   * due row of the server wait, without a connect each. `first`: a row of the claim, whose retries
   * count too.
   */
  async waitServer(serverId: number, token: string | null, first: ClaimedDelivery | null, waiting: DeliveryWaiting, message: string) {
    const t = this.options.now();
    const worst = await this.db
      .selectFrom('deliveries')
      .select((eb) => eb.fn.max('retries').as('retries'))
      .where('server_id', '=', serverId)
      .where('state', '=', 'pending')
      .where('next_attempt_at', '<=', t)
      .executeTakeFirst();
    const retries = Math.max(Number(worst?.retries ?? 0), Number(first?.retries ?? 0)) + 1;
    const res = await this.db
      .updateTable('deliveries')
      .set({
        waiting,
        last_error: message,
        retries: sql<number>`retries + 1`,
        next_attempt_at: t + backoffMs(retries, waitSchedule(this.options.intervalMs, waiting)),
        lock_token: null,
        locked_until: null,
        updated_at: t,
      })
      .where('server_id', '=', serverId)
      .where('state', '=', 'pending')
      .where((eb) => {
        const due = eb.and([eb('next_attempt_at', '<=', t), eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', t)])]);
        return token === null ? due : eb.or([eb('lock_token', '=', token), due]);
      })
      .executeTakeFirst();
    this.stats.waiting += Number(res.numUpdatedRows);
  }

  /** Rows of no server wait for one: a server chosen ('only'), or any server with RCON ('all'). All of them in one statement. */
  async waitNoServer(t: number, scope: 'only' | 'all', retries: number): Promise<void> {
    const res = await unassigned(this.db, scope, t)
      .set({
        waiting: 'no_server',
        last_error: scope === 'all' ? OUTCOME_TEXTS.noRconServers : OUTCOME_TEXTS.noServer,
        retries: sql<number>`retries + 1`,
        next_attempt_at: t + backoffMs(retries, waitSchedule(this.options.intervalMs, 'no_server')),
        updated_at: t,
      })
      .executeTakeFirst();
    this.stats.waiting += Number(res.numUpdatedRows);
  }

  /** A 'sent' row whose claim ran out lost its worker mid-command: it may have run, so it is not resent. */
  async sweepInterrupted(t: number, leaseMs: number): Promise<void> {
    const swept = await this.db
      .updateTable('deliveries')
      .set({ state: 'unknown', last_error: OUTCOME_TEXTS.interrupted, lock_token: null, locked_until: null, updated_at: t })
      .where('state', '=', 'sent')
      .where('sent_at', '<', t - leaseMs)
      .executeTakeFirst();
    this.stats.unknown += Number(swept.numUpdatedRows);
  }
}

/** Outcomes land only on rows still in flight: not refunded (or otherwise moved) meanwhile. */
const inFlight = (eb: ExpressionBuilder<Database, 'deliveries'>) => eb('state', 'in', ['pending', 'sent']);
