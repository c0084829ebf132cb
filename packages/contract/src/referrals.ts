import { z } from 'zod';
import { Roubles, withLabels } from './common.ts';

/** Why the bonus may not exceed the top-up that earns it: beside the bonus field, in the admin form and the API's answer. */
export const REFERRAL_BONUS_TOO_BIG =
  'Бонус не может быть больше суммы «Первое пополнение от»: иначе приглашать самого себя выгодно. Уменьшите бонус или поднимите сумму первого пополнения.';

/** The owner's referral rules (Админ-панель → Голосование → Рефералы). */
export const ReferralSettingsBody = withLabels(
  z
    .strictObject({
      /** Percent of each top-up of an invited player paid to the inviter; 0 — none. */
      share_percent: z.number({ error: 'Доля: число процентов' }).min(0, 'Доля: от 0 %').max(50, 'Доля: до 50 %'),
      /** For how many days after the invited player registered the share is paid. */
      share_days: z
        .number({ error: 'Срок: число дней' })
        .int('Срок: целое число дней')
        .min(0, 'Срок: от 0 дней')
        .max(3650, 'Срок: до 3650 дней'),
      /** Roubles paid once after the invited player's first top-up of at least bonus_min_topup; 0 — none. Never above bonus_min_topup. */
      bonus_amount: Roubles,
      bonus_min_topup: Roubles,
      /**
       * Days a reward waits before it reaches the inviter's balance; a refund of the top-up in the
       * meantime cancels it. 0 — credited at once.
       */
      hold_days: z
        .number({ error: 'Выдержка: число дней' })
        .int('Выдержка: целое число дней')
        .min(0, 'Выдержка: от 0 дней')
        .max(365, 'Выдержка: до 365 дней'),
    })
    // A bonus above the top-up that earns it pays for inviting oneself: refused beside the bonus.
    .superRefine((s, ctx) => {
      if (Math.round(s.bonus_amount * 100) > Math.round(s.bonus_min_topup * 100))
        ctx.addIssue({ code: 'custom', path: ['bonus_amount'], message: REFERRAL_BONUS_TOO_BIG });
    }),
  {
    share_percent: 'Доля от пополнений, %',
    share_days: 'Сколько дней платить долю',
    bonus_amount: 'Бонус за первое пополнение',
    bonus_min_topup: 'Первое пополнение от',
    hold_days: 'Выдержка награды, дней',
  },
);
export type ReferralSettingsBody = z.infer<typeof ReferralSettingsBody>;

export const REFERRAL_REWARD_KINDS = ['share', 'bonus'] as const;
export const REFERRAL_REWARD_KIND_TEXT: Record<(typeof REFERRAL_REWARD_KINDS)[number], string> = {
  share: 'доля',
  bonus: 'бонус',
};

export const ReferralResponse = z.object({
  code: z.string(),
  /** The link to share: /r/{code} on this site. */
  link: z.string(),
  invited: z.array(
    z.object({
      username: z.string(),
      /** ISO 8601 */
      joined_at: z.string(),
      /** Roubles earned from this player (credited, after refunds). */
      earned: z.number(),
    }),
  ),
  /** Roubles earned in all (credited, after refunds). */
  earned: z.number(),
  /** Rewards waiting out the owner's hold, soonest first: they reach the balance on release_at unless the top-up is refunded. */
  held: z.array(
    z.object({
      username: z.string(),
      kind: z.enum(REFERRAL_REWARD_KINDS),
      /** Roubles. */
      amount: z.number(),
      /** ISO 8601 */
      release_at: z.string(),
    }),
  ),
  rules: ReferralSettingsBody,
});
export type ReferralResponse = z.infer<typeof ReferralResponse>;

/**
 * What became of a reward: held (waiting out the hold), paid (on the inviter's balance), canceled
 * (the top-up was refunded during the hold, or the inviter's account is gone), refused (the
 * top-up was paid from the inviter's own device or address).
 */
export const REFERRAL_REWARD_STATUSES = ['held', 'paid', 'canceled', 'refused'] as const;
export type ReferralRewardStatus = (typeof REFERRAL_REWARD_STATUSES)[number];
export const REFERRAL_REWARD_STATUS_TEXT: Record<ReferralRewardStatus, string> = {
  held: 'Ждёт',
  paid: 'Зачислена',
  canceled: 'Отменена',
  refused: 'Не выплачена',
};

/** Why a reward was refused or canceled, for the owner. */
export const REFERRAL_REWARD_REASONS = ['own_device', 'own_address', 'refunded', 'inviter_deleted'] as const;
export type ReferralRewardReason = (typeof REFERRAL_REWARD_REASONS)[number];
export const REFERRAL_REWARD_REASON_TEXT: Record<ReferralRewardReason, string> = {
  own_device: 'оплачено из браузера, в котором входил пригласивший',
  own_address: 'оплачено с адреса, с которого пригласивший входил или регистрировался за последние 30 дней',
  refunded: 'платёж возвращён до зачисления награды',
  inviter_deleted: 'аккаунт пригласившего удалён',
};

/** The latest rewards for the owner (Админ-панель → Голосование → Рефералы). */
export const AdminReferralRewards = z.object({
  rewards: z.array(
    z.object({
      id: z.number(),
      inviter: z.string(),
      invited: z.string(),
      kind: z.enum(REFERRAL_REWARD_KINDS),
      /** Roubles: what was (or would have been) paid. */
      amount: z.number(),
      /** Roubles taken back by refunds after it was paid. */
      reversed: z.number(),
      status: z.enum(REFERRAL_REWARD_STATUSES),
      reason: z.enum(REFERRAL_REWARD_REASONS).nullable(),
      /** Epoch ms */
      created_at: z.number(),
      /** Epoch ms: when a held reward is credited; null when it was not held. */
      release_at: z.number().nullable(),
      /** Epoch ms: when it reached the balance; null when it did not. */
      paid_at: z.number().nullable(),
    }),
  ),
});
export type AdminReferralRewards = z.infer<typeof AdminReferralRewards>;
