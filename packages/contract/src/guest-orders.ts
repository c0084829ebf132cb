import { z } from 'zod';
import { USERNAME_RE } from './accounts.ts';
import { withLabels } from './common.ts';
import { Consents } from './fiscal.ts';
import { PRIVILEGE_TEXTS } from './privileges.ts';

export const GUEST_ORDER_TEXTS = {
  off: 'Покупки без аккаунта выключены: войдите в аккаунт, чтобы купить',
  unknownNickname: 'Игрок с таким ником не найден: проверьте ник (его видно в игре, в списке игроков)',
  providerOff: 'Без аккаунта можно оплатить через ЮKassa или Т-Банк',
  notFound: 'Заказ не найден',
  /** Shown beside the nickname when the answer says `known: false`: the order is taken all the same. */
  unknownWarning: 'Игрок с таким ником ещё не заходил на сервер — проверьте написание',
  downgrade: (nickname: string, wanted: string) =>
    `У игрока ${nickname} действует более высокая привилегия: купить ${wanted}, пока она не закончилась, нельзя`,
  /** A tier for a nickname without an account that already holds one bought this way. */
  nicknameHolds: (title: string) =>
    `Для этого ника уже оплачена привилегия ${title}. Продлить или сменить её можно после регистрации игрока на сайте.`,
} as const;

export const GUEST_ORDER_KINDS = ['item', 'tier'] as const;
export type GuestOrderKind = (typeof GUEST_ORDER_KINDS)[number];

const guestNickname = z
  .string({ error: 'Введите ник игрока' })
  .trim()
  .regex(USERNAME_RE, 'Ник: от 3 до 16 символов — латинские буквы, цифры и «_», как в игре');
const guestEmail = z
  .string({ error: 'Введите адрес почты для чека' })
  .trim()
  .max(254, 'Слишком длинный адрес почты')
  .pipe(z.email({ error: 'Введите корректный адрес почты: на него придёт чек' }));
/** Providers whose payment the site can re-read (the guest has no balance a signed notice could credit). */
const guestProvider = z.enum(['yookassa', 'tbank'], { error: GUEST_ORDER_TEXTS.providerOff });

export const GuestOrderBody = withLabels(
  z.strictObject({
    nickname: guestNickname,
    email: guestEmail,
    shop_id: z.number({ error: 'Выберите товар' }).int('Выберите товар').positive('Выберите товар').max(2_147_483_647, 'Выберите товар'),
    quantity: z
      .number({ error: 'Количество: введите число' })
      .int('Количество: целое число')
      .min(1, 'Количество: от 1')
      .max(1000, 'Количество: не больше 1000')
      .default(1),
    provider: guestProvider,
    /** Ticked before paying once the owner has published the offer or the policy: offer, privacy and age. */
    consents: Consents,
  }),
  { nickname: 'Ник', email: 'Почта', shop_id: 'Товар', quantity: 'Количество', provider: 'Способ оплаты', consents: 'Согласия' },
);
export type GuestOrderBody = z.input<typeof GuestOrderBody>;

/** POST /api/donate/{id}/guest-orders: a tier for a nickname, for one of the periods it is sold for. */
export const GuestTierOrderBody = withLabels(
  z.strictObject({
    nickname: guestNickname,
    email: guestEmail,
    months: z
      .number({ error: PRIVILEGE_TEXTS.badMonths })
      .int(PRIVILEGE_TEXTS.badMonths)
      .min(1, PRIVILEGE_TEXTS.badMonths)
      .max(36, PRIVILEGE_TEXTS.badMonths),
    provider: guestProvider,
    consents: Consents,
  }),
  { nickname: 'Ник', email: 'Почта', months: 'Срок', provider: 'Способ оплаты', consents: 'Согласия' },
);
export type GuestTierOrderBody = z.input<typeof GuestTierOrderBody>;

export const GUEST_ORDER_STATES = ['pending', 'paid', 'canceled'] as const;

export const GuestOrder = z.object({
  id: z.string(),
  /** item: `item` is the shop item's name and `quantity` its pieces; tier: the tier's title and its months. */
  kind: z.enum(GUEST_ORDER_KINDS),
  nickname: z.string(),
  item: z.string(),
  quantity: z.number(),
  /** Roubles to pay. */
  amount: z.number(),
  status: z.enum(GUEST_ORDER_STATES),
  confirmation_url: z.string().nullable(),
});
export type GuestOrder = z.infer<typeof GuestOrder>;

/** The answer to a new guest order: `known` false when no account has the nickname and no linked server has seen it. */
export const NewGuestOrder = GuestOrder.extend({ known: z.boolean() });
export type NewGuestOrder = z.infer<typeof NewGuestOrder>;
