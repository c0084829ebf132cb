import { z } from 'zod';
import { roundsToZeroKopecks, withLabels, ZERO_KOPECKS_TEXT } from './common.ts';
import { Email, NewPassword, Username } from './accounts.ts';
import { BanInfo } from './bans.ts';

// Schemas of the admin feature, shared by the server and the web app.

export const AdminUser = z.object({
  id: z.number(),
  username: z.string(),
  email: z.string(),
  is_admin: z.boolean(),
  /** Roubles. */
  balance: z.number(),
  email_confirmed: z.boolean(),
  /** ISO 8601 */
  created_at: z.string(),
  /** The ban in force (modules/bans), null when none. */
  ban: BanInfo.nullable().optional(),
});
export type AdminUser = z.infer<typeof AdminUser>;

export const AdminUserList = z.array(AdminUser);

/** Every field is optional: only what is sent changes. An empty password keeps the old one. */
export const AdminUserUpdateBody = withLabels(
  z.strictObject({
    username: Username.optional(),
    email: Email.optional(),
    password: z.union([z.literal(''), NewPassword], { error: 'Пароль должен быть не короче 8 символов или пустым' }).optional(),
    is_admin: z.boolean({ error: 'Поле is_admin должно быть логическим' }).optional(),
    /** Roubles; the server posts the difference to the ledger. */
    balance: z
      .number({ error: 'Баланс должен быть числом' })
      .finite('Баланс должен быть числом')
      .min(0, 'Баланс не может быть отрицательным')
      .max(100_000_000, 'Слишком большой баланс')
      .refine((v) => !roundsToZeroKopecks(v), ZERO_KOPECKS_TEXT)
      .optional(),
  }),
  { username: 'Имя пользователя', email: 'Почта', password: 'Пароль', is_admin: 'Администратор', balance: 'Баланс' },
);
export type AdminUserUpdateBody = z.infer<typeof AdminUserUpdateBody>;

export const AUDIT_PAGE_SIZE = 50;
/** The entities the server records (see audit-labels.ts for their names). */
export const AUDIT_ENTITIES = ['user', 'news', 'donate', 'shop_item', 'shop_delivery', 'server', 'payment'] as const;

export const AuditQuery = withLabels(
  z.strictObject({
    page: z.coerce
      .number({ error: 'Некорректный номер страницы' })
      .int('Некорректный номер страницы')
      .min(1, 'Некорректный номер страницы')
      .max(1_000_000, 'Некорректный номер страницы')
      .default(1),
    per_page: z.coerce
      .number({ error: 'Некорректный размер страницы' })
      .int('Некорректный размер страницы')
      .min(1, 'Некорректный размер страницы')
      .max(200, 'Не больше 200 записей на странице')
      .default(AUDIT_PAGE_SIZE),
    entity: z
      .string()
      .max(32, 'Некорректный раздел')
      .regex(/^[a-z_]+$/, 'Некорректный раздел')
      .optional(),
  }),
  { page: 'Страница', per_page: 'Записей на странице', entity: 'Раздел' },
);
export type AuditQuery = z.input<typeof AuditQuery>;

