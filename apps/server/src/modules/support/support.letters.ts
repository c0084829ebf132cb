import type { Db } from '../../db/index.ts';
import { layout } from '../mail/mail.layout.ts';
import { enqueueMail } from '../mail/mail.outbox.ts';
import { notify } from '../notices/notices.service.ts';

/** A letter about a ticket goes at most this often to each side; the bell hears of every change. */
export const LETTER_EVERY_MS = 10 * 60_000;

/** The first lines of a message in a notice or a letter: plain text, never HTML. */
export function excerpt(text: string, max = 300): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

export interface Recipient {
  id: number;
  username: string;
  email: string;
}

interface Telling {
  siteName: string;
  publicUrl: string;
  now: number;
}

/**
 * Tells one person about a ticket, in the caller's transaction: the bell (and with it the live
 * stream), and a letter unless one went to them about this ticket less than ten minutes ago
 * (`mailedAt`). Returns whether a letter was queued.
 */
export async function tell(
  trx: Db,
  to: Recipient,
  what: { title: string; lines: string[]; path: string; mailedAt: number | null; mail?: boolean; letterLink?: string },
  t: Telling,
): Promise<boolean> {
  await notify(trx, to.id, { kind: 'support', title: what.title, body: what.lines.join('\n') || null, link: what.path }, t.now);
  if (what.mail === false || (what.mailedAt !== null && t.now - what.mailedAt < LETTER_EVERY_MS)) return false;
  const link = what.letterLink ?? `${t.publicUrl}${what.path}`;
  const paragraphs = [`Здравствуйте, ${to.username}!`, ...what.lines];
  await enqueueMail(
    trx,
    {
      to: to.email,
      subject: `${what.title} — ${t.siteName}`,
      link,
      text: `${paragraphs.join('\n\n')}\n\n${link}\n`,
      html: layout(
        t.siteName,
        what.title,
        paragraphs,
        { text: 'Открыть обращение', href: link },
        `Письмо отправлено сайтом ${t.siteName}.`,
      ),
    },
    t.now,
  );
  return true;
}
