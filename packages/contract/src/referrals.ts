import { z } from 'zod';
import { Roubles, withLabels } from './common.ts';

/** The owner's referral rules (Админ-панель → Голосование → Рефералы). */
export const ReferralSettingsBody = withLabels(
  z.strictObject({
    /** Percent of each top-up of an invited player paid to the inviter; 0 — none. */
    share_percent: z.number({ error: 'Доля: число процентов' }).min(0, 'Доля: от 0 %').max(50, 'Доля: до 50 %'),
    /** For how many days after the invited player registered the share is paid. */
    share_days: z
      .number({ error: 'Срок: число дней' })
      .int('Срок: целое число дней')
      .min(0, 'Срок: от 0 дней')
      .max(3650, 'Срок: до 3650 дней'),
    /** Roubles paid once after the invited player's first top-up of at least bonus_min_topup; 0 — none. */
    bonus_amount: Roubles,
    bonus_min_topup: Roubles,
  }),
  {
    share_percent: 'Доля от пополнений, %',
    share_days: 'Сколько дней платить долю',
    bonus_amount: 'Бонус за первое пополнение',
    bonus_min_topup: 'Первое пополнение от',
  },
);
export type ReferralSettingsBody = z.infer<typeof ReferralSettingsBody>;

export const ReferralResponse = z.object({
  code: z.string(),
  /** The link to share: /r/{code} on this site. */
  link: z.string(),
  invited: z.array(
    z.object({
      username: z.string(),
      /** ISO 8601 */
      joined_at: z.string(),
      /** Roubles earned from this player (after refunds). */
      earned: z.number(),
    }),
  ),
  /** Roubles earned in all. */
  earned: z.number(),
  rules: ReferralSettingsBody,
});
export type ReferralResponse = z.infer<typeof ReferralResponse>;
