import { z } from 'zod';
import { roundsToZeroKopecks, withLabels, ZERO_KOPECKS_TEXT } from './common.ts';

// The storefront: promo codes, gifts, sales, per-player limits, the cart.

export const PROMO_KINDS = ['percent', 'fixed', 'topup_bonus'] as const;
export type PromoKind = (typeof PROMO_KINDS)[number];
export const PROMO_KIND_TEXT: Record<PromoKind, string> = {
  percent: 'Скидка в процентах',
  fixed: 'Скидка в рублях',
  topup_bonus: 'Бонус к пополнению, %',
};
export const PROMO_SCOPES = ['shop', 'donate', 'all'] as const;
export type PromoScope = (typeof PROMO_SCOPES)[number];
export const PROMO_SCOPE_TEXT: Record<PromoScope, string> = { shop: 'Магазин', donate: 'Привилегии', all: 'Всё' };

export const LIMIT_PERIODS = ['day', 'week', 'ever'] as const;
export type LimitPeriod = (typeof LIMIT_PERIODS)[number];
export const LIMIT_PERIOD_TEXT: Record<LimitPeriod, string> = { day: 'в сутки', week: 'в неделю', ever: 'всего' };

/** A promo code as typed: letters, digits, `-` and `_`; compared without regard to case. */
export const PromoCodeText = z
  .string({ error: 'Введите промокод' })
  .trim()
  .min(1, 'Введите промокод')
  .max(32, 'Промокод: не длиннее 32 символов')
  .regex(/^[0-9A-Za-zА-Яа-яЁё_-]+$/, 'Промокод: буквы, цифры, - и _');

/** The game name of the player a purchase is a gift to. */
export const GiftTo = z
  .string({ error: 'Укажите ник получателя' })
  .trim()
  .min(1, 'Укажите ник получателя')
  .max(32, 'Ник получателя: не длиннее 32 символов');

/** An empty field of a form is no value. */
const blank = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/** The optional fields every purchase from the balance takes (the shop, the cart, a tier); an empty text is none. */
export const purchaseExtras = {
  promo_code: z.preprocess(blank, PromoCodeText.optional()),
  gift_to: z.preprocess(blank, GiftTo.optional()),
};
export const OptionalPromoCode = purchaseExtras.promo_code;

const Rub = (label: string) =>
  z
    .number({ error: `${label}: число` })
    .finite(`${label}: число`)
    .min(0, `${label}: не меньше 0`)
    .max(10_000_000, `${label}: слишком много`)
    .refine((v) => !roundsToZeroKopecks(v), ZERO_KOPECKS_TEXT);

const Time = (label: string) =>
  z
    .number({ error: `${label}: дата` })
    .int(`${label}: дата`)
    .min(0, `${label}: дата`)
    .max(8_640_000_000_000, `${label}: дата`);

export const PromoCodeBody = withLabels(
  z
    .strictObject({
      code: PromoCodeText,
      kind: z.enum(PROMO_KINDS, { error: 'Выберите вид промокода' }),
      /** Percent (1…100) for 'percent' and 'topup_bonus'; roubles for 'fixed'. */
      value: z
        .number({ error: 'Значение: число' })
        .finite('Значение: число')
        .positive('Значение должно быть больше нуля')
        .max(1_000_000, 'Значение: слишком много'),
      applies_to: z.enum(PROMO_SCOPES, { error: 'Выберите, к чему применяется код' }).default('all'),
      item_ids: z.array(z.number().int().positive().max(2_147_483_647), { error: 'Товары: список номеров' }).max(200).nullable().optional(),
      category: z.string().trim().min(1).max(32).nullable().optional(),
      max_uses: z
        .number({ error: 'Всего использований: целое число' })
        .int('Всего использований: целое число')
        .min(1, 'Всего использований: не меньше 1')
        .max(1_000_000_000)
        .nullable()
        .default(null),
      per_player: z
        .number({ error: 'На игрока: целое число' })
        .int('На игрока: целое число')
        .min(1, 'На игрока: не меньше 1')
        .max(1_000_000)
        .default(1),
      min_total: Rub('Минимальная сумма').nullable().optional(),
      starts_at: Time('Начало').nullable().optional(),
      ends_at: Time('Конец').nullable().optional(),
    })
    .superRefine((b, ctx) => {
      if ((b.kind === 'percent' || b.kind === 'topup_bonus') && (b.value > 100 || !Number.isInteger(b.value)))
        ctx.addIssue({ code: 'custom', path: ['value'], message: 'Процент: целое число от 1 до 100' });
      if (b.kind === 'fixed' && roundsToZeroKopecks(b.value)) ctx.addIssue({ code: 'custom', path: ['value'], message: ZERO_KOPECKS_TEXT });
      else if (b.kind === 'fixed' && Math.abs(b.value * 100 - Math.round(b.value * 100)) > 1e-6)
        ctx.addIssue({ code: 'custom', path: ['value'], message: 'Сумма: не больше двух знаков после запятой' });
      if (b.starts_at != null && b.ends_at != null && b.ends_at <= b.starts_at)
        ctx.addIssue({ code: 'custom', path: ['ends_at'], message: 'Конец должен быть позже начала' });
    }),
  {
    code: 'Код',
    kind: 'Вид',
    value: 'Значение',
    applies_to: 'Применяется к',
    item_ids: 'Товары',
    category: 'Категория',
    max_uses: 'Всего использований',
    per_player: 'На игрока',
    min_total: 'Минимальная сумма',
    starts_at: 'Начало',
    ends_at: 'Конец',
  },
);
export type PromoCodeBody = z.input<typeof PromoCodeBody>;
export type PromoCodeBodyParsed = z.output<typeof PromoCodeBody>;

