import { z } from 'zod';
import { withLabels } from './common.ts';
import { Email, NewPassword, Username } from './accounts.ts';

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
    balance: z.number({ error: 'Баланс должен быть числом' }).finite('Баланс должен быть числом').min(0, 'Баланс не может быть отрицательным').max(100_000_000, 'Слишком большой баланс').optional(),
  }),
  { username: 'Имя пользователя', email: 'Почта', password: 'Пароль', is_admin: 'Администратор', balance: 'Баланс' },
);
export type AdminUserUpdateBody = z.infer<typeof AdminUserUpdateBody>;

export const AUDIT_PAGE_SIZE = 50;
/** The entities the server records (see audit-labels.ts for their names). */
export const AUDIT_ENTITIES = ['user', 'news', 'donate', 'shop_item', 'shop_delivery', 'server'] as const;

export const AuditQuery = withLabels(
  z.strictObject({
    page: z.coerce.number({ error: 'Некорректный номер страницы' }).int('Некорректный номер страницы').min(1, 'Некорректный номер страницы').max(1_000_000, 'Некорректный номер страницы').default(1),
    per_page: z.coerce.number({ error: 'Некорректный размер страницы' }).int('Некорректный размер страницы').min(1, 'Некорректный размер страницы').max(200, 'Не больше 200 записей на странице').default(AUDIT_PAGE_SIZE),
    entity: z.string().max(32, 'Некорректный раздел').regex(/^[a-z_]+$/, 'Некорректный раздел').optional(),
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
