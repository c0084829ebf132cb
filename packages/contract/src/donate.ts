import { z } from 'zod';
import { commandProblem } from './commands.ts';
import { roundsToZeroKopecks, withLabels, ZERO_KOPECKS_TEXT } from './common.ts';
import { OptionalImageUrl } from './news.ts';

// Schemas of the donate feature, shared by the server and the web app.

export const DEFAULT_KIT_PERIOD_DAYS = 7;
export const MAX_KITS = 30;
export const MAX_FEATURES = 30;

const text = (what: string, max: number) =>
  z
    .string({ error: `${what}: ожидалась строка` })
    .trim()
    .max(max, `${what}: не длиннее ${max} символов`);
const required = (what: string, max: number) => text(what, max).min(1, `${what}: заполните поле`);

/** Placeholders of a tier's grant and revoke commands. */
export const PRIVILEGE_COMMAND_PLACEHOLDERS = ['player', 'uuid', 'tier', 'days', 'expires'] as const;
/** Placeholders of a kit's give commands. */
export const KIT_COMMAND_PLACEHOLDERS = ['player', 'uuid', 'tier'] as const;
export const MAX_TIER_COMMANDS = 20;
/** Months a tier may be bought for unless the owner says otherwise. */
export const DEFAULT_PERIOD_MONTHS = [1, 3, 6, 12] as const;
/** A month of a privilege, in days. */
export const PRIVILEGE_MONTH_DAYS = 30;

/** A list of console commands; each checked as it will be when sent. */
const commandList = (what: string, placeholders: readonly string[]) =>
  z
    .array(z.string({ error: `${what}: ожидалась строка` }).trim(), { error: `${what}: ожидался список команд` })
    .max(MAX_TIER_COMMANDS, `${what}: не больше ${MAX_TIER_COMMANDS} команд`)
    .default([])
    .superRefine((list, ctx) => {
      list.forEach((c, i) => {
        const problem = commandProblem(c, { placeholders, label: `${what}, команда ${i + 1}` });
        if (problem) ctx.addIssue({ code: 'custom', message: problem, path: [i] });
      });
    });

export const TierPeriod = withLabels(
  z.strictObject({
    months: z
      .number({ error: 'Срок: ожидалось число месяцев' })
      .int('Срок — целое число месяцев')
      .min(1, 'Срок — не меньше 1 месяца')
      .max(36, 'Срок — не больше 36 месяцев'),
    discount: z
      .number({ error: 'Скидка: ожидалось число процентов' })
      .int('Скидка — целое число процентов')
      .min(0, 'Скидка не может быть отрицательной')
      .max(90, 'Скидка — не больше 90 %')
      .default(0),
  }),
  { months: 'Месяцев', discount: 'Скидка, %' },
);
export type TierPeriod = z.output<typeof TierPeriod>;
export const DEFAULT_PERIODS: TierPeriod[] = DEFAULT_PERIOD_MONTHS.map((months) => ({ months, discount: 0 }));

/** Tiers are sold only in roubles; others are shown but cannot be bought. */
export function isRoubles(currency: string): boolean {
  return ['₽', 'р', 'р.', 'руб', 'руб.', 'рубль', 'рублей', 'rub', 'rur'].includes(currency.trim().toLowerCase());
}

export { periodTotalKopecks, tierAmountNow } from './tier-prices.ts';

export const Kit = withLabels(
  z.strictObject({
    name: required('Название кита', 100),
    description: text('Описание кита', 1000).default(''),
    command: text('Команда кита', 300).default(''),
    period: z
      .number({ error: 'Период кита должен быть числом дней' })
      .int('Период кита — целое число дней')
      .min(1, 'Период кита — не меньше 1 дня')
      .max(3650, 'Период кита — не больше 3650 дней')
      .default(DEFAULT_KIT_PERIOD_DAYS),
    kitImg: OptionalImageUrl,
    /** The kit's id when it is kept (its claims stay with it); a kit without one is new. */
    id: z.number({ error: 'Некорректный идентификатор кита' }).int().positive().optional(),
    /** Console commands a claim runs («give {player} minecraft:bread 16»). */
    give_commands: commandList('Команды выдачи кита', KIT_COMMAND_PLACEHOLDERS),
  }),
  {
    name: 'Название',
    description: 'Описание',
    command: 'Команда',
    period: 'Период (дней)',
    kitImg: 'Картинка',
    give_commands: 'Команды выдачи',
  },
);
export type KitInput = z.input<typeof Kit>;

