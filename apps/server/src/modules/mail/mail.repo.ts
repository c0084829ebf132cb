import type { Insertable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { MailOutboxTable } from '../../db/types.ts';

export async function insertLetter(db: Db, row: Insertable<MailOutboxTable>): Promise<void> {
  await db.insertInto('mail_outbox').values(row).execute();
}

/** Letters not yet sent nor given up on, and letters given up on: one pass over the outbox. */
export async function outboxCounts(db: Db): Promise<{ queued: number; failed: number }> {
  const row = await db
    .selectFrom('mail_outbox')
    .select((eb) => [
      eb.fn
        .sum<number>(
          eb
            .case()
            .when(eb.and([eb('sent_at', 'is', null), eb('failed_at', 'is', null)]))
            .then(1)
            .else(0)
            .end(),
        )
        .as('queued'),
      eb.fn.sum<number>(eb.case().when('failed_at', 'is not', null).then(1).else(0).end()).as('failed'),
    ])
    .executeTakeFirstOrThrow();
  return { queued: Number(row.queued ?? 0), failed: Number(row.failed ?? 0) };
}
