import { SOCIAL_PROVIDER_TITLES, type SocialProvider } from '@kubik/contract';
import { layout } from '../mail/mail.layout.ts';
import type { OutboxLetter } from '../mail/mail.outbox.ts';

/** Registration through a provider: the address is confirmed by this letter's link, which creates the account. */
export function socialConfirmLetter(siteName: string, to: string, username: string, provider: SocialProvider, link: string): OutboxLetter {
  const title = SOCIAL_PROVIDER_TITLES[provider];
  const subject = `Подтверждение почты — ${siteName}`;
  const footer = 'Ссылка действует 24 часа и сработает один раз. Если вы не регистрировались, просто не обращайте внимания на это письмо.';
  const intro = [
    `Здравствуйте, ${username}!`,
    `Вы регистрируетесь на сайте ${siteName} через ${title}. Чтобы создать аккаунт и войти, подтвердите адрес почты.`,
  ];
  return {
    to,
    subject,
    link,
    text: `${intro.join('\n\n')}\n\nПодтвердить почту: ${link}\n\n${footer}\n`,
    html: layout(siteName, 'Подтверждение почты', intro, { text: 'Подтвердить почту', href: link }, footer),
  };
}

/**
 * The same request for an address that has an account: the letter, not the form, says so (the
 * form answers alike either way, so it does not tell who is registered).
 */
export function socialExistsLetter(siteName: string, to: string, provider: SocialProvider, loginLink: string): OutboxLetter {
  const title = SOCIAL_PROVIDER_TITLES[provider];
  const subject = `Вход через ${title} — ${siteName}`;
  const footer = 'Если это были не вы, просто не обращайте внимания на это письмо: ничего не изменилось.';
  const intro = [
    'Здравствуйте!',
    `Кто-то (возможно, вы) пытался зарегистрироваться на сайте ${siteName} через ${title} с этим адресом почты. Но аккаунт с этим адресом уже есть.`,
    `Войдите в свой аккаунт и привяжите ${title} в профиле (Настройки → Вход через соцсети) — тогда сможете входить через ${title}. Забыли пароль — восстановите его на странице входа.`,
  ];
  return {
    to,
    subject,
    link: loginLink,
    text: `${intro.join('\n\n')}\n\nВойти: ${loginLink}\n\n${footer}\n`,
    html: layout(siteName, `Вход через ${title}`, intro, { text: 'Войти', href: loginLink }, footer),
  };
}
