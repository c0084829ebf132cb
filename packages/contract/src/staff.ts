import { z } from 'zod';
import { withLabels } from './common.ts';
import { Email, NewPassword, Username } from './accounts.ts';
import { SiteSettings } from './site.ts';
import { ServerBody } from './servers.ts';
import { Permission, PERMISSIONS } from './permissions.ts';

export const StaffRole = z.object({
  id: z.number(),
  name: z.string(),
  permissions: z.array(Permission),
  /** How many accounts have the role. */
  members: z.number(),
});
export type StaffRole = z.infer<typeof StaffRole>;

export const StaffRoleList = z.object({
  roles: z.array(StaffRole),
  /** Everyone with the owner's rights or a role. */
  staff: z.array(
    z.object({ id: z.number(), username: z.string(), owner: z.boolean(), role_id: z.number().nullable(), role: z.string().nullable() }),
  ),
});
export type StaffRoleList = z.infer<typeof StaffRoleList>;

export const PermissionList = z.object({
  permissions: z.array(z.object({ key: Permission, label: z.string(), hint: z.string() })),
});
export type PermissionList = z.infer<typeof PermissionList>;

export const StaffRoleBody = withLabels(
  z.strictObject({
    name: z
      .string({ error: 'Введите название роли' })
      .trim()
      .min(1, 'Введите название роли')
      .max(60, 'Название роли: не длиннее 60 символов')
      .refine((v) => !/[\p{Cc}]/u.test(v), 'Название роли: недопустимые символы'),
    permissions: z.array(Permission, { error: 'Выберите права' }).max(PERMISSIONS.length, 'Слишком много прав'),
  }),
  { name: 'Название', permissions: 'Права' },
);
export type StaffRoleBody = z.infer<typeof StaffRoleBody>;

export const UserRoleBody = withLabels(
  z.strictObject({
    role_id: z
      .number({ error: 'Выберите роль' })
      .int('Выберите роль')
      .positive('Выберите роль')
      .max(2_147_483_647, 'Выберите роль')
      .nullable(),
  }),
  { role_id: 'Роль' },
);
export type UserRoleBody = z.infer<typeof UserRoleBody>;

// ---- First-run setup (/setup) ----

export const SetupStatus = z.object({ needed: z.boolean() });
export type SetupStatus = z.infer<typeof SetupStatus>;

/** The optional first game server at setup: the admin's server form's address fields (its description is its name until edited). */
export const SetupServer = withLabels(
  z.strictObject({
    name: ServerBody.shape.name,
    ip_address: ServerBody.shape.ip_address.refine((v) => v !== '', 'Введите адрес сервера'),
    port: ServerBody.shape.port,
    rcon_port: ServerBody.shape.rcon_port,
    rcon_password: ServerBody.shape.rcon_password,
  }),
  { name: 'Название сервера', ip_address: 'Адрес сервера', port: 'Порт', rcon_port: 'Порт RCON', rcon_password: 'Пароль RCON' },
);
export type SetupServer = z.output<typeof SetupServer>;

export const SetupBody = withLabels(
  z.strictObject({
    code: z.string({ error: 'Введите код из журнала сервера' }).trim().min(1, 'Введите код из журнала сервера').max(64, 'Неверный код'),
    username: Username,
    email: Email,
    password: NewPassword,
    site_name: SiteSettings.shape.name,
    game_address: SiteSettings.shape.game_address.optional(),
    server: SetupServer.optional(),
  }),
  {
    code: 'Код',
    username: 'Имя пользователя',
    email: 'Почта',
    password: 'Пароль',
    site_name: 'Название сайта',
    game_address: 'Адрес сервера',
    server: 'Первый сервер',
  },
);
export type SetupBody = z.infer<typeof SetupBody>;