export const PromoCodeAdmin = z.object({
  id: z.number(),
  code: z.string(),
  kind: z.enum(PROMO_KINDS),
  value: z.number(),
  applies_to: z.enum(PROMO_SCOPES),
  item_ids: z.array(z.number()).nullable(),
  category: z.string().nullable(),
  max_uses: z.number().nullable(),
  per_player: z.number(),
  min_total: z.number().nullable(),
  starts_at: z.number().nullable(),
  ends_at: z.number().nullable(),
  disabled: z.boolean(),
  uses: z.number(),
  /** Roubles paid in purchases with the code (or credited in top-ups with it). */
  revenue: z.number(),
  /** Roubles taken off (or added as a bonus). */
  discount_total: z.number(),
  created_at: z.number(),
});
export type PromoCodeAdmin = z.infer<typeof PromoCodeAdmin>;

export const PromoDisableBody = z.strictObject({ disabled: z.boolean({ error: 'disabled: да или нет' }) });

/** GET /api/shop/promo/{code}: what the code gives. */
export const PromoPreview = z.object({
  code: z.string(),
  kind: z.enum(PROMO_KINDS),
  value: z.number(),
  applies_to: z.enum(PROMO_SCOPES),
  item_ids: z.array(z.number()).nullable(),
  category: z.string().nullable(),
  min_total: z.number().nullable(),
  ends_at: z.number().nullable(),
  /** «Скидка 10 % на товары магазина» */
  text: z.string(),
  /**
   * With `lines`: the cart's price now (sales applied), what the code takes off it and what would
   * be debited, in roubles — counted as the purchase counts them.
   */
  price: z.number().optional(),
  discount: z.number().optional(),
  total: z.number().optional(),
});
export type PromoPreview = z.infer<typeof PromoPreview>;
// PostgreSQL refuses NUL in text: such a code is bad input, not a lookup.
export const PromoParams = z.strictObject({
  code: z
    .string()
    .max(64, 'Промокод: не длиннее 64 символов')
    .refine((v) => !v.includes('\u0000'), 'Промокод: недопустимые символы'),
});

export const MAX_CART_LINES = 50;

export const CheckoutLine = z.strictObject({
  shop_id: z.number({ error: 'Товар не найден' }).int('Товар не найден').positive('Товар не найден').max(2_147_483_647, 'Товар не найден'),
  quantity: z
    .number({ error: 'Введите корректное количество' })
    .int('Введите корректное количество')
    .min(1, 'Введите корректное количество')
    .max(10_000, 'Введите корректное количество'),
});

/**
 * The cart a code is previewed on (GET /api/shop/promo/{code}?lines=12x2,13x1): item ids and
 * quantities, as the purchase would be made.
 */
export const PromoPreviewQuery = withLabels(
  z.strictObject({
    lines: z
      .string({ error: 'Корзина: ожидались строки «товар x количество» через запятую' })
      .max(1000, 'Корзина: слишком много строк')
      .regex(/^\d{1,10}x\d{1,6}(,\d{1,10}x\d{1,6})*$/, 'Корзина: ожидались строки «товар x количество» через запятую')
      .transform((text) =>
        text.split(',').map((pair) => {
          const [shop_id, quantity] = pair.split('x').map(Number);
          return { shop_id, quantity };
        }),
      )
      .pipe(z.array(CheckoutLine).max(MAX_CART_LINES, 'Корзина: слишком много строк'))
      .optional(),
  }),
  { lines: 'Корзина' },
);
export type PromoPreviewQuery = z.infer<typeof PromoPreviewQuery>;

export const CheckoutBody = withLabels(
  z.strictObject({
    lines: z
      .array(CheckoutLine, { error: 'Корзина: список товаров' })
      .min(1, 'Корзина пуста')
      .max(MAX_CART_LINES, `В корзине не больше ${MAX_CART_LINES} товаров`)
      .refine((l) => new Set(l.map((x) => x.shop_id)).size === l.length, 'Каждый товар — одной строкой'),
    ...purchaseExtras,
    /** The total (roubles) the player saw: if the purchase would now cost more (a sale ended), it is refused (409 sale_changed). */
    expected_total: z.number({ error: 'expected_total: число' }).finite().min(0).max(1_000_000_000).optional(),
  }),
  { lines: 'Корзина', promo_code: 'Промокод', gift_to: 'Получатель', expected_total: 'Сумма' },
);
export type CheckoutBody = z.infer<typeof CheckoutBody>;

export const CheckoutResponse = z.object({
  new_balance: z.number(),
  /** Roubles debited (after the discount). */
  total: z.number(),
  discount: z.number(),
  order_ids: z.array(z.number()),
  message: z.string(),
});
export type CheckoutResponse = z.infer<typeof CheckoutResponse>;

export const ShopListQuery = z.object({
  category: z.string().max(32).optional(),
  q: z.string().max(100).optional(),
});
