import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { layout } from '../mail/mail.layout.ts';
import { enqueueMail } from '../mail/mail.outbox.ts';
import { notify } from '../notices/notices.service.ts';
import { siteName } from '../site/site.settings.ts';
import { badRequest } from '../../lib/errors.ts';
import { activeBan } from '../users/ban-status.ts';
import { activeUserByName } from './purchases.repo.ts';

export const GIFT_TEXTS = {
  /** One text for an unknown, deleted or banned name: a gift form is no way to learn who is banned. */
  refused: (name: string) => `Нельзя отправить подарок игроку «${name}»: проверьте ник`,
  self: 'Подарок себе не нужен: уберите ник получателя, чтобы купить для себя',
} as const;

export interface GiftRecipient {
  id: number;
  username: string;
  email: string;
  /** The site's name for the letter, read with the recipient (outside the purchase's transaction). */
  siteName: string;
}

/**
 * The player a purchase is a gift to, by name (without regard to case): an existing account that
 * is not deleted and not banned; refused with one text otherwise.
 */
export async function giftRecipient(
  ctx: Pick<AppContext, 'db' | 'settings'>,
  payerId: number,
  name: string,
  now = Date.now(),
): Promise<GiftRecipient> {
  const row = await activeUserByName(ctx.db, name.trim().toLowerCase());
  if (!row || activeBan(row, now)) throw badRequest(GIFT_TEXTS.refused(name.trim()), { code: 'gift_recipient_invalid', field: 'gift_to' });
  if (row.id === payerId) throw badRequest(GIFT_TEXTS.self, { code: 'gift_to_self', field: 'gift_to' });
  return { id: row.id, username: row.username, email: row.email, siteName: await siteName(ctx) };
}

/**
 * The recipient's letter and notice about a gift, queued in the purchase's transaction (sent only if it
 * commits). The site's name is read before the transaction (`giftSiteName`): on SQLite the
 * transaction holds the only connection.
 */
export async function sendGiftLetter(
  trx: Db,
  ctx: Pick<AppContext, 'config'>,
  gift: { recipient: GiftRecipient; from: string; what: string; link: string; now: number },
): Promise<void> {
  const name = gift.recipient.siteName;
  const link = `${ctx.config.publicUrl}${gift.link}`;
  const paragraphs = [
    `Здравствуйте, ${gift.recipient.username}!`,
    `Игрок ${gift.from} подарил вам на сайте ${name}: ${gift.what}.`,
    'Подарок будет выдан в игре автоматически; его состояние видно в вашем личном кабинете.',
  ];
  await enqueueMail(
    trx,
    {
      to: gift.recipient.email,
      subject: `Вам подарок от ${gift.from} — ${name}`,
      link,
      text: `${paragraphs.join('\n\n')}\n\n${link}\n`,
      html: layout(name, 'Вам подарок!', paragraphs, { text: 'Открыть', href: link }, `Письмо отправлено сайтом ${name}.`),
    },
    gift.now,
  );
  // And the bell (notices core), in the same transaction.
  await notify(
    trx,
    gift.recipient.id,
    { kind: 'gift', title: `Подарок от ${gift.from}`, body: `${gift.what}. Будет выдан в игре автоматически.`, link: gift.link },
    gift.now,
  );
}
