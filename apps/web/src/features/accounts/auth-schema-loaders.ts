import type * as Schemas from './auth-schemas.ts';

// One import of the schemas' chunk, shared by the four forms.
let loading: Promise<typeof Schemas> | undefined;
const schemas = () =>
  (loading ??= import('./auth-schemas.ts')).catch((err: unknown) => {
    loading = undefined;
    throw err;
  });

export const loginSchema = () => schemas().then((m) => m.LoginCredentials);
export const registrationSchema = () => schemas().then((m) => m.Registration);
export const forgotPasswordSchema = () => schemas().then((m) => m.ForgotPasswordBody);
export const resetPasswordSchema = () => schemas().then((m) => m.ResetPasswordBody);
