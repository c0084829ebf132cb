import { z } from 'zod';
import { Consents } from './fiscal.ts';
import { OptionalPromoCode } from './storefront.ts';
import { roundsToZeroKopecks, withLabels, ZERO_KOPECKS_TEXT } from './common.ts';

// Balance top-up through payment providers (YooKassa, T-Bank, ЮMoney, FreeKassa). Amounts on the wire are roubles.

export const PAYMENT_PROVIDERS = ['yookassa', 'tbank', 'yoomoney', 'freekassa'] as const;
export type PaymentProvider = (typeof PAYMENT_PROVIDERS)[number];

export const PAYMENT_PROVIDER_TEXT: Record<PaymentProvider, string> = {
  yookassa: 'ЮKassa',
  tbank: 'Т-Банк',
  yoomoney: 'ЮMoney',
  freekassa: 'FreeKassa',
};

/**
 * pending: created, waits for the player and the provider; succeeded: paid and credited once;
 * canceled: not paid (refused, abandoned, or 24 h without payment); refunding: the money is taken
 * back from the balance and the provider is being asked to return it; refunded: returned.
 * Forward only: pending → succeeded | canceled; succeeded → refunding → refunded.
 */
export const PAYMENT_STATUSES = ['pending', 'succeeded', 'canceled', 'refunding', 'refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const PAYMENT_STATUS_TEXT: Record<PaymentStatus, string> = {
  pending: 'Ожидает оплаты',
  succeeded: 'Оплачен',
  canceled: 'Отменён',
  refunding: 'Возвращается',
  refunded: 'Возвращён',
};

export const PAYMENT_TEXTS = {
  amountInvalid: 'Введите сумму в рублях, не больше двух знаков после запятой',
  amountMin: (min: string) => `Минимальная сумма пополнения — ${min}`,
  amountMax: (max: string) => `Максимальная сумма пополнения — ${max}`,
  providerOff: 'Этот способ оплаты не подключён',
  providerFailed: 'Платёжная система не ответила. Попробуйте ещё раз через минуту.',
  notFound: 'Платёж не найден',
  processing: 'Платёж обрабатывается…',
  credited: (amount: string) => `Баланс пополнен на ${amount}`,
  canceled: 'Платёж отменён, деньги не списаны',
  refundNotSucceeded: 'Вернуть можно только оплаченный платёж',
  refundNoFunds: 'На балансе игрока уже нет этой суммы: вернуть платёж нельзя',
  refundFailed: 'Платёжная система отказала в возврате',
  refundStarted: 'Возврат отправлен в платёжную систему',
  refunded: 'Платёж возвращён',
} as const;

/** Roubles with at most two decimals (150.5, 150.50), bounds checked by the server (PAYMENT_MIN_RUB…PAYMENT_MAX_RUB). */
export const PaymentAmount = z
  .number({ error: PAYMENT_TEXTS.amountInvalid })
  .finite(PAYMENT_TEXTS.amountInvalid)
  .positive(PAYMENT_TEXTS.amountInvalid)
  .max(1_000_000_000, PAYMENT_TEXTS.amountInvalid)
  .refine((v) => !roundsToZeroKopecks(v), ZERO_KOPECKS_TEXT)
  .refine((v) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6, PAYMENT_TEXTS.amountInvalid);

export const CreatePaymentBody = withLabels(
  z.strictObject({
    amount: PaymentAmount,
    provider: z.enum(PAYMENT_PROVIDERS, { error: PAYMENT_TEXTS.providerOff }),
    /** A 'topup_bonus' promo code: its percent is added to the bonus when the payment is credited. */
    promo_code: OptionalPromoCode,
    /** Ticked before paying: the offer's new version, the personal-data policy, the age confirmation (GET /api/legal/consents). */
    consents: Consents,
  }),
  { amount: 'Сумма', provider: 'Способ оплаты', promo_code: 'Промокод', consents: 'Согласия' },
);
export type CreatePaymentBody = z.infer<typeof CreatePaymentBody>;

