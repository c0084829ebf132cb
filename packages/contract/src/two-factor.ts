import { z } from 'zod';
import { withLabels } from './common.ts';

/**
 * What a player types as the second factor: the authenticator's 6 digits or one of the recovery
 * codes (`xxxxx-xxxxx`). Spaces and dashes are allowed (apps show `123 456`); the server reads
 * only letters and digits.
 */
export const TwoFactorCode = z
  .string({ error: 'Введите код из приложения' })
  .trim()
  .min(1, 'Введите код из приложения')
  .max(32, 'Код слишком длинный: введите 6 цифр из приложения или код восстановления');

/** `GET /api/user/2fa`: the player's state; `required` — an administrator must turn it on (admin setting). */
export const TwoFactorStatus = z.object({
  enabled: z.boolean(),
  enabled_at: z.number().nullable(),
  recovery_codes_left: z.number().int(),
  required: z.boolean(),
});
export type TwoFactorStatus = z.infer<typeof TwoFactorStatus>;

/** `POST /api/user/2fa/setup`: the new secret to type or scan (pending until enabled). */
export const TwoFactorSetupResponse = z.object({
  secret: z.string(),
  otpauth_url: z.string(),
  /** The same otpauth URL as a QR code picture (`data:image/svg+xml;base64,…`). */
  qr_data_url: z.string(),
});
export type TwoFactorSetupResponse = z.infer<typeof TwoFactorSetupResponse>;

export const TwoFactorEnableBody = withLabels(z.strictObject({ code: TwoFactorCode }), { code: 'Код из приложения' });
export type TwoFactorEnableBody = z.infer<typeof TwoFactorEnableBody>;

/** Shown once: ten single-use codes for a lost phone. */
export const TwoFactorEnableResponse = z.object({ recovery_codes: z.array(z.string()), message: z.string() });
export type TwoFactorEnableResponse = z.infer<typeof TwoFactorEnableResponse>;

export const TwoFactorDisableBody = withLabels(
  z.strictObject({
    password: z.string({ error: 'Введите пароль' }).min(1, 'Введите пароль').max(256, 'Пароль указан неверно'),
    code: TwoFactorCode,
  }),
  { password: 'Пароль', code: 'Код из приложения' },
);
export type TwoFactorDisableBody = z.infer<typeof TwoFactorDisableBody>;

/** The owner's security settings (Админ-панель): administrators must use two-factor login. */
export const SecuritySettingsBody = withLabels(z.strictObject({ require_admin_two_factor: z.boolean({ error: 'Укажите да или нет' }) }), {
  require_admin_two_factor: 'Двухфакторная защита для администраторов',
});
export type SecuritySettingsBody = z.infer<typeof SecuritySettingsBody>;

/** One open login of the player (`GET /api/user/sessions`). */
export const SessionInfo = z.object({
  id: z.string(),
  /** The browser and system in words: «Chrome 120, Windows», «Бот или скрипт (токен)». */
  device: z.string(),
  ip: z.string().nullable(),
  created_at: z.number(),
  last_seen_at: z.number(),
  current: z.boolean(),
});
export type SessionInfo = z.infer<typeof SessionInfo>;
export const SessionsResponse = z.object({ sessions: z.array(SessionInfo) });
export type SessionsResponse = z.infer<typeof SessionsResponse>;
