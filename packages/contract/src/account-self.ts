import { z } from 'zod';
import { withLabels } from './common.ts';
import { Email } from './accounts.ts';

// Schemas of the player's own account changes: e-mail change and self-service deletion.

/** The password as typed: any wrong shape is just a wrong password. */
const CurrentPassword = z.string({ error: 'Введите пароль' }).min(1, 'Введите пароль').max(256, 'Пароль указан неверно');

export const EmailChangeBody = withLabels(z.strictObject({ email: Email, password: CurrentPassword }), {
  email: 'Новая почта',
  password: 'Пароль',
});
export type EmailChangeBody = z.infer<typeof EmailChangeBody>;

export const PendingEmailChange = z.object({
  /** The new address waiting for its confirmation. */
  email: z.string(),
  /** Epoch ms: the confirmation link works until then. */
  expires_at: z.number(),
});

export const EmailStatus = z.object({ email: z.string(), pending: PendingEmailChange.nullable() });
export type EmailStatus = z.infer<typeof EmailStatus>;

export const EmailChangeResponse = z.object({ message: z.string(), pending: PendingEmailChange });
export type EmailChangeResponse = z.infer<typeof EmailChangeResponse>;

export const DeleteAccountBody = withLabels(
  z.strictObject({
    password: CurrentPassword,
    /** With two-factor login on: a code from the app or a recovery code. */
    code: z.string({ error: 'Код: ожидалась строка' }).max(64, 'Неверный код').optional(),
  }),
  { password: 'Пароль', code: 'Код из приложения' },
);
export type DeleteAccountBody = z.infer<typeof DeleteAccountBody>;