/** A form the page posts for the player (ЮMoney's quickpay): the provider takes the payment on its own page. */
export const PaymentForm = z.object({
  action: z.string(),
  method: z.enum(['POST', 'GET']),
  fields: z.record(z.string(), z.string()),
});
export type PaymentForm = z.infer<typeof PaymentForm>;

/**
 * Where the page sends the player: `confirmation_url` (open it) or `form` (post it); ЮMoney's
 * answer also carries the `label` its notification will name the payment by.
 */
export const PaymentCreated = z.object({
  id: z.string(),
  status: z.enum(PAYMENT_STATUSES),
  confirmation_url: z.string().nullable(),
  form: PaymentForm.nullable(),
  label: z.string().nullable(),
});
export type PaymentCreated = z.infer<typeof PaymentCreated>;

/** A payment as its player sees it. Times are epoch milliseconds. */
export const PlayerPayment = z.object({
  id: z.string(),
  provider: z.enum(PAYMENT_PROVIDERS),
  amount: z.number(),
  status: z.enum(PAYMENT_STATUSES),
  created_at: z.number(),
  paid_at: z.number().nullable(),
  /** Roubles of the owner's bonus credited with it (0 without one). */
  bonus: z.number(),
});
export type PlayerPayment = z.infer<typeof PlayerPayment>;

export const PaymentIdParams = z.strictObject({ id: z.string().regex(/^[0-9a-f-]{36}$/, PAYMENT_TEXTS.notFound) });

/** What the top-up page offers: the configured providers and the bounds. */
export const PaymentOptions = z.object({
  /** The connected providers only, each with its own bounds (roubles). */
  providers: z.array(z.object({ id: z.enum(PAYMENT_PROVIDERS), name: z.string(), min: z.number(), max: z.number() })),
  min: z.number(),
  max: z.number(),
  presets: z.array(z.number()),
  bonus_rules: z.array(z.object({ from: z.number(), percent: z.number() })),
});
export type PaymentOptions = z.infer<typeof PaymentOptions>;

/** An owner's bonus rule: from this many roubles paid, credit this percent more (a separate ledger row). */
export const BonusRule = withLabels(
  z.strictObject({
    from: z
      .number({ error: 'Введите сумму' })
      .finite('Введите сумму')
      .positive('Сумма должна быть больше нуля')
      .max(10_000_000, 'Слишком большая сумма')
      .refine((v) => !roundsToZeroKopecks(v), ZERO_KOPECKS_TEXT),
    percent: z
      .number({ error: 'Введите процент' })
      .finite('Введите процент')
      .positive('Процент должен быть больше нуля')
      .max(100, 'Не больше 100 %'),
  }),
  { from: 'От суммы', percent: 'Бонус, %' },
);
export type BonusRule = z.infer<typeof BonusRule>;

/** YooKassa receipt VAT codes (vat_code): 1 без НДС, 2 0 %, 3 10 %, 4 20 %, 5 10/110, 6 20/120. */
export const VAT_CODE_TEXT: Record<number, string> = {
  1: 'Без НДС',
  2: 'НДС 0 %',
  3: 'НДС 10 %',
  4: 'НДС 20 %',
  5: 'НДС 10/110',
  6: 'НДС 20/120',
};

export const PaymentSettingsBody = withLabels(
  z.strictObject({
    vat_code: z
      .number({ error: 'Выберите ставку НДС' })
      .int('Выберите ставку НДС')
      .min(1, 'Выберите ставку НДС')
      .max(6, 'Выберите ставку НДС'),
    bonus_rules: z.array(BonusRule).max(20, 'Не больше 20 правил'),
  }),
  { vat_code: 'Ставка НДС в чеке', bonus_rules: 'Бонусы к пополнению' },
);
export type PaymentSettingsBody = z.infer<typeof PaymentSettingsBody>;

