import { z } from 'zod';
import { withLabels } from './common.ts';
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
  }),
  { name: 'Название', description: 'Описание', command: 'Команда', period: 'Период (дней)', kitImg: 'Картинка' },
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
    amount: z.number({ error: 'Цена должна быть числом' }).finite('Цена должна быть числом').min(0, 'Цена не может быть отрицательной').max(1_000_000, 'Слишком большая цена'),
    currency: required('Валюта', 16),
    image_url: OptionalImageUrl,
    is_best: z.boolean({ error: 'Поле is_best должно быть логическим' }).default(false),
    /** Place among the tiers, smallest first; a new tier without it goes last. */
    position: z.number({ error: 'Порядок должен быть числом' }).int('Порядок — целое число').min(0, 'Порядок не может быть отрицательным').max(100_000, 'Слишком большой порядок').optional(),
    kits: z.array(Kit, { error: 'Киты: ожидался список' }).max(MAX_KITS, `Не больше ${MAX_KITS} китов`).default([]),
    features: z.array(Feature, { error: 'Привилегии: ожидался список' }).max(MAX_FEATURES, `Не больше ${MAX_FEATURES} привилегий`).default([]),
  }),
  { title: 'Название', content: 'Описание', amount: 'Цена', currency: 'Валюта', image_url: 'Картинка', is_best: 'Лучший выбор', position: 'Порядок', kits: 'Киты', features: 'Привилегии' },
);
export type DonateBody = z.input<typeof DonateBody>;
export type DonateBodyParsed = z.output<typeof DonateBody>;

export const DonateKit = z.object({
  name: z.string(),
  description: z.string(),
  command: z.string(),
  period: z.number(),
  kitImg: z.string().nullable(),
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
});
export type DonateTier = z.infer<typeof DonateTier>;

export const DonateListResponse = z.array(DonateTier);
