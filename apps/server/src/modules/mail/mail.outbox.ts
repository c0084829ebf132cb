import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/index.ts';
import type { Letter, Mailer } from '../../lib/mailer.ts';

const MAX_ATTEMPTS = 20;
const LOCK_MS = 60_000;

export interface OutboxLetter extends Letter {
  /** The action link in the letter; logged when letters go to files, so a local owner can act. */
  link?: string;
}

/** Queues a letter inside the caller's transaction: it is sent only if that transaction commits. */
export async function enqueueMail(db: Db, letter: OutboxLetter, now = Date.now()): Promise<void> {
  await db
    .insertInto('mail_outbox')
    .values({
      to_address: letter.to,
      subject: letter.subject,
      text_body: letter.text,
      html_body: letter.html,
      link: letter.link ?? null,
      attempts: 0,
      next_attempt_at: now,
      created_at: now,
    })
    .execute();
}

/** Backoff after the nth failure: 30 s, 1 min, 2 min … capped at 1 h; about a day in all. */
export function retryDelayMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 3_600_000);
}

/**
 * Sends due letters. A row is claimed by a conditional update of its lock, so several
 * instances (or overlapping runs) never send the same letter twice at once.
 */
export async function drainOutbox(db: Db, mailer: Mailer, log: FastifyBaseLogger, now = () => Date.now()): Promise<number> {
  let sent = 0;
  for (;;) {
    const t = now();
    const due = await db
      .selectFrom('mail_outbox')
      .selectAll()
      .where('sent_at', 'is', null)
      .where('failed_at', 'is', null)
      .where('next_attempt_at', '<=', t)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', t)]))
      .orderBy('id')
      .limit(10)
      .execute();
    if (due.length === 0) return sent;
    for (const row of due) {
      const claimed = await db
        .updateTable('mail_outbox')
        .set({ locked_until: t + LOCK_MS, attempts: row.attempts + 1 })
        .where('id', '=', row.id)
        .where('attempts', '=', row.attempts)
        .where('sent_at', 'is', null)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) continue;
      try {
        await mailer.send({ to: row.to_address, subject: row.subject, text: row.text_body, html: row.html_body });
        await db.updateTable('mail_outbox').set({ sent_at: now(), locked_until: null, last_error: null }).where('id', '=', row.id).execute();
        sent += 1;
        if (mailer.kind === 'files') log.info({ to: row.to_address, link: row.link }, `Письмо «${row.subject}» сохранено в файл${row.link ? `; ссылка: ${row.link}` : ''}`);
      } catch (err) {
        const attempts = row.attempts + 1;
        const giveUp = attempts >= MAX_ATTEMPTS;
        await db
          .updateTable('mail_outbox')
          .set({
            locked_until: null,
            last_error: String((err as Error).message ?? err).slice(0, 1000),
            next_attempt_at: now() + retryDelayMs(attempts),
            failed_at: giveUp ? now() : null,
          })
          .where('id', '=', row.id)
          .execute();
        log.warn({ mailId: row.id, attempts, err: (err as Error).message }, 'mail send failed, will retry');
      }
    }
  }
}

/** Polls the outbox; kick() sends at once after a letter was queued. */
export class MailWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly mailer: Mailer,
    private readonly log: FastifyBaseLogger,
    private readonly intervalMs = 15_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.kick(), this.intervalMs);
    this.timer.unref();
    this.kick();
  }

  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = drainOutbox(this.db, this.mailer, this.log)
      .catch((err: unknown) => this.log.error({ err }, 'mail outbox run failed'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Resolves when the current run (if any) is over; for tests and shutdown. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.idle();
  }
}
