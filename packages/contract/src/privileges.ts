import { z } from 'zod';
import { purchaseExtras } from './storefront.ts';
import { withLabels } from './common.ts';
import { DeliveryStatus } from './deliveries.ts';

// Privileges: donate tiers bought for a number of months, their kits claimed from the profile,
// and the admin's list of who holds what.

export const PRIVILEGE_TEXTS = {
  bought: (title: string) => `Привилегия ${title} куплена! Команды будут выполнены в игре.`,
  extended: (title: string) => `Привилегия ${title} продлена! Команды будут выполнены в игре.`,
  gifted: (title: string, name: string) => `Привилегия ${title} подарена игроку ${name}! Команды будут выполнены в игре.`,
  upgraded: (from: string, to: string) => `Привилегия ${from} заменена на ${to}: неиспользованные дни зачтены в цену.`,
  badMonths: 'Выберите срок покупки',
  notSold: 'Эту привилегию нельзя купить на сайте: она продаётся не в рублях',
  periodNotSold: (months: number) => `На ${months} мес. эта привилегия не продаётся: выберите другой срок`,
  downgrade: (held: string, wanted: string) =>
    `У вас действует более высокая привилегия ${held}. Купить ${wanted}, пока она не закончилась, нельзя — можно продлить ${held}.`,
  noFunds: 'Недостаточно средств на балансе',
  notFound: 'Привилегия не найдена',
  kitNotFound: 'Набор не найден',
  kitNotHeld: (tier: string) => `Этот набор выдаётся владельцам привилегии ${tier}`,
  kitCooldown: (left: string) => `Набор уже получен. Следующий можно будет получить через ${left}`,
  kitClaimed: (name: string) => `Набор «${name}» будет выдан в игре`,
  privilegeNotFound: 'Привилегия не найдена',
  alreadyEnded: 'Эта привилегия уже закончилась',
  userNotFound: 'Игрок не найден',
  granted: 'Привилегия выдана',
  updated: 'Срок привилегии изменён',
  revoked: 'Привилегия снята',
} as const;

const unit = (n: number, one: string, few: string, many: string) => {
  const m10 = n % 10;
  const m100 = n % 100;
  const word = m10 === 1 && m100 !== 11 ? one : m10 >= 2 && m10 <= 4 && (m100 < 12 || m100 > 14) ? few : many;
  return `${n} ${word}`;
};

/** «2 дня 3 часа», «5 минут»: the two largest units of a span, at least a minute. */
export function durationText(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  const parts: string[] = [];
  if (days > 0) parts.push(unit(days, 'день', 'дня', 'дней'));
  if (hours > 0) parts.push(unit(hours, 'час', 'часа', 'часов'));
  if (days === 0 && mins > 0) parts.push(unit(mins, 'минуту', 'минуты', 'минут'));
  return parts.slice(0, 2).join(' ');
}

export const PrivilegeBuyBody = withLabels(
  z.strictObject(
    {
      months: z
        .number({ error: PRIVILEGE_TEXTS.badMonths })
        .int(PRIVILEGE_TEXTS.badMonths)
        .min(1, PRIVILEGE_TEXTS.badMonths)
        .max(36, PRIVILEGE_TEXTS.badMonths),
      ...purchaseExtras,
    },
    { error: 'Некорректный запрос: ожидается поле months и по желанию promo_code, gift_to' },
  ),
  { months: 'Срок', promo_code: 'Промокод', gift_to: 'Получатель' },
);
export type PrivilegeBuyBody = z.infer<typeof PrivilegeBuyBody>;

export const PrivilegeBuyResponse = z.object({
  new_balance: z.number(),
  message: z.string(),
  /** The privilege's new end, epoch ms. */
  expires_at: z.number(),
  privilege_id: z.number(),
});
export type PrivilegeBuyResponse = z.infer<typeof PrivilegeBuyResponse>;

/** Months as the quote's query gives them (text), checked as the purchase checks them. */
export const PrivilegeQuoteQuery = withLabels(
  z.object({
    months: z.coerce
      .number({ error: PRIVILEGE_TEXTS.badMonths })
      .int(PRIVILEGE_TEXTS.badMonths)
      .min(1, PRIVILEGE_TEXTS.badMonths)
      .max(36, PRIVILEGE_TEXTS.badMonths),
    /** A code to price in, as the purchase would apply it. */
    promo_code: purchaseExtras.promo_code,
    /** 1: priced as a gift (a new privilege for someone else). */
    gift: z.enum(['1'], { error: 'gift: только 1' }).optional(),
  }),
  { months: 'Срок', promo_code: 'Промокод', gift: 'Подарок' },
);
export type PrivilegeQuoteQuery = z.infer<typeof PrivilegeQuoteQuery>;

/** new: a first privilege; extend: the held tier runs on from its end; upgrade: it replaces the running lower tier. */
export const PRIVILEGE_PURCHASE_KINDS = ['new', 'extend', 'upgrade'] as const;
export type PrivilegePurchaseKind = (typeof PRIVILEGE_PURCHASE_KINDS)[number];