export const Feature = withLabels(
  z.strictObject({
    title: required('Название привилегии', 200),
    value: text('Значение привилегии', 100).nullable().optional(),
    description: text('Описание привилегии', 1000).nullable().optional(),
    check: z.boolean({ error: 'Поле check должно быть логическим' }).default(false),
  }),
  { title: 'Название', value: 'Значение', description: 'Описание', check: 'Отметка' },
);
export type FeatureInput = z.input<typeof Feature>;

export const DonateBody = withLabels(
  z.strictObject({
    title: required('Название доната', 100),
    content: required('Описание доната', 5000),
    amount: z
      .number({ error: 'Цена должна быть числом' })
      .finite('Цена должна быть числом')
      .min(0, 'Цена не может быть отрицательной')
      .max(1_000_000, 'Слишком большая цена')
      .refine((v) => !roundsToZeroKopecks(v), ZERO_KOPECKS_TEXT),
    currency: required('Валюта', 16),
    image_url: OptionalImageUrl,
    is_best: z.boolean({ error: 'Поле is_best должно быть логическим' }).default(false),
    /** Place among the tiers, smallest first; a new tier without it goes last. */
    position: z
      .number({ error: 'Порядок должен быть числом' })
      .int('Порядок — целое число')
      .min(0, 'Порядок не может быть отрицательным')
      .max(100_000, 'Слишком большой порядок')
      .optional(),
    kits: z.array(Kit, { error: 'Киты: ожидался список' }).max(MAX_KITS, `Не больше ${MAX_KITS} китов`).default([]),
    features: z
      .array(Feature, { error: 'Привилегии: ожидался список' })
      .max(MAX_FEATURES, `Не больше ${MAX_FEATURES} привилегий`)
      .default([]),
    /** Game servers the tier applies to; empty: every server with RCON. */
    server_ids: z
      .array(
        z
          .number({ error: 'Сервер: ожидался номер' })
          .int('Сервер: ожидался номер')
          .positive('Сервер: ожидался номер')
          .max(2_147_483_647, 'Сервер: ожидался номер'),
        { error: 'Серверы: ожидался список' },
      )
      .max(100)
      .default([]),
    grant_commands: commandList('Команды выдачи', PRIVILEGE_COMMAND_PLACEHOLDERS),
    revoke_commands: commandList('Команды снятия', PRIVILEGE_COMMAND_PLACEHOLDERS),
    periods: z
      .array(TierPeriod, { error: 'Сроки: ожидался список' })
      .min(1, 'Укажите хотя бы один срок покупки')
      .max(12, 'Не больше 12 сроков')
      .default(DEFAULT_PERIODS)
      .refine((list) => new Set(list.map((p) => p.months)).size === list.length, 'Сроки не должны повторяться'),
    /** Sale price per month until sale_ends_at (null end: until removed); null: no sale. */
    sale_amount: z
      .number({ error: 'Цена по акции должна быть числом' })
      .finite('Цена по акции должна быть числом')
      .min(0, 'Цена по акции не может быть отрицательной')
      .max(1_000_000, 'Слишком большая цена')
      .refine((v) => !roundsToZeroKopecks(v), ZERO_KOPECKS_TEXT)
      .nullable()
      .default(null),
    sale_ends_at: z.number({ error: 'Конец акции: дата' }).int('Конец акции: дата').min(0).max(8_640_000_000_000).nullable().default(null),
    /** Offered by subscription: charged from a saved card every `subscription_months` months. */
    subscription: z.boolean({ error: 'Поле subscription должно быть логическим' }).default(false),
    subscription_months: z
      .number({ error: 'Срок подписки: число месяцев' })
      .int('Срок подписки: целое число месяцев')
      .min(1, 'Срок подписки — от 1 до 12 месяцев')
      .max(12, 'Срок подписки — от 1 до 12 месяцев')
      .default(1),
  }),
  {
    title: 'Название',
    content: 'Описание',
    amount: 'Цена',
    currency: 'Валюта',
    image_url: 'Картинка',
    is_best: 'Лучший выбор',
    position: 'Порядок',
    kits: 'Киты',
    features: 'Привилегии',
    server_ids: 'Серверы',
    grant_commands: 'Команды выдачи',
    revoke_commands: 'Команды снятия',
    periods: 'Сроки покупки',
    sale_amount: 'Цена по акции',
    sale_ends_at: 'Конец акции',
    subscription: 'Подписка',
    subscription_months: 'Срок подписки',
  },
);
export type DonateBody = z.input<typeof DonateBody>;
export type DonateBodyParsed = z.output<typeof DonateBody>;

