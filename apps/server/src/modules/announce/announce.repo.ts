import { sql, type Insertable } from 'kysely';
import type { ClaimQueue } from '../../lib/jobs/index.ts';
import type { Db } from '../../db/index.ts';
import type { AnnounceOutboxTable } from './announce.tables.ts';

/** Queues a message unless this event was queued for this channel before. True when it was queued now. */
export async function queueMessage(db: Db, row: Insertable<AnnounceOutboxTable>): Promise<boolean> {
  const res = await db
    .insertInto('announce_outbox')
    .values(row)
    .onConflict((oc) => oc.columns(['channel', 'dedupe_key']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Nothing more goes to `channel` before `until`: its queued messages wait. */
export async function holdChannel(db: Db, channel: string, until: number): Promise<void> {
  await db
    .updateTable('announce_outbox')
    .set({ next_attempt_at: until })
    .where('channel', '=', channel)
    .where('state', '=', 'queued')
    .where('next_attempt_at', '<', until)
    .execute();
}

export function recentMessages(db: Db, limit: number) {
  return db
    .selectFrom('announce_outbox')
    .where('channel', '!=', 'event')
    .select(['id', 'channel', 'event', 'text', 'state', 'attempts', 'last_error', 'created_at', 'sent_at'])
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export function messageById(db: Db, id: number) {
  return db.selectFrom('announce_outbox').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function dropMessage(db: Db, id: number): Promise<void> {
  await db.deleteFrom('announce_outbox').where('id', '=', id).execute();
}

/** The oldest due message of a channel, claimed, with its attempt counted. */
export function claimChannelMessage(queue: ClaimQueue<'announce_outbox'>, channel: string, now: number) {
  return queue.claim(1, ['channel', 'text', 'attempts'], {
    now,
    set: { attempts: sql<number>`attempts + 1` },
    // One message of a channel in flight at a time, across instances: a provider's wait met by one is kept by all.
    where: (eb) =>
      eb.and([
        eb('channel', '=', channel),
        eb.not(
          eb.exists(
            eb
              .selectFrom('announce_outbox as busy')
              .select('busy.id')
              .where('busy.channel', '=', channel)
              .where('busy.state', '=', 'queued')
              .where('busy.locked_until', '>', now),
          ),
        ),
      ]),
  });
}
