import { z } from 'zod';
import { roundsToZeroKopecks, withLabels, ZERO_KOPECKS_TEXT } from './common.ts';
import { PAYMENT_PROVIDERS, type PaymentProvider } from './payments.ts';

// Платежи → Подключения: the owner's side of providers. A module of its own (@kubik/contract/payment-connections)
// so that only the admin screen's chunk carries it, not the first page.

/** A partial refund: `amount` roubles back to the card (all that is left when absent). */
export const RefundBody = withLabels(
  z.strictObject({
    amount: z
      .number({ error: 'Введите сумму возврата' })
      .finite('Введите сумму возврата')
      .positive('Сумма возврата должна быть больше нуля')
      .max(100_000_000, 'Слишком большая сумма')
      .refine((v) => !roundsToZeroKopecks(v), ZERO_KOPECKS_TEXT)
      .refine((v) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6, 'Не больше двух знаков после запятой (копейки)')
      .optional(),
  }),
  { amount: 'Сумма возврата' },
);
export type RefundBody = z.infer<typeof RefundBody>;

/** The bonus (kopecks) a refund of `refund` kopecks out of a payment takes back: its share, all of what is left on the last one. */
export function refundBonusShare(amount: number, bonus: number, refunded: number, bonusRefunded: number, refund: number): number {
  const left = amount - refunded;
  if (refund >= left) return bonus - bonusRefunded;
  return Math.min(bonus - bonusRefunded, Math.floor((bonus * refund) / amount));
}

/** Provider status words as the providers send them, in Russian for the owner's payment card. */
export const PROVIDER_STATUS_TEXT: Record<string, string> = {
  // ЮKassa
  pending: 'Ожидает оплаты',
  waiting_for_capture: 'Ожидает подтверждения',
  succeeded: 'Оплачен',
  canceled: 'Отменён',
  // Т-Банк
  NEW: 'Создан',
  FORM_SHOWED: 'Открыта форма оплаты',
  AUTHORIZING: 'Проверяется',
  AUTHORIZED: 'Деньги заблокированы',
  CONFIRMING: 'Подтверждается',
  CONFIRMED: 'Оплачен',
  REVERSING: 'Отменяется',
  REVERSED: 'Отменён',
  PARTIAL_REVERSED: 'Частично отменён',
  REFUNDING: 'Возвращается',
  ASYNC_REFUNDING: 'Возвращается',
  PARTIAL_REFUNDED: 'Частично возвращён',
  REFUNDED: 'Возвращён',
  REJECTED: 'Отклонён банком',
  DEADLINE_EXPIRED: 'Истёк срок оплаты',
  AUTH_FAIL: 'Не прошёл проверку',
  CANCELED: 'Отменён',
  // ЮMoney
  'p2p-incoming': 'Перевод из кошелька получен',
  'card-incoming': 'Перевод с карты получен',
  // FreeKassa (orders status)
  'fk:0': 'Новый',
  'fk:1': 'Оплачен',
  'fk:6': 'Возвращён',
  'fk:8': 'Ошибка',
  'fk:9': 'Отменён',
};

/** Fields of each provider the owner sets; secrets are write-only (answers say only whether they are set). */
export const PROVIDER_FIELDS = {
  yookassa: { fields: ['shop_id', 'api_url'], secrets: ['secret_key'], receipts: true },
  tbank: { fields: ['terminal_key', 'api_url'], secrets: ['password'], receipts: true },
  yoomoney: { fields: ['wallet', 'form_url', 'api_url'], secrets: ['notification_secret', 'oauth_token'], receipts: false },
  freekassa: { fields: ['merchant_id', 'form_url', 'api_url'], secrets: ['secret1', 'secret2', 'api_key'], receipts: false },
} as const satisfies Record<PaymentProvider, { fields: readonly string[]; secrets: readonly string[]; receipts: boolean }>;

/**
 * The hosts an address typed in the admin may lead to, per provider and field: the provider's own,
 * as its documentation names them (https only, the default port). The environment's address for
 * a field (YOOKASSA_API_URL…) is allowed too, whatever it is: the operator set it.
 * - ЮKassa: api.yookassa.ru (API v3).
 * - Т-Банк: securepay.tinkoff.ru (API v2, test terminals included), securepay.tbank.ru (the bank's
 *   own domain under its new name).
 * - ЮMoney: yoomoney.ru (the quickpay form and the wallet API).
 * - FreeKassa: pay.freekassa.com and pay.freekassa.ru (the SCI form), api.freekassa.com and
 *   api.freekassa.ru (API v1) — it documents both domains.
 */
export const PROVIDER_URL_HOSTS = {
  yookassa: { api_url: ['api.yookassa.ru'] },
  tbank: { api_url: ['securepay.tinkoff.ru', 'securepay.tbank.ru'] },
  yoomoney: { form_url: ['yoomoney.ru'], api_url: ['yoomoney.ru'] },
  freekassa: { form_url: ['pay.freekassa.com', 'pay.freekassa.ru'], api_url: ['api.freekassa.com', 'api.freekassa.ru'] },
} as const satisfies Record<PaymentProvider, Record<string, readonly string[]>>;

