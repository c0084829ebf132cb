import { z } from 'zod';
import { withLabels } from './common.ts';
import { Consents } from './fiscal.ts';

/** Providers that charge a saved card without the player (recurring payments). */
export const SUBSCRIPTION_PROVIDERS = ['yookassa', 'tbank'] as const;
export type SubscriptionProvider = (typeof SUBSCRIPTION_PROVIDERS)[number];

export const SUBSCRIPTION_STATES = ['pending', 'active', 'past_due', 'canceled', 'ended'] as const;
export type SubscriptionState = (typeof SUBSCRIPTION_STATES)[number];

export const SUBSCRIPTION_STATE_TEXT: Record<SubscriptionState, string> = {
  pending: 'Ждёт первой оплаты',
  active: 'Действует',
  past_due: 'Не удалось списать оплату',
  canceled: 'Отменена',
  ended: 'Закончилась',
};

export const SUBSCRIPTION_TEXTS = {
  providerOff: 'Выберите способ оплаты, который поддерживает подписку: ЮKassa или Т-Банк',
  notOffered: 'Этот донат не продаётся по подписке',
  tierNotFound: 'Донат не найден',
  already: 'Вы уже подписаны на этот донат',
  notFound: 'Подписка не найдена',
  canceled: 'Подписка отменена: больше списаний не будет, оплаченный срок остаётся',
  alreadyCanceled: 'Подписка уже отменена',
} as const;

export const SubscribeBody = withLabels(
  z.strictObject({
    provider: z.enum(SUBSCRIPTION_PROVIDERS, { error: SUBSCRIPTION_TEXTS.providerOff }),
    /** Ticked before paying, as for a top-up (GET /api/legal/consents says which are asked). */
    consents: Consents,
  }),
  { provider: 'Способ оплаты', consents: 'Согласия' },
);
export type SubscribeBody = z.infer<typeof SubscribeBody>;

export const SubscriptionCreated = z.object({
  id: z.string(),
  payment_id: z.string(),
  state: z.enum(SUBSCRIPTION_STATES),
  confirmation_url: z.string().nullable(),
  /** Roubles charged each period. */
  amount: z.number(),
  months: z.number(),
});
export type SubscriptionCreated = z.infer<typeof SubscriptionCreated>;

export const UserSubscription = z.object({
  id: z.string(),
  tier_id: z.number(),
  title: z.string(),
  provider: z.enum(SUBSCRIPTION_PROVIDERS),
  state: z.enum(SUBSCRIPTION_STATES),
  state_text: z.string(),
  /** Roubles per period, and the period in months. */
  amount: z.number(),
  months: z.number(),
  /** ISO time of the next charge; null when none is coming (pending, canceled, ended). */
  next_charge_at: z.string().nullable(),
  /** The paid period's end (ISO); null before the first payment. */
  paid_until: z.string().nullable(),
  /** The saved card's last digits, e.g. «4477»; null when unknown. */
  card: z.string().nullable(),
  created_at: z.string(),
  canceled_at: z.string().nullable(),
});
export type UserSubscription = z.infer<typeof UserSubscription>;

export const AdminSubscriptionsResponse = z.object({
  items: z.array(
    UserSubscription.extend({
      user_id: z.number(),
      username: z.string(),
      failures: z.number(),
    }),
  ),
  /** Per month (YYYY-MM, Moscow time): roubles charged, new subscriptions, those that stopped (canceled or ended). */
  months: z.array(z.object({ month: z.string(), revenue: z.number(), started: z.number(), churned: z.number(), churn: z.number() })),
  active: z.number(),
});
export type AdminSubscriptionsResponse = z.infer<typeof AdminSubscriptionsResponse>;
