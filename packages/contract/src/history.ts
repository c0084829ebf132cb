import { z } from 'zod';
import { withLabels } from './common.ts';
import { DeliveryStatus, PlayerDelivery } from './deliveries.ts';

// The player's one history (Профиль → История): every row of their ledger — each balance
// movement — once, newest first, with what it bought and how its deliveries into the game went.

/** Russian names of the ledger's kinds (its `reason`); a kind missing here reads as «Зачисление» / «Списание». */
export const LEDGER_KIND_TEXT: Record<string, string> = {
  topup: 'Пополнение',
  bonus: 'Бонус к пополнению',
  topup_refund: 'Возврат пополнения',
  purchase: 'Покупка',
  refund: 'Возврат за покупку',
  adjustment: 'Изменение администратором',
  promo: 'Промокод',
  promo_bonus: 'Бонус по промокоду',
  gift: 'Подарок',
  gift_sent: 'Подарок отправлен',
  gift_received: 'Подарок получен',
  cart: 'Покупка корзины',
  vote_reward: 'Награда за голос',
  referral_reward: 'Награда за приглашение',
};

/** What a purchase bought, by the first word of its ledger reference (`order:12`, `privilege:3`). */
export const PURCHASE_REF_TEXT: Record<string, string> = {
  order: 'Покупка в магазине',
  privilege: 'Покупка привилегии',
  cart: 'Покупка корзины',
  gift: 'Подарок',
};

/** A kind's label: the map's, or a plain «Зачисление» / «Списание» for kinds added after it. */
export function ledgerKindText(kind: string, amount = 0): string {
  return LEDGER_KIND_TEXT[kind] ?? (amount < 0 ? 'Списание' : 'Зачисление');
}

export const HISTORY_PAGE_SIZE = 20;

export const UserHistoryQuery = withLabels(
  z.strictObject({
    page: z.coerce
      .number({ error: 'Некорректная страница' })
      .int('Некорректная страница')
      .min(1, 'Некорректная страница')
      .max(100_000, 'Некорректная страница')
      .optional(),
    kind: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,39}$/, 'Некорректный вид операции')
      .optional(),
  }),
  { page: 'Страница', kind: 'Вид операции' },
);
export type UserHistoryQuery = z.infer<typeof UserHistoryQuery>;

export const UserHistoryEntry = z.object({
  /** The ledger row. */
  id: z.number(),
  /** The ledger's kind (`topup`, `purchase`, `adjustment`, …) and its Russian name («Покупка привилегии»). */
  kind: z.string(),
  label: z.string(),
  /** Roubles, signed: + credited, − debited. */
  amount: z.number(),
  created_at: z.number(),
  /** What it was for: «VIP на 3 мес.», «Алмаз × 2», the administrator's comment. */
  note: z.string().nullable(),
  /** What was bought, when the feature that sold it says (null otherwise). */
  title: z.string().nullable(),
  /** The administrator who made the change (admin changes only). */
  author: z.string().nullable(),
  /** The deliveries into the game it paid for, and all of them in one word. */
  deliveries: z.array(PlayerDelivery),
  delivery: DeliveryStatus.nullable(),
});
export type UserHistoryEntry = z.infer<typeof UserHistoryEntry>;

export const UserHistoryResponse = z.object({
  entries: z.array(UserHistoryEntry),
  page: z.number(),
  pages: z.number(),
  total: z.number(),
  /** The kinds this player's history holds, for the filter. */
  kinds: z.array(z.object({ kind: z.string(), label: z.string() })),
});
export type UserHistoryResponse = z.infer<typeof UserHistoryResponse>;
