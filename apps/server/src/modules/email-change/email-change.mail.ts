import type { OutboxLetter } from '../mail/mail.outbox.ts';
import { layout } from '../mail/mail.layout.ts';

export function confirmNewEmailLetter(siteName: string, to: string, username: string, link: string): OutboxLetter {
  const footer =
    'Ссылка действует 24 часа и сработает один раз. Если вы не меняли почту, просто не обращайте внимания на это письмо: адрес останется прежним.';
  const intro = [
    `Здравствуйте, ${username}!`,
    `Вы указали этот адрес как новую почту аккаунта на сайте ${siteName}. Чтобы почта сменилась, подтвердите адрес.`,
  ];
  return {
    to,
    subject: `Подтверждение новой почты — ${siteName}`,
    link,
    text: `${intro.join('\n\n')}\n\nПодтвердить новую почту: ${link}\n\n${footer}\n`,
    html: layout(siteName, 'Подтверждение новой почты', intro, { text: 'Подтвердить новую почту', href: link }, footer),
  };
}

export function emailChangeNoticeLetter(
  siteName: string,
  to: string,
  username: string,
  newEmail: string,
  link: string,
  cancelDays: number,
): OutboxLetter {
  const footer = `Ссылка отмены действует ${cancelDays} дней — и до, и после подтверждения нового адреса. Отмена завершит все сеансы аккаунта.`;
  const intro = [
    `Здравствуйте, ${username}!`,
    `Для вашего аккаунта на сайте ${siteName} запрошена смена почты на ${newEmail}. Почта сменится, когда на новом адресе откроют ссылку подтверждения.`,
    'Если это были не вы, отмените смену: кто-то знает ваш пароль — после отмены смените его.',
  ];
  return {
    to,
    subject: `Смена почты аккаунта — ${siteName}`,
    link,
    text: `${intro.join('\n\n')}\n\nОтменить смену почты: ${link}\n\n${footer}\n`,
    html: layout(siteName, 'Смена почты аккаунта', intro, { text: 'Отменить смену почты', href: link }, footer),
  };
}