/** The bonus (kopecks) the best matching rule gives to a payment of `kopecks`. */
export function bonusFor(kopecks: number, rules: readonly BonusRule[]): number {
  let percent = 0;
  for (const r of rules) if (kopecks >= Math.round(r.from * 100) && r.percent > percent) percent = r.percent;
  return Math.floor((kopecks * percent) / 100);
}

// ---------------------------------------------------------------- the owner's side (admin)

export const ADMIN_PAYMENTS_PAGE_SIZE = 50;

export const ADMIN_PAYMENT_TEXTS = {
  refundInProgress: 'Возврат этого платежа уже выполняется',
  alreadyRefunded: 'Платёж уже возвращён',
  refundProviderOff: 'Этот способ оплаты отключён на сайте: вернуть платёж через сайт нельзя',
  /** The provider refused: nothing was returned to the card, the money is back on the balance. */
  refundRefused: (reason: string) => `Платёжная система отказала в возврате (${reason}). Деньги снова на балансе игрока.`,
  /** The provider did not answer: the balance stays debited and the refund is asked again later. */
  refundUnknown: 'Платёжная система не ответила. Сумма списана с баланса игрока; возврат будет повторён автоматически.',
  badPeriod: 'Некорректная дата: укажите ГГГГ-ММ-ДД или время в миллисекундах',
  badTimezone: 'Неизвестный часовой пояс',
} as const;

const Moment = z
  .string()
  .max(40, ADMIN_PAYMENT_TEXTS.badPeriod)
  .regex(/^(\d{1,15}|\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?)$/, ADMIN_PAYMENT_TEXTS.badPeriod);

/**
 * Filters of the owner's payment list and its CSV: status, provider, player (part of the name),
 * period `from` (inclusive) … `to` (exclusive) by creation time, each epoch ms or ISO 8601
 * (a bare date is midnight UTC; the admin screen sends its own midnight in ms).
 */
export const AdminPaymentsFilter = z.strictObject({
  status: z.enum(PAYMENT_STATUSES, { error: 'Неизвестный статус платежа' }).optional(),
  provider: z.enum(PAYMENT_PROVIDERS, { error: 'Неизвестный способ оплаты' }).optional(),
  player: z
    .string()
    .trim()
    .max(16, 'Имя игрока — не длиннее 16 символов')
    .regex(/^[A-Za-z0-9_]*$/, 'Имя игрока — латинские буквы, цифры и «_»')
    .optional(),
  from: Moment.optional(),
  to: Moment.optional(),
});

export const AdminPaymentsQuery = withLabels(
  AdminPaymentsFilter.extend({
    page: z.coerce
      .number({ error: 'Некорректный номер страницы' })
      .int('Некорректный номер страницы')
      .min(1, 'Некорректный номер страницы')
      .max(1_000_000, 'Некорректный номер страницы')
      .optional(),
    per_page: z.coerce
      .number({ error: 'Некорректный размер страницы' })
      .int('Некорректный размер страницы')
      .min(1, 'Некорректный размер страницы')
      .max(200, 'Не больше 200 платежей на странице')
      .optional(),
  }),
  { status: 'Статус', provider: 'Способ оплаты', player: 'Игрок', from: 'С', to: 'По', page: 'Страница', per_page: 'Платежей на странице' },
);
export type AdminPaymentsQuery = z.input<typeof AdminPaymentsQuery>;

export const AdminPaymentsCsvQuery = withLabels(
  AdminPaymentsFilter.extend({
    /** IANA time zone of the dates in the file (the browser's own); Moscow when absent. */
    tz: z
      .string()
      .max(64, ADMIN_PAYMENT_TEXTS.badTimezone)
      .regex(/^[A-Za-z][A-Za-z0-9_+\-/]*$/, ADMIN_PAYMENT_TEXTS.badTimezone)
      .optional(),
  }),
  { status: 'Статус', provider: 'Способ оплаты', player: 'Игрок', from: 'С', to: 'По', tz: 'Часовой пояс' },
);
export type AdminPaymentsCsvQuery = z.input<typeof AdminPaymentsCsvQuery>;

