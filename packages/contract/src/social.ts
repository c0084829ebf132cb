import { z } from 'zod';
import { Consents } from './fiscal.ts';
import { Email, Username } from './accounts.ts';
import { withLabels } from './common.ts';
import { TwoFactorCode } from './two-factor.ts';
import { SOCIAL_PROVIDERS } from './social-providers.ts';

export * from './social-providers.ts';

/** Social login: the providers a player may log in with. */
export const SocialProvider = z.enum(SOCIAL_PROVIDERS, { error: 'Неизвестный способ входа' });
export type SocialProvider = z.infer<typeof SocialProvider>;

export const SocialProviderParams = z.strictObject({ provider: SocialProvider });
export const RedirectProviderParams = z.strictObject({
  provider: z.enum(['vk', 'discord'], { error: 'Неизвестный способ входа' }),
});

const TgText = z.string({ error: 'Некорректные данные Telegram' }).max(512, 'Некорректные данные Telegram');

/**
 * What Telegram's login (the widget or oauth.telegram.org's redirect) hands the browser, as it
 * hands it; `code` is ours: the second factor when the account has one.
 */
export const TelegramAuthBody = withLabels(
  z.strictObject({
    id: z.number({ error: 'Некорректные данные Telegram' }).int().positive().max(Number.MAX_SAFE_INTEGER),
    first_name: TgText,
    last_name: TgText.optional(),
    username: TgText.optional(),
    photo_url: TgText.optional(),
    auth_date: z.number({ error: 'Некорректные данные Telegram' }).int().nonnegative().max(1e11),
    // Hex; a wrong length is simply a wrong signature (checked on the server in constant time).
    hash: z.string({ error: 'Некорректные данные Telegram' }).regex(/^[0-9a-f]{1,128}$/, 'Некорректная подпись Telegram'),
  }),
  { id: 'Telegram', first_name: 'Имя', auth_date: 'Время входа', hash: 'Подпись' },
);
export type TelegramAuthBody = z.infer<typeof TelegramAuthBody>;

/**
 * Where a social login stands: `signed_in` — the session cookie is set; `two_factor` — the
 * account has a second factor: send it to /api/auth/social/complete; `register` — nobody has
 * this provider account yet: send a name and an e-mail to /api/auth/social/register.
 */
export const SocialLoginResult = z.object({
  status: z.enum(['signed_in', 'two_factor', 'register']),
  message: z.string(),
});
export type SocialLoginResult = z.infer<typeof SocialLoginResult>;

/** The social login waiting in this browser for its second factor or its registration. */
export const SocialPending = z.object({
  kind: z.enum(['two_factor', 'register']),
  provider: SocialProvider,
  /** How the provider names the player («Иван Петров», «@ivan»). */
  display_name: z.string(),
  /** A game name made from the provider's name, for the registration form (may be taken). */
  suggested_username: z.string(),
});
export type SocialPending = z.infer<typeof SocialPending>;

export const SocialCompleteBody = withLabels(z.strictObject({ code: TwoFactorCode }), { code: 'Код подтверждения' });
export type SocialCompleteBody = z.infer<typeof SocialCompleteBody>;

export const SocialRegisterBody = withLabels(z.strictObject({ username: Username, email: Email, consents: Consents }), {
  username: 'Имя в игре',
  email: 'Почта',
  consents: 'Согласия',
});
export type SocialRegisterBody = z.infer<typeof SocialRegisterBody>;

/** `GET /api/auth/social/providers`: the providers whose keys are set (none of the keys). */
export const SocialProvidersPublic = z.object({
  providers: z.array(SocialProvider),
  /** For the redirect to oauth.telegram.org: the bot's numeric id (public) and its name. */
  telegram: z.object({ bot_id: z.string(), bot_name: z.string(), auth_url: z.string() }).nullable(),
});
export type SocialProvidersPublic = z.infer<typeof SocialProvidersPublic>;

export const SocialStartResponse = z.object({ url: z.string() });
export type SocialStartResponse = z.infer<typeof SocialStartResponse>;

