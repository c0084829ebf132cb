import { z } from 'zod';
import { USERNAME_RE } from './accounts.ts';
import { withLabels } from './common.ts';

export const GUEST_ORDER_TEXTS = {
  off: 'Покупки без аккаунта выключены: войдите в аккаунт, чтобы купить',
  unknownNickname: 'Игрок с таким ником не найден: проверьте ник (его видно в игре, в списке игроков)',
  providerOff: 'Без аккаунта можно оплатить через ЮKassa или Т-Банк',
  notFound: 'Заказ не найден',
} as const;

export const GuestOrderBody = withLabels(
  z.strictObject({
    nickname: z
      .string({ error: 'Введите ник игрока' })
      .trim()
      .regex(USERNAME_RE, 'Ник: от 3 до 16 символов — латинские буквы, цифры и «_», как в игре'),
    email: z
      .string({ error: 'Введите адрес почты для чека' })
      .trim()
      .max(254, 'Слишком длинный адрес почты')
      .pipe(z.email({ error: 'Введите корректный адрес почты: на него придёт чек' })),
    shop_id: z.number({ error: 'Выберите товар' }).int('Выберите товар').positive('Выберите товар').max(2_147_483_647, 'Выберите товар'),
    quantity: z
      .number({ error: 'Количество: введите число' })
      .int('Количество: целое число')
      .min(1, 'Количество: от 1')
      .max(1000, 'Количество: не больше 1000')
      .default(1),
    /** Providers whose payment the site can re-read (the guest has no balance a signed notice could credit). */
    provider: z.enum(['yookassa', 'tbank'], { error: GUEST_ORDER_TEXTS.providerOff }),
  }),
  { nickname: 'Ник', email: 'Почта', shop_id: 'Товар', quantity: 'Количество', provider: 'Способ оплаты' },
);
export type GuestOrderBody = z.input<typeof GuestOrderBody>;

export const GUEST_ORDER_STATES = ['pending', 'paid', 'canceled'] as const;

export const GuestOrder = z.object({
  id: z.string(),
  nickname: z.string(),
  item: z.string(),
  quantity: z.number(),
  /** Roubles to pay. */
  amount: z.number(),
  status: z.enum(GUEST_ORDER_STATES),
  confirmation_url: z.string().nullable(),
});
export type GuestOrder = z.infer<typeof GuestOrder>;
