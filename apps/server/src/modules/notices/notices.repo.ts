import { NOTICE_KINDS, type Notice, type NoticeKind } from '@kubik/contract';
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { NoticesTable } from './notices.tables.ts';

const KINDS = new Set<string>(NOTICE_KINDS);

export function toNotice(r: Selectable<NoticesTable>): Notice {
  let data: Record<string, unknown> | null;
  try {
    data = r.data_json ? (JSON.parse(r.data_json) as Record<string, unknown>) : null;
  } catch {
    data = null;
  }
  return {
    id: Number(r.id),
    kind: (KINDS.has(r.kind) ? r.kind : 'message') as NoticeKind,
    title: r.title,
    body: r.body,
    link: r.link,
    data,
    created_at: Number(r.created_at),
    read_at: r.read_at === null ? null : Number(r.read_at),
  };
}

export async function countUnread(db: Db, userId: number): Promise<number> {
  const r = await db
    .selectFrom('notices')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function listPage(db: Db, userId: number, page: number, size: number): Promise<{ items: Notice[]; total: number }> {
  const [rows, total] = await Promise.all([
    db
      .selectFrom('notices')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .limit(size)
      .offset((page - 1) * size)
      .execute(),
    db
      .selectFrom('notices')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(toNotice), total: Number(total.n) };
}

/** Marks the player's notices read (only theirs, only unread ones); ids null: all of them. */
export async function markRead(db: Db, userId: number, ids: number[] | null, now = Date.now()): Promise<void> {
  let q = db.updateTable('notices').set({ read_at: now }).where('user_id', '=', userId).where('read_at', 'is', null);
  if (ids) q = q.where('id', 'in', ids);
  await q.execute();
}

/** The newest notice id of the player (0 when none): a stream sends only what comes after. */
export async function lastNoticeId(db: Db, userId: number): Promise<number> {
  const r = await db
    .selectFrom('notices')
    .select((eb) => eb.fn.max('id').as('id'))
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(r?.id ?? 0);
}

/** The player's notices after `afterId`, oldest first (a few at most: what a stream missed). */
export async function noticesAfter(db: Db, userId: number, afterId: number, limit = 20): Promise<Notice[]> {
  const rows = await db
    .selectFrom('notices')
    .selectAll()
    .where('user_id', '=', userId)
    .where('id', '>', afterId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.reverse().map(toNotice);
}

/** Read notices older than `before` go (the bell keeps what is recent). */
export async function deleteOldRead(db: Db, before: number): Promise<number> {
  const r = await db.deleteFrom('notices').where('read_at', 'is not', null).where('created_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** One player's notice; returns its id. */
export async function insertNotice(trx: Db, row: Insertable<NoticesTable>): Promise<number> {
  const inserted = await trx.insertInto('notices').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(inserted.id);
}

/** Several players' notices in one insert. */
export async function insertNotices(trx: Db, rows: Insertable<NoticesTable>[]): Promise<void> {
  if (rows.length > 0) await trx.insertInto('notices').values(rows).execute();
}

/**
 * PostgreSQL only: the rows and their signals on the channel in one statement (one round trip);
 * the signals go at commit, like pgNotify's.
 */
export async function insertNoticesAndNotify(trx: Db, rows: Insertable<NoticesTable>[], channel: string, payloads: readonly string[]) {
  if (rows.length === 0) return;
  await trx
    .with('added', (db) => db.insertInto('notices').values(rows).returning('id'))
    .selectFrom(sql<{ p: string }>`unnest(cast(${payloads} as text[]))`.as('p'))
    .select(sql<string>`pg_notify(${channel}, p)`.as('sent'))
    .execute();
}

/**
 * The same notice to every account that is not deleted, one row each, in one statement (the
 * values are cast, so both databases take them as the columns' types). Returns how many.
 */
export async function insertNoticeForEveryone(trx: Db, notice: Omit<Insertable<NoticesTable>, 'user_id'>): Promise<number> {
  const result = await trx
    .insertInto('notices')
    .columns(['user_id', 'kind', 'title', 'body', 'link', 'data_json', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('users')
        .where('deleted_at', 'is', null)
        .select([
          'id',
          sql<string>`cast(${notice.kind} as text)`.as('kind'),
          sql<string>`cast(${notice.title} as text)`.as('title'),
          sql<string | null>`cast(${notice.body ?? null} as text)`.as('body'),
          sql<string | null>`cast(${notice.link ?? null} as text)`.as('link'),
          sql<string | null>`cast(${notice.data_json ?? null} as text)`.as('data_json'),
          sql<number>`cast(${notice.created_at} as bigint)`.as('created_at'),
        ]),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/**
 * PostgreSQL only: signals on the channel, sent when the caller's transaction commits (dropped with
 * a rollback). Several payloads go in one statement, one round trip.
 */
export async function pgNotify(trx: Db, channel: string, payloads: readonly string[]): Promise<void> {
  if (payloads.length === 1) await sql`select pg_notify(${channel}, ${payloads[0]})`.execute(trx);
  else if (payloads.length > 1) await sql`select pg_notify(${channel}, p) from unnest(cast(${payloads} as text[])) as p`.execute(trx);
}

/** The player's balance in kopecks (0 for an unknown id). */
export async function userBalance(db: Db, userId: number): Promise<number> {
  const r = await db.selectFrom('users').select('balance').where('id', '=', userId).executeTakeFirst();
  return Number(r?.balance ?? 0);
}

/** The id of an account that is not deleted, if there is one. */
export async function activeUserId(db: Db, id: number): Promise<number | undefined> {
  const row = await db.selectFrom('users').select('id').where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  return row?.id;
}