export const DonateKit = z.object({
  /** Unique among all tiers' kits; claims name it. */
  id: z.number(),
  name: z.string(),
  description: z.string(),
  command: z.string(),
  period: z.number(),
  kitImg: z.string().nullable(),
  give_commands: z.array(z.string()),
});
export type DonateKit = z.infer<typeof DonateKit>;

export const DonateFeature = z.object({
  title: z.string(),
  value: z.string().nullable(),
  description: z.string().nullable(),
  check: z.boolean(),
});
export type DonateFeature = z.infer<typeof DonateFeature>;

export const DonateTier = z.object({
  id: z.number(),
  title: z.string(),
  content: z.string(),
  /** Price per month in the tier's currency. */
  amount: z.number(),
  currency: z.string(),
  image_url: z.string().nullable(),
  is_best: z.boolean(),
  position: z.number(),
  kits: z.array(DonateKit),
  features: z.array(DonateFeature),
  server_ids: z.array(z.number()),
  grant_commands: z.array(z.string()),
  revoke_commands: z.array(z.string()),
  /** Months it may be bought for, each with its discount and total in the tier's currency. */
  periods: z.array(z.object({ months: z.number(), discount: z.number(), total: z.number() })),
  /** Sold on the site (priced in roubles). */
  sellable: z.boolean(),
  /** The sale price per month and its end (epoch ms) as set; the sale runs while it is below amount and the end is ahead (see tierSaleAmount). */
  sale_amount: z.number().nullable(),
  sale_ends_at: z.number().nullable(),
  /** Offered by subscription (charged every subscription_months months from a saved card). */
  subscription: z.boolean(),
  subscription_months: z.number(),
});
export type DonateTier = z.infer<typeof DonateTier>;

export const DonateListResponse = z.array(DonateTier);

/** GET /api/donate/goal: the month's donation goal, what came in, the latest purchases and the month's top donors. */
export const DonationGoal = z.object({
  /** Roubles; 0 when the owner set no goal. */
  goal: z.number(),
  /** Roubles paid this month (Moscow time) by top-ups and subscriptions, refunds taken off. */
  collected: z.number(),
  /** collected of goal, 0–100 (whole per cent; 0 without a goal). */
  percent: z.number(),
  /** «2026-12». */
  month: z.string(),
  /** Newest first; amount only when the owner shows amounts. Players who hid their profile are left out. */
  latest: z.array(z.object({ nickname: z.string(), item: z.string(), amount: z.number().nullable(), at: z.number() })),
  /** The month's biggest payers; amounts as the owner chooses. */
  top: z.array(z.object({ nickname: z.string(), amount: z.number().nullable() })),
});
export type DonationGoal = z.infer<typeof DonationGoal>;
