import { layout } from '../mail/mail.layout.ts';
import type { OutboxLetter } from '../mail/mail.outbox.ts';

/** The letter to an address a player gave for an account that came from the game (AuthMe) without one. */
export function addressLetter(siteName: string, to: string, username: string, link: string): OutboxLetter {
  const subject = `Подтверждение почты — ${siteName}`;
  const footer = 'Ссылка действует 24 часа. Если вы не указывали эту почту, просто не обращайте внимания на это письмо.';
  const intro = [
    `Здравствуйте, ${username}!`,
    `Ваш игровой аккаунт теперь работает и на сайте ${siteName}. Чтобы войти, подтвердите адрес почты.`,
  ];
  return {
    to,
    subject,
    link,
    text: `${intro.join('\n\n')}\n\nПодтвердить почту: ${link}\n\n${footer}\n`,
    html: layout(siteName, 'Подтверждение почты', intro, { text: 'Подтвердить почту', href: link }, footer),
  };
}