/** The hosts allowed for a provider's field, or null when the field is no address. */
export function providerUrlHosts(id: PaymentProvider, field: string): readonly string[] | null {
  return (PROVIDER_URL_HOSTS[id] as Record<string, readonly string[]>)[field] ?? null;
}

export const PROVIDER_FIELD_TEXT: Record<string, string> = {
  shop_id: 'Идентификатор магазина (shopId в ЮKassa)',
  api_url: 'Адрес API',
  secret_key: 'Секретный ключ',
  terminal_key: 'TerminalKey (терминал)',
  password: 'Пароль терминала',
  wallet: 'Номер кошелька',
  form_url: 'Адрес формы оплаты',
  notification_secret: 'Секрет для проверки уведомлений',
  oauth_token: 'OAuth-токен (для сверки, необязательно)',
  merchant_id: 'ID магазина',
  secret1: 'Секретное слово 1',
  secret2: 'Секретное слово 2',
  api_key: 'API-ключ (для перепроверки, необязательно)',
};

const ProviderText = z.string().trim().max(500, 'Не длиннее 500 символов');

/**
 * PUT /api/admin/payment-providers/{provider}: only what is sent changes. A secret sent as a
 * string replaces the stored one, `null` removes it (the environment's value applies again); a
 * field `null` returns to the environment's default. `min`/`max` are roubles (null: the site's bounds).
 */
export const ProviderUpdateBody = withLabels(
  z.strictObject({
    enabled: z.boolean({ error: 'Поле enabled должно быть логическим' }).optional(),
    receipts: z.boolean({ error: 'Поле receipts должно быть логическим' }).optional(),
    min: z
      .number({ error: 'Минимальная сумма должна быть числом' })
      .positive('Минимальная сумма должна быть больше нуля')
      .max(10_000_000, 'Слишком большая сумма')
      .refine((v) => !roundsToZeroKopecks(v), ZERO_KOPECKS_TEXT)
      .nullable()
      .optional(),
    max: z
      .number({ error: 'Максимальная сумма должна быть числом' })
      .positive('Максимальная сумма должна быть больше нуля')
      .max(10_000_000, 'Слишком большая сумма')
      .refine((v) => !roundsToZeroKopecks(v), ZERO_KOPECKS_TEXT)
      .nullable()
      .optional(),
    fields: z.record(z.string().max(40), ProviderText.nullable()).optional(),
    secrets: z.record(z.string().max(40), z.string().max(2000, 'Не длиннее 2000 символов').nullable()).optional(),
  }),
  { enabled: 'Включён', receipts: 'Чеки', min: 'Минимальная сумма', max: 'Максимальная сумма', fields: 'Настройки', secrets: 'Ключи' },
);
export type ProviderUpdateBody = z.infer<typeof ProviderUpdateBody>;

export const ProviderParams = z.strictObject({ provider: z.enum(PAYMENT_PROVIDERS, { error: 'Неизвестный способ оплаты' }) });

/** Refused notifications of a provider, summed up by reason (never stored whole). */
export const RefusalSummary = z.object({
  reason: z.string(),
  /** Russian. */
  reason_text: z.string(),
  count: z.number(),
  first_at: z.number(),
  last_at: z.number(),
  last_ip: z.string().nullable(),
});
export type RefusalSummary = z.infer<typeof RefusalSummary>;

export const AdminPaymentProvider = z.object({
  id: z.enum(PAYMENT_PROVIDERS),
  name: z.string(),
  /** The owner's switch (env-configured providers are on unless switched off). */
  enabled: z.boolean(),
  /** Enabled and every required key set: offered to players. */
  connected: z.boolean(),
  /** What is missing for it to connect, in Russian; empty when connected or simply off. */
  missing: z.array(z.string()),
  receipts: z.boolean().nullable(),
  /** Roubles; null: the site's bounds apply. */
  min: z.number().nullable(),
  max: z.number().nullable(),
  fields: z.record(z.string(), z.string()),
  /** Whether each secret is set, and where from. Values never leave the server. */
  secrets: z.record(z.string(), z.enum(['set', 'env', 'unset'])),
  /**
   * Keys typed in the admin that were dropped when an address of the provider changed (they are
   * never sent to a new host), with when; a key typed again or removed leaves the list.
   */
  secrets_dropped: z.record(z.string(), z.number()),
  /** The address to give the provider for its notifications. */
  notification_url: z.string(),
  refusals: z.array(RefusalSummary),
});
export type AdminPaymentProvider = z.infer<typeof AdminPaymentProvider>;

export const ProviderCheckResult = z.object({ ok: z.boolean(), message: z.string() });
export type ProviderCheckResult = z.infer<typeof ProviderCheckResult>;