export const AuditEntry = z.object({
  id: z.number(),
  /** ISO 8601 */
  created_at: z.string(),
  actor_id: z.number().nullable(),
  actor_username: z.string().nullable(),
  /** For example 'news.create', 'user.update'. */
  action: z.string(),
  entity: z.string(),
  entity_id: z.string().nullable(),
  /** The record before and after the change; secrets are masked as '***'. */
  before: z.unknown(),
  after: z.unknown(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export const AuditPage = z.object({
  entries: z.array(AuditEntry),
  page: z.number(),
  per_page: z.number(),
  total: z.number(),
});
export type AuditPage = z.infer<typeof AuditPage>;

// Server-side search and paging of users, a player's card and balance changes with a comment.

export const ADMIN_USERS_PAGE_SIZE = 25;

/** Without any of these GET /api/user/all answers the spec's plain list of every user. */
export const AdminUserQuery = withLabels(
  z.strictObject({
    q: z
      .string()
      .trim()
      .max(100, 'Слишком длинный запрос')
      // eslint-disable-next-line no-control-regex -- a search never holds control characters (PostgreSQL refuses NUL)
      .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'Некорректный запрос')
      .optional(),
    page: z.coerce
      .number({ error: 'Некорректный номер страницы' })
      .int('Некорректный номер страницы')
      .min(1, 'Некорректный номер страницы')
      .max(1_000_000, 'Некорректный номер страницы')
      .optional(),
    per_page: z.coerce
      .number({ error: 'Некорректный размер страницы' })
      .int('Некорректный размер страницы')
      .min(1, 'Некорректный размер страницы')
      .max(100, 'Не больше 100 пользователей на странице')
      .optional(),
  }),
  { q: 'Поиск', page: 'Страница', per_page: 'Пользователей на странице' },
);
export type AdminUserQuery = z.input<typeof AdminUserQuery>;

export const AdminUserPage = z.object({
  users: z.array(AdminUser),
  page: z.number(),
  per_page: z.number(),
  total: z.number(),
});
export type AdminUserPage = z.infer<typeof AdminUserPage>;

export const BALANCE_COMMENT_MAX = 500;

/** «+ / − сумма» in roubles (kopecks allowed) and why: the ledger keeps the comment. */
export const BalanceChangeBody = withLabels(
  z.strictObject({
    amount: z
      .number({ error: 'Сумма должна быть числом' })
      .finite('Сумма должна быть числом')
      .refine((v) => v !== 0, 'Сумма не может быть нулевой')
      .refine((v) => !roundsToZeroKopecks(v), ZERO_KOPECKS_TEXT)
      .refine((v) => Math.abs(v) <= 100_000_000, 'Слишком большая сумма')
      .refine((v) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6, 'Не больше двух знаков после запятой (копейки)'),
    comment: z
      .string({ error: 'Напишите комментарий' })
      .trim()
      .min(3, 'Напишите комментарий: за что изменение (не короче 3 символов)')
      .max(BALANCE_COMMENT_MAX, `Комментарий: не длиннее ${BALANCE_COMMENT_MAX} символов`),
  }),
  { amount: 'Сумма', comment: 'Комментарий' },
);
export type BalanceChangeBody = z.infer<typeof BalanceChangeBody>;

export const LedgerEntryView = z.object({
  id: z.number(),
  /** Roubles, signed. */
  amount: z.number(),
  /** adjustment | purchase | refund | topup | … */
  reason: z.string(),
  note: z.string().nullable(),
  author: z.string().nullable(),
  /** ISO 8601 */
  created_at: z.string(),
});
export type LedgerEntryView = z.infer<typeof LedgerEntryView>;

export const BalanceChangeResponse = z.object({
  /** Roubles after the change. */
  balance: z.number(),
  entry: LedgerEntryView,
  message: z.string(),
});
export type BalanceChangeResponse = z.infer<typeof BalanceChangeResponse>;

export const UserCardOrder = z.object({
  id: z.number(),
  item_name: z.string(),
  quantity: z.number(),
  /** Roubles. */
  total: z.number(),
  /** The worst state of its deliveries (pending, sent, done, failed, unknown, refunded), or null when none. */
  delivery: z.string().nullable(),
  created_at: z.string(),
});

export const UserCardSession = z.object({
  created_at: z.string(),
  expires_at: z.string(),
  user_agent: z.string().nullable(),
  ip: z.string().nullable(),
});

export const UserCardPayment = z.object({
  /** The payment's id (a UUID, as in /api/admin/payments/{id}). */
  id: z.string(),
  /** Roubles. */
  amount: z.number(),
  status: z.string(),
  provider: z.string().nullable(),
  created_at: z.string(),
});

export const UserCardPrivilege = z.object({
  title: z.string(),
  /** ISO 8601; null: forever. */
  ends_at: z.string().nullable(),
  active: z.boolean(),
});

export const UserCard = z.object({
  user: AdminUser,
  uuid: z.string(),
  orders: z.array(UserCardOrder),
  /** The player's latest top-ups (newest first); null only on a site without payments. */
  payments: z.array(UserCardPayment).nullable(),
  /** null while the site has no privileges. */
  privileges: z.array(UserCardPrivilege).nullable(),
  ledger: z.array(LedgerEntryView),
  sessions: z.array(UserCardSession),
  /** Two-factor login is on (Админ-панель can reset it for a player who lost the phone and the codes). */
  two_factor: z.boolean().optional(),
});
export type UserCard = z.infer<typeof UserCard>;
