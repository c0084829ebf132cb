import { z } from 'zod';
import { withLabels } from './common.ts';

// Balance top-up through payment providers (YooKassa, T-Bank). Amounts on the wire are roubles.

export const PAYMENT_PROVIDERS = ['yookassa', 'tbank'] as const;
export type PaymentProvider = (typeof PAYMENT_PROVIDERS)[number];

export const PAYMENT_PROVIDER_TEXT: Record<PaymentProvider, string> = {
  yookassa: 'ЮKassa',
  tbank: 'Т-Банк',
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
  .refine((v) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6, PAYMENT_TEXTS.amountInvalid);

export const CreatePaymentBody = withLabels(
  z.strictObject({
    amount: PaymentAmount,
    provider: z.enum(PAYMENT_PROVIDERS, { error: PAYMENT_TEXTS.providerOff }),
  }),
  { amount: 'Сумма', provider: 'Способ оплаты' },
);
export type CreatePaymentBody = z.infer<typeof CreatePaymentBody>;

export const PaymentCreated = z.object({ id: z.string(), status: z.enum(PAYMENT_STATUSES), confirmation_url: z.string() });
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
  providers: z.array(z.object({ id: z.enum(PAYMENT_PROVIDERS), name: z.string() })),
  min: z.number(),
  max: z.number(),
  presets: z.array(z.number()),
  bonus_rules: z.array(z.object({ from: z.number(), percent: z.number() })),
});
export type PaymentOptions = z.infer<typeof PaymentOptions>;

/** An owner's bonus rule: from this many roubles paid, credit this percent more (a separate ledger row). */
export const BonusRule = withLabels(
  z.strictObject({
    from: z.number({ error: 'Введите сумму' }).finite('Введите сумму').positive('Сумма должна быть больше нуля').max(10_000_000, 'Слишком большая сумма'),
    percent: z.number({ error: 'Введите процент' }).finite('Введите процент').positive('Процент должен быть больше нуля').max(100, 'Не больше 100 %'),
  }),
  { from: 'От суммы', percent: 'Бонус, %' },
);
export type BonusRule = z.infer<typeof BonusRule>;

/** YooKassa receipt VAT codes (vat_code): 1 без НДС, 2 0 %, 3 10 %, 4 20 %, 5 10/110, 6 20/120. */
export const VAT_CODE_TEXT: Record<number, string> = { 1: 'Без НДС', 2: 'НДС 0 %', 3: 'НДС 10 %', 4: 'НДС 20 %', 5: 'НДС 10/110', 6: 'НДС 20/120' };

export const PaymentSettingsBody = withLabels(
  z.strictObject({
    vat_code: z.number({ error: 'Выберите ставку НДС' }).int('Выберите ставку НДС').min(1, 'Выберите ставку НДС').max(6, 'Выберите ставку НДС'),
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