/** A payment as the owner sees it. Amounts in roubles, times epoch ms. */
export const AdminPayment = z.object({
  id: z.string(),
  user_id: z.number(),
  username: z.string(),
  provider: z.enum(PAYMENT_PROVIDERS),
  amount: z.number(),
  bonus: z.number(),
  status: z.enum(PAYMENT_STATUSES),
  provider_payment_id: z.string().nullable(),
  provider_status: z.string().nullable(),
  created_at: z.number(),
  paid_at: z.number().nullable(),
  canceled_at: z.number().nullable(),
  refunded_at: z.number().nullable(),
  /** Who asked for the refund (the last attempt). */
  refund_requested_by: z.string().nullable(),
  /** Why the last refund attempt did not finish, when it did not. */
  refund_error: z.string().nullable(),
  /** Roubles returned to the card so far (partial refunds add up; in flight included). */
  refunded_amount: z.number(),
  /** The provider's status word in Russian (e.g. «Оплачен», «Частично возвращён»), null when unknown. */
  provider_status_text: z.string().nullable(),
});
export type AdminPayment = z.infer<typeof AdminPayment>;

/**
 * Sums of the filtered payments (all pages): `paid` — everything that was paid (including what was
 * later refunded), `refunded` — refunded or being refunded, `net` = paid − refunded; roubles.
 */
export const AdminPaymentTotals = z.object({
  count: z.number(),
  paid: z.number(),
  paid_count: z.number(),
  refunded: z.number(),
  refunded_count: z.number(),
  net: z.number(),
  bonus: z.number(),
});
export type AdminPaymentTotals = z.infer<typeof AdminPaymentTotals>;

export const AdminPaymentPage = z.object({
  payments: z.array(AdminPayment),
  page: z.number(),
  per_page: z.number(),
  total: z.number(),
  totals: AdminPaymentTotals,
});
export type AdminPaymentPage = z.infer<typeof AdminPaymentPage>;

export const PAYMENT_EVENT_KIND_TEXT: Record<string, string> = {
  notification: 'Уведомление',
  create: 'Создание у провайдера',
  fetch: 'Ответ провайдера',
  refund: 'Возврат',
  error: 'Ошибка',
  expire: 'Истёк срок',
  receipt: 'Чек',
};

export const PaymentEventView = z.object({
  id: z.number(),
  /** notification | create | fetch | refund | error | expire */
  kind: z.string(),
  ip: z.string().nullable(),
  outcome: z.string(),
  /** The notification or the provider's answer, as JSON text. */
  body: z.string().nullable(),
  created_at: z.number(),
});
export type PaymentEventView = z.infer<typeof PaymentEventView>;

export const AdminPaymentDetail = z.object({
  payment: AdminPayment,
  events: z.array(PaymentEventView),
  /** The player's balance now, roubles. */
  balance: z.number(),
  /** Roubles a refund of everything left takes from the balance: what goes back to the card and its share of the bonus. */
  refund_amount: z.number(),
  /** Roubles that can still go back to the card (the payment minus what was refunded). */
  refund_left: z.number(),
  /** Roubles of the bonus not yet taken back. */
  bonus_left: z.number(),
  /** The most that can go back to the card now: what is left, as far as the balance covers it with its bonus share. */
  refund_max: z.number(),
  /** Null when «Вернуть» may be pressed; else why not. */
  refund_block: z.string().nullable(),
});
export type AdminPaymentDetail = z.infer<typeof AdminPaymentDetail>;

export const RefundResponse = z.object({ payment: AdminPayment, message: z.string() });
export type RefundResponse = z.infer<typeof RefundResponse>;

/** The owner's payment settings as the admin screen edits them. */
export const AdminPaymentSettings = z.object({ value: PaymentSettingsBody, defaults: PaymentSettingsBody });
export type AdminPaymentSettings = z.infer<typeof AdminPaymentSettings>;
