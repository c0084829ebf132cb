import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../db/index.ts';
import { backoffMs, type Backoff } from '../../base/backoff.ts';
import { ClaimQueue, type ClaimOwner, type Job } from '../../lib/jobs/index.ts';
import type { Letter, Mailer } from '../../lib/mailer.ts';
import * as repo from './mail.repo.ts';

const MAX_ATTEMPTS = 20;
/** Letters claimed at a time. */
const BATCH = 10;
const LOCK_MS = 60_000;

export interface OutboxLetter extends Letter {
  /** The action link in the letter; logged when letters go to files, so a local owner can act. */
  link?: string;
}

/** Queues a letter inside the caller's transaction: it is sent only if that transaction commits. */
export async function enqueueMail(db: Db, letter: OutboxLetter, now = Date.now()): Promise<void> {
  await repo.insertLetter(db, {
    to_address: letter.to,
    subject: letter.subject,
    text_body: letter.text,
    html_body: letter.html,
    link: letter.link ?? null,
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
  });
}

/** After the nth failed send: 30 s, 1 min, 2 min … at most 1 h; the 20th try comes about 13 h after the first. */
const RETRY: Backoff = { baseMs: 30_000, capMs: 3_600_000 };

export function retryDelayMs(attempts: number): number {
  return backoffMs(attempts, RETRY);
}

/** Claims of the outbox by this process; one per database handle. */
const queues = new WeakMap<Db, ClaimQueue<'mail_outbox'>>();

function outboxQueue(db: Db, owner?: ClaimOwner): ClaimQueue<'mail_outbox'> {
  let queue = queues.get(db);
  if (!queue) {
    queue = new ClaimQueue(
      db,
      {
        table: 'mail_outbox',
        leaseMs: LOCK_MS,
        due: (eb, now) => eb.and([eb('sent_at', 'is', null), eb('failed_at', 'is', null), eb('next_attempt_at', '<=', now)]),
      },
      owner,
    );
    queues.set(db, queue);
  }
  return queue;
}

/**
 * Sends due letters, ten claimed at a time (lib/jobs/claim.ts), so several instances (or
 * overlapping runs) never send the same letter twice at once. Stops between letters when
 * `signal` aborts; the rest of the claim is released by the runner.
 */
export async function drainOutbox(
  db: Db,
  mailer: Mailer,
  log: FastifyBaseLogger,
  signal?: AbortSignal,
  now = () => Date.now(),
  senderName?: () => Promise<string>,
): Promise<number> {
  const queue = outboxQueue(db);
  let sent = 0;
  // The site's name as the owner set it now (settings), read once a pass and only when there is mail.
  let fromName: Promise<string | undefined> | undefined;
  let more = true;
  while (more && !signal?.aborted) {
    const { token, rows } = await queue.claim(BATCH, ['to_address', 'subject', 'text_body', 'html_body', 'link', 'attempts'], {
      now: now(),
      set: { attempts: sql<number>`attempts + 1` },
    });
    // A claim short of a batch took every letter due: no need to ask again. A letter queued
    // meanwhile kicks the job, which then runs one more pass.
    more = rows.length === BATCH;
    for (const row of rows) {
      if (signal?.aborted) break;
      try {
        fromName ??= senderName ? senderName().catch(() => undefined) : Promise.resolve(undefined);
        const name = await fromName;
        await mailer.send({
          to: row.to_address,
          subject: row.subject,
          text: row.text_body,
          html: row.html_body,
          ...(name ? { fromName: name } : {}),
        });
        await queue.complete(token, row.id, { sent_at: now(), last_error: null });
        sent += 1;
        // No SMTP: the owner acts on the letter from the log (the pretty format puts the link on a line of its own).
        if (mailer.kind === 'files')
          log.info(
            { to: row.to_address, ...(row.link ? { link: row.link } : {}) },
            `Письмо «${row.subject}» для ${row.to_address} сохранено в DATA_DIR/mail (SMTP_URL не задан)${row.link ? `; ссылка: ${row.link}` : ''}`,
          );
      } catch (err) {
        const giveUp = row.attempts >= MAX_ATTEMPTS;
        await queue.complete(token, row.id, {
          last_error: String((err as Error).message ?? err).slice(0, 1000),
          next_attempt_at: now() + retryDelayMs(row.attempts),
          failed_at: giveUp ? now() : null,
        });
        log.warn({ mailId: row.id, attempts: row.attempts, err: (err as Error).message }, 'mail send failed, will retry');
      }
    }
  }
  return sent;
}

export const MAIL_JOB = 'mail.outbox';

/** The outbox as a background job: polled every 15 s, and kicked after a letter is queued. */
export function mailJob(db: Db, mailer: Mailer, log: FastifyBaseLogger, senderName?: () => Promise<string>, owner?: ClaimOwner): Job {
  const queue = outboxQueue(db, owner);
  return {
    name: MAIL_JOB,
    intervalMs: 15_000,
    // A letter an earlier life claimed and did not mark sent goes again (it may have gone: mail is at least once).
    recover: () => queue.takeBack(),
    run: (signal) => drainOutbox(db, mailer, log, signal, undefined, senderName),
    release: async () => void (await outboxQueue(db).release()),
  };
}

/** Letters waiting to be sent (due now or later) and letters given up on, for /metrics. */
export async function mailQueueDepth(db: Db): Promise<{ labels: { state: 'queued' | 'failed' }; value: number }[]> {
  const counts = await repo.outboxCounts(db);
  return [
    { labels: { state: 'queued' }, value: counts.queued },
    { labels: { state: 'failed' }, value: counts.failed },
  ];
}