/** `GET /api/user/social`: the player's links and whether they have a password. */
export const SocialLinksResponse = z.object({
  has_password: z.boolean(),
  providers: z.array(
    z.object({
      provider: SocialProvider,
      /** Keys are set: the provider can be linked (a linked one can always be unlinked). */
      available: z.boolean(),
      linked: z.object({ display_name: z.string(), linked_at: z.number() }).nullable(),
    }),
  ),
});
export type SocialLinksResponse = z.infer<typeof SocialLinksResponse>;

/** A secret in the admin: `set` in the admin, `env` from an environment variable, `unset`. */
export const SecretSource = z.enum(['set', 'env', 'unset']);

/**
 * The hosts a base address typed in the admin may lead to (https, the default port), as the
 * site uses them: VK ID's OAuth 2.1 (/authorize, /oauth2/auth, /oauth2/user_info) is on id.vk.com;
 * Telegram's login page (/auth) on oauth.telegram.org; Discord's OAuth2 and API (/oauth2/authorize,
 * /api/oauth2/token, /api/users/@me) on discord.com or its older name discordapp.com. The
 * environment's address (VK_ID_URL…) is allowed too, whatever it is: the operator set it.
 */
export const SOCIAL_URL_HOSTS = {
  vk: ['id.vk.com'],
  telegram: ['oauth.telegram.org'],
  discord: ['discord.com', 'discordapp.com'],
} as const satisfies Record<SocialProvider, readonly string[]>;

/** When the secret typed in the admin was dropped because the base address changed; null: it was not (or was typed again). */
const DroppedAt = z.number().nullable();

/** `GET /api/admin/social-settings`: keys of the providers; secrets only as set/unset. */
export const SocialSettingsView = z.object({
  vk: z.object({
    client_id: z.string(),
    client_secret: SecretSource,
    client_secret_dropped_at: DroppedAt,
    base_url: z.string(),
    redirect_uri: z.string(),
  }),
  telegram: z.object({ bot_name: z.string(), bot_token: SecretSource, bot_token_dropped_at: DroppedAt, base_url: z.string() }),
  discord: z.object({
    client_id: z.string(),
    client_secret: SecretSource,
    client_secret_dropped_at: DroppedAt,
    base_url: z.string(),
    redirect_uri: z.string(),
  }),
});
export type SocialSettingsView = z.infer<typeof SocialSettingsView>;

const KeyText = z.string({ error: 'Введите значение' }).trim().max(512, 'Слишком длинное значение');
const BaseUrl = z
  .string({ error: 'Введите адрес' })
  .trim()
  .max(300, 'Слишком длинный адрес')
  .regex(/^https?:\/\/[^\s]+$/, 'Адрес должен начинаться с https://');

/**
 * `PUT /api/admin/social-settings`: a field left out stays as it is; a text field set to `null`
 * returns to the environment's default; a secret set to `null` is forgotten (the environment's
 * applies). Secrets are write-only.
 */
export const SocialSettingsBody = withLabels(
  z.strictObject({
    vk_client_id: KeyText.nullable().optional(),
    vk_client_secret: KeyText.nullable().optional(),
    vk_base_url: BaseUrl.nullable().optional(),
    telegram_bot_name: KeyText.nullable().optional(),
    telegram_bot_token: KeyText.regex(/^\d+:[A-Za-z0-9_-]+$/, 'Токен бота выглядит как 123456:ABC-DEF…')
      .nullable()
      .optional(),
    telegram_base_url: BaseUrl.nullable().optional(),
    discord_client_id: KeyText.nullable().optional(),
    discord_client_secret: KeyText.nullable().optional(),
    discord_base_url: BaseUrl.nullable().optional(),
  }),
  {
    vk_client_id: 'ID приложения VK',
    vk_client_secret: 'Защищённый ключ VK',
    vk_base_url: 'Адрес VK ID',
    telegram_bot_name: 'Имя бота Telegram',
    telegram_bot_token: 'Токен бота Telegram',
    telegram_base_url: 'Адрес входа Telegram',
    discord_client_id: 'Client ID Discord',
    discord_client_secret: 'Client Secret Discord',
    discord_base_url: 'Адрес Discord',
  },
);
export type SocialSettingsBody = z.infer<typeof SocialSettingsBody>;
