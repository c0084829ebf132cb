import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/index.ts';
import type { ScheduledJobSpec } from '../../lib/jobs/index.ts';
import { enqueueMail, type OutboxLetter } from '../mail/mail.outbox.ts';
import { notify } from '../notices/notices.service.ts';
import { endPrivilege } from './privileges.placement.ts';
import * as repo from './privileges.repo.ts';
import { DAY_MS, REMIND_BEFORE_MS } from './privileges.service.ts';

const BATCH = 200;

export interface ExpiryOutcome {
  ended: number;
  reminded: number;
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** «30 ноября 2026 г. в 14:05» — the end as the reminder writes it. */
function endWords(expiresAt: number): string {
  return new Intl.DateTimeFormat('ru-RU', { dateStyle: 'long', timeStyle: 'short', timeZone: 'Europe/Moscow' }).format(new Date(expiresAt));
}

export function reminderLetter(
  siteName: string,
  publicUrl: string,
  to: string,
  username: string,
  title: string,
  expiresAt: number,
): OutboxLetter {
  const when = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'long', timeStyle: 'short', timeZone: 'Europe/Moscow' }).format(
    new Date(expiresAt),
  );
  const days = Math.max(1, Math.ceil((expiresAt - Date.now()) / DAY_MS));
  const link = `${publicUrl}/donate`;
  const lines = [
    `Здравствуйте, ${username}!`,
    `Ваша привилегия ${title} на сайте ${siteName} закончится ${when} (МСК) — осталось дней: ${days}.`,
    'Продлите её заранее, чтобы не потерять возможности: новый срок добавится к концу текущего.',
  ];
  return {
    to,
    subject: `Привилегия ${title} скоро закончится — ${siteName}`,
    link,
    text: `${lines.join('\n\n')}\n\nПродлить: ${link}\n`,
    html: `<!doctype html><html lang="ru"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body style="font-family:Arial,sans-serif">${lines.map((l) => `<p>${esc(l)}</p>`).join('')}<p><a href="${esc(link)}">Продлить привилегию</a></p></body></html>`,
  };
}

/**
 * One pass: every privilege whose end has come is ended and its revoke commands queued — each in
 * a transaction of its own whose conditional update only one pass on one instance can win, so a
 * restart, an overlapping pass or a second instance never queues them twice. Then the «ends in
 * 3 days» letters, once per end (an extension clears the mark).
 */
/** The site's name for the letters: a fixed text, or read when a letter is due (the owner's setting). */
type SiteNameSource = string | (() => Promise<string>);

export async function expiryPass(
  db: Db,
  opts: { siteName: SiteNameSource; publicUrl: string; log?: FastifyBaseLogger },
  now = Date.now(),
): Promise<ExpiryOutcome> {
  const out: ExpiryOutcome = { ended: 0, reminded: 0 };
  const due = await repo.duePrivileges(db, now, BATCH);
  for (const row of due) {
    try {
      const ended = await db.transaction().execute(async (trx) => {
        if (!(await endPrivilege(trx, row, 'expired', now))) return false;
        await notify(
          trx,
          row.user_id,
          {
            kind: 'privilege_ended',
            title: `Привилегия ${row.tier_title} закончилась`,
            body: 'Продлите её в разделе «Донат».',
            link: '/donate',
          },
          now,
        );
        return true;
      });
      if (ended) out.ended++;
    } catch (err) {
      opts.log?.error({ err, privilege: row.id }, 'privilege expiry failed');
    }
  }
  const soon = await repo.privilegesToRemind(db, now, REMIND_BEFORE_MS, BATCH);
  const siteName = soon.length === 0 ? '' : typeof opts.siteName === 'string' ? opts.siteName : await opts.siteName();
  for (const r of soon) {
    await db.transaction().execute(async (trx) => {
      if (!(await repo.markReminded(trx, r.id, r.expires_at, now))) return;
      await enqueueMail(trx, reminderLetter(siteName, opts.publicUrl, r.email, r.username, r.tier_title, Number(r.expires_at)), now);
      await notify(
        trx,
        r.user_id,
        {
          kind: 'privilege_ending',
          title: `Привилегия ${r.tier_title} скоро закончится`,
          body: `Закончится ${endWords(Number(r.expires_at))} (МСК). Продлите заранее: новый срок добавится к концу текущего.`,
          link: '/donate',
          data: { expires_at: Number(r.expires_at) },
        },
        now,
      );
      out.reminded++;
    });
  }
  return out;
}

export const EXPIRY_JOB = 'privileges.expiry';

export function expiryJob(
  db: Db,
  opts: { siteName: SiteNameSource; publicUrl: string; everyMs: number; log?: FastifyBaseLogger; onEnded?: () => void },
): ScheduledJobSpec {
  return {
    name: EXPIRY_JOB,
    everyMs: opts.everyMs,
    run: async () => {
      const out = await expiryPass(db, opts);
      if (out.ended > 0) opts.onEnded?.();
    },
  };
}