/** What buying a tier for `months` would cost and do now (GET /api/donate/{id}/quote), by the purchase's own rules. */
export const PrivilegeQuote = z.object({
  tier_id: z.number(),
  months: z.number(),
  /**
   * Roubles: the period's price (its discount applied), the replaced tier's unused days counted
   * toward it, and what would be debited — the promo code's discount taken off too.
   */
  price: z.number(),
  credit: z.number(),
  total: z.number(),
  /** The promo code asked about: what it is («Скидка 20 % на привилегии») and the roubles it takes off; null without one. */
  promo: z.object({ code: z.string(), text: z.string(), discount: z.number() }).nullable(),
  kind: z.enum(PRIVILEGE_PURCHASE_KINDS),
  /** The running lower tier an upgrade replaces, and its whole unused days. */
  replaces: z.object({ title: z.string(), unused_days: z.number() }).nullable(),
  /** When the bought time begins (an extension: the current end) and ends, epoch ms. */
  starts_at: z.number(),
  expires_at: z.number(),
});
export type PrivilegeQuote = z.infer<typeof PrivilegeQuote>;

export const UserPrivilegeKit = z.object({
  id: z.number(),
  name: z.string(),
  description: z.string(),
  command: z.string(),
  period: z.number(),
  kitImg: z.string().nullable(),
  /** The site has no commands to give it: it is claimed in the game with `command` (no «Получить» on the site). */
  in_game: z.boolean(),
  /** When it may be claimed again (epoch ms); null: now. */
  next_claim_at: z.number().nullable(),
  /** The last claim (epoch ms) and how its delivery into the game goes; null: never claimed (or no commands to run). */
  last_claimed_at: z.number().nullable(),
  delivery: DeliveryStatus.nullable(),
});
export type UserPrivilegeKit = z.infer<typeof UserPrivilegeKit>;

export const UserPrivilege = z.object({
  id: z.number(),
  tier_id: z.number(),
  title: z.string(),
  starts_at: z.number(),
  expires_at: z.number(),
  active: z.boolean(),
  ended_at: z.number().nullable(),
  /** How its last grant went in the game (the commands of its last purchase or extension); null: the tier runs no commands. */
  delivery: DeliveryStatus.nullable(),
  /** The tier's kits (active privileges only). */
  kits: z.array(UserPrivilegeKit),
});
export type UserPrivilege = z.infer<typeof UserPrivilege>;

export const KitClaimResponse = z.object({ message: z.string(), next_claim_at: z.number() });
export type KitClaimResponse = z.infer<typeof KitClaimResponse>;

export const KitParams = withLabels(
  z.strictObject({
    kitId: z.coerce
      .number({ error: PRIVILEGE_TEXTS.kitNotFound })
      .int(PRIVILEGE_TEXTS.kitNotFound)
      .positive(PRIVILEGE_TEXTS.kitNotFound)
      .max(2_147_483_647, PRIVILEGE_TEXTS.kitNotFound),
  }),
  { kitId: 'Набор' },
);

/** expired: its time ran out; upgraded: replaced by a higher tier; revoked: taken away by an admin. */
export const PRIVILEGE_END_REASONS = ['expired', 'upgraded', 'revoked'] as const;
export type PrivilegeEndReason = (typeof PRIVILEGE_END_REASONS)[number];
export const PRIVILEGE_END_TEXT: Record<PrivilegeEndReason, string> = {
  expired: 'Срок истёк',
  upgraded: 'Заменена более высокой',
  revoked: 'Снята администратором',
};

export const AdminPrivilege = z.object({
  id: z.number(),
  user_id: z.number(),
  username: z.string(),
  tier_id: z.number(),
  title: z.string(),
  starts_at: z.number(),
  expires_at: z.number(),
  ended_at: z.number().nullable(),
  end_reason: z.enum(PRIVILEGE_END_REASONS).nullable(),
  active: z.boolean(),
  /** Granted by an admin (null: bought). */
  granted_by: z.number().nullable(),
  created_at: z.number(),
});
export type AdminPrivilege = z.infer<typeof AdminPrivilege>;

export const AdminPrivilegesQuery = z.object({
  /** Only the active ones. */
  active: z.enum(['1', '0']).optional(),
  username: z
    .string()
    .trim()
    .max(32)
    // eslint-disable-next-line no-control-regex -- a name never holds control characters (PostgreSQL refuses NUL)
    .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'Имя игрока: недопустимые символы')
    .optional(),
});

export const AdminPrivilegeGrantBody = withLabels(
  z.strictObject({
    username: z.string({ error: 'Введите имя игрока' }).trim().min(1, 'Введите имя игрока').max(32, 'Имя игрока: не длиннее 32 символов'),
    tier_id: z.number({ error: 'Выберите донат' }).int('Выберите донат').positive('Выберите донат').max(2_147_483_647, 'Выберите донат'),
    days: z
      .number({ error: 'Срок: ожидалось число дней' })
      .int('Срок — целое число дней')
      .min(1, 'Срок — не меньше 1 дня')
      .max(3650, 'Срок — не больше 3650 дней'),
  }),
  { username: 'Игрок', tier_id: 'Донат', days: 'Дней' },
);
export type AdminPrivilegeGrantBody = z.infer<typeof AdminPrivilegeGrantBody>;

export const AdminPrivilegeUpdateBody = withLabels(
  z.strictObject({
    /** The new end, epoch ms; one in the past ends the privilege now. */
    expires_at: z
      .number({ error: 'Дата окончания: ожидалось время в миллисекундах' })
      .int('Дата окончания: ожидалось время в миллисекундах')
      .min(0)
      .max(8_640_000_000_000),
  }),
  { expires_at: 'Окончание' },
);
export type AdminPrivilegeUpdateBody = z.infer<typeof AdminPrivilegeUpdateBody>;
