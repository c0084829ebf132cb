import { z } from 'zod';
import { isLocalPath, LOCAL_PATH_MAX, LOCAL_PATH_RE } from './local-path.ts';
import { withLabels } from './common.ts';
import { TwoFactorCode } from './two-factor.ts';
import { Permission } from './permissions.ts';
import { PASSWORD_MIN } from './password-strength.ts';
import { Consents } from './fiscal.ts';

/** Registration rules: the username is the in-game name, so it follows Minecraft's rules. */
export const USERNAME_RE = /^[A-Za-z0-9_]{3,16}$/;
export const PASSWORD_MAX = 128;

export const Username = z
  .string({ error: 'Введите имя пользователя' })
  .regex(USERNAME_RE, 'Имя пользователя: от 3 до 16 символов — латинские буквы, цифры и «_»');

export const Email = z
  .string({ error: 'Введите адрес почты' })
  .trim()
  .max(254, 'Слишком длинный адрес почты')
  .pipe(z.email({ error: 'Введите корректный адрес почты' }));

export const NewPassword = z
  .string({ error: 'Введите пароль' })
  .min(PASSWORD_MIN, `Пароль должен быть не короче ${PASSWORD_MIN} символов`)
  .max(PASSWORD_MAX, `Пароль должен быть не длиннее ${PASSWORD_MAX} символов`);

/** Login takes whatever was typed: a wrong shape is just a wrong name or password. */
const LoginField = z
  .string({ error: 'Введите имя пользователя и пароль' })
  .min(1, 'Введите имя пользователя и пароль')
  .max(256, 'Неверное имя пользователя или пароль');

/** A page of this site to come back to (local-path.ts says which). */
export const LocalPath = z
  .string({ error: 'Адрес возврата: ожидался путь на сайте' })
  .max(LOCAL_PATH_MAX, `Адрес возврата: не длиннее ${LOCAL_PATH_MAX} символов`)
  .regex(LOCAL_PATH_RE, 'Адрес возврата: ожидался путь на сайте');
export { isLocalPath };

export const RegisterBody = withLabels(
  z.strictObject({
    username: Username,
    email: Email,
    password: NewPassword,
    // Honoured only when an administrator registers someone from the admin area.
    is_admin: z.boolean({ error: 'Поле is_admin должно быть логическим' }).optional(),
    balance: z
      .number({ error: 'Баланс должен быть числом' })
      .finite()
      .min(0, 'Баланс не может быть отрицательным')
      .max(100_000_000, 'Слишком большой баланс')
      .optional(),
    /** Where the player was when they chose to register: the confirmation letter's link leads back there after login. */
    return_to: LocalPath.optional(),
    /**
     * The checkboxes ticked: 'privacy' (consent to personal-data processing) and 'offer', each
     * required once the owner has published that document (GET /api/legal says which).
     */
    consents: Consents,
  }),
  {
    username: 'Имя пользователя',
    email: 'Почта',
    password: 'Пароль',
    is_admin: 'Администратор',
    balance: 'Баланс',
    return_to: 'Адрес возврата',
    consents: 'Согласия',
  },
);

/**
 * The confirmation link's own query: where to go after logging in. The link is a browser's, led
 * on by a redirect whatever it carries: anything but a page of this site (isLocalPath) is ignored,
 * never refused or followed.
 */
export const ConfirmQuery = z.object({ next: z.unknown().optional() });
export type RegisterBody = z.infer<typeof RegisterBody>;

export const LoginBody = withLabels(
  z.strictObject({
    username: LoginField,
    password: LoginField,
    /**
     * A client that sends `Authorization: Bearer` (a bot, a script) asks for the session token in
     * the answer; the browser never does: its session lives in the httpOnly cookie only.
     */
    bearer: z.boolean({ error: 'Поле bearer должно быть логическим' }).optional(),
    /** With two-factor login on: the authenticator's 6 digits or a recovery code (see two-factor.ts). */
    code: TwoFactorCode.optional(),
  }),
  { username: 'Имя пользователя', password: 'Пароль', bearer: 'Токен для заголовка', code: 'Код подтверждения' },
);
export type LoginBody = z.infer<typeof LoginBody>;

/** `token` only when the body asked for it with `bearer: true`. */
export const LoginResponse = z.object({ token: z.string().optional(), message: z.string() });
export type LoginResponse = z.infer<typeof LoginResponse>;

export const ForgotPasswordBody = withLabels(z.strictObject({ email: Email }), { email: 'Почта' });
export type ForgotPasswordBody = z.infer<typeof ForgotPasswordBody>;

export const ResetPasswordBody = withLabels(z.strictObject({ new_password: NewPassword }), { new_password: 'Новый пароль' });
export type ResetPasswordBody = z.infer<typeof ResetPasswordBody>;

export const TokenParams = withLabels(
  z.strictObject({
    token: z.string().min(10, 'Ссылка недействительна').max(200, 'Ссылка недействительна'),
  }),
  { token: 'Ссылка' },
);

export const ChangePasswordBody = withLabels(
  z.strictObject({
    old_password: LoginField,
    new_password: NewPassword,
  }),
  { old_password: 'Текущий пароль', new_password: 'Новый пароль' },
);
export type ChangePasswordBody = z.infer<typeof ChangePasswordBody>;

export const MeResponse = z.object({
  id: z.number(),
  username: z.string(),
  email: z.string(),
  /** The owner: every permission, manages roles and owners. */
  is_admin: z.boolean(),
  balance: z.number(),
  /** Staff permissions: all of them for the owner, the role's for staff, none for a player. */
  permissions: z.array(Permission),
  /** The staff role's name, or null (the owner and players have none). */
  role: z.string().nullable(),
});
export type MeResponse = z.infer<typeof MeResponse>;
