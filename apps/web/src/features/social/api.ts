import type {
  MessageResponse,
  SocialLinksResponse,
  SocialLoginResult,
  SocialPending,
  SocialProvider,
  SocialProvidersPublic,
  SocialRegisterBody,
  SocialSettingsBody,
  SocialSettingsView,
  SocialStartResponse,
  TelegramAuthBody,
} from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const PROVIDERS_KEY = ['social', 'providers'] as const;
export const LINKS_KEY = ['social', 'links'] as const;
export const PENDING_KEY = ['social', 'pending'] as const;

export const fetchProviders = () => api<SocialProvidersPublic>('/api/auth/social/providers');
export const fetchLinks = () => api<SocialLinksResponse>('/api/user/social');
export const fetchPending = () => api<SocialPending>('/api/auth/social/pending');
// A 401 here is Telegram's signature or age (or a wrong code below), not a lost session: quiet401.
export const telegramLogin = (body: TelegramAuthBody) =>
  api<SocialLoginResult>('/api/auth/telegram', { method: 'POST', body, quiet401: true });
export const telegramLink = (body: TelegramAuthBody) =>
  api<MessageResponse>('/api/user/social/telegram', { method: 'POST', body, quiet401: true });
export const startLink = (provider: 'vk' | 'discord') => api<SocialStartResponse>(`/api/user/social/${provider}`, { method: 'POST' });
export const unlink = (provider: SocialProvider) => api<MessageResponse>(`/api/user/social/${provider}`, { method: 'DELETE' });
export const completeTwoFactor = (code: string) =>
  api<SocialLoginResult>('/api/auth/social/complete', { method: 'POST', body: { code }, quiet401: true });
/** The password-reset letter to the player's own address: how an account made through a provider gets a password (launchers need one). */
export const sendPasswordLetter = (email: string) => api<MessageResponse>('/api/user/forgot-password', { method: 'POST', body: { email } });
export const registerThrough = (body: SocialRegisterBody) => api<MessageResponse>('/api/auth/social/register', { method: 'POST', body });

/** Where the redirect login of a provider starts (a plain link: the server answers with the provider's address). */
export const startPath = (provider: 'vk' | 'discord') => `/api/auth/${provider}/start`;

/** oauth.telegram.org's login page, which sends the browser back to /login/telegram with #tgAuthResult. */
export function telegramAuthUrl(tg: NonNullable<SocialProvidersPublic['telegram']>, link: boolean): string {
  const origin = window.location.origin;
  const q = new URLSearchParams({
    bot_id: tg.bot_id,
    origin,
    return_to: `${origin}/login/telegram${link ? '?link=1' : ''}`,
    request_access: 'write',
  });
  return `${tg.auth_url}?${q.toString()}`;
}

/** Russian texts of the errors a redirect login brings back in `?social_error=`. */
export const SOCIAL_ERROR_TEXTS: Record<string, string> = {
  social_state_invalid: 'Вход не удался: ссылка устарела, уже использована или открыта в другом браузере. Попробуйте ещё раз.',
  social_provider_error: 'Сервис входа не подтвердил вход. Попробуйте ещё раз.',
  social_unavailable: 'Вход через этот сервис не настроен.',
  social_already_linked: 'Этот аккаунт соцсети уже привязан к другому игроку.',
  social_provider_taken: 'К вашему аккаунту уже привязан другой аккаунт этого сервиса. Сначала отвяжите его.',
  social_pending_invalid: 'Ссылка устарела или уже использована. Начните вход заново.',
  banned: 'Аккаунт заблокирован.',
  email_not_confirmed: 'Почта не подтверждена.',
  rate_limited: 'Слишком много попыток. Попробуйте позже.',
};

export const errorText = (code: string) => SOCIAL_ERROR_TEXTS[code] ?? 'Вход через соцсеть не удался. Попробуйте ещё раз.';

export const SOCIAL_SETTINGS_KEY = ['admin', 'social-settings'] as const;
export const fetchSocialSettings = () => api<SocialSettingsView>('/api/admin/social-settings');
export const saveSocialSettings = (body: SocialSettingsBody) =>
  api<SocialSettingsView>('/api/admin/social-settings', { method: 'PUT', body });
