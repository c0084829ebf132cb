import { layout } from '../mail/mail.layout.ts';
import type { OutboxLetter } from '../mail/mail.outbox.ts';

/** Letters about the account's security: two-factor login turned on or off, a login from a new device. */

const SESSIONS_PATH = '/profile?tab=settings#sessions';

export const sessionsLink = (publicUrl: string) => `${publicUrl}${SESSIONS_PATH}`;

function letter(
  siteName: string,
  to: string,
  title: string,
  paragraphs: string[],
  button: { text: string; href: string },
  footer: string,
): OutboxLetter {
  return {
    to,
    subject: `${title} — ${siteName}`,
    link: button.href,
    text: `${paragraphs.join('\n\n')}\n\n${button.text}: ${button.href}\n\n${footer}\n`,
    html: layout(siteName, title, paragraphs, button, footer),
  };
}

const NOT_YOU = 'Если это были не вы, сразу смените пароль и завершите чужие сеансы на странице «Сеансы и устройства».';

export function twoFactorChangedLetter(siteName: string, publicUrl: string, to: string, username: string, on: boolean): OutboxLetter {
  const title = on ? 'Двухфакторная защита включена' : 'Двухфакторная защита отключена';
  const body = on
    ? 'Для вашего аккаунта включена двухфакторная защита: теперь при входе на сайт и в лаунчер, кроме пароля, нужен код из приложения-аутентификатора или один из кодов восстановления.'
    : 'Для вашего аккаунта отключена двухфакторная защита: теперь для входа достаточно пароля.';
  return letter(
    siteName,
    to,
    title,
    [`Здравствуйте, ${username}!`, body],
    { text: 'Сеансы и устройства', href: sessionsLink(publicUrl) },
    NOT_YOU,
  );
}

export interface NewDeviceInfo {
  /** Already formatted in Moscow time: «23.11.2026, 14:05 (МСК)». */
  when: string;
  ip: string;
  device: string;
}

export function newDeviceLetter(siteName: string, publicUrl: string, to: string, username: string, info: NewDeviceInfo): OutboxLetter {
  return letter(
    siteName,
    to,
    'Вход с нового устройства',
    [
      `Здравствуйте, ${username}!`,
      'В ваш аккаунт вошли с устройства, с которого раньше не входили.',
      `Время: ${info.when}`,
      `IP-адрес: ${info.ip}`,
      `Устройство: ${info.device}`,
    ],
    { text: 'Сеансы и устройства', href: sessionsLink(publicUrl) },
    NOT_YOU,
  );
}
