import { layout } from '../mail/mail.layout.ts';
import type { OutboxLetter } from '../mail/mail.outbox.ts';

export function confirmationLetter(siteName: string, to: string, username: string, link: string): OutboxLetter {
  const subject = `Подтверждение почты — ${siteName}`;
  const footer = 'Ссылка действует 24 часа. Если вы не регистрировались, просто не обращайте внимания на это письмо.';
  const intro = [`Здравствуйте, ${username}!`, `Вы зарегистрировались на сайте ${siteName}. Чтобы войти, подтвердите адрес почты.`];
  return {
    to,
    subject,
    link,
    text: `${intro.join('\n\n')}\n\nПодтвердить почту: ${link}\n\n${footer}\n`,
    html: layout(siteName, 'Подтверждение почты', intro, { text: 'Подтвердить почту', href: link }, footer),
  };
}

export function resetLetter(siteName: string, to: string, username: string, link: string): OutboxLetter {
  const subject = `Сброс пароля — ${siteName}`;
  const footer =
    'Ссылка действует 1 час и сработает один раз. Если вы не просили сбросить пароль, ничего не делайте: пароль останется прежним.';
  const intro = [
    `Здравствуйте, ${username}!`,
    'Мы получили запрос на сброс пароля вашего аккаунта. Чтобы задать новый пароль, перейдите по ссылке.',
  ];
  return {
    to,
    subject,
    link,
    text: `${intro.join('\n\n')}\n\nЗадать новый пароль: ${link}\n\n${footer}\n`,
    html: layout(siteName, 'Сброс пароля', intro, { text: 'Задать новый пароль', href: link }, footer),
  };
}
