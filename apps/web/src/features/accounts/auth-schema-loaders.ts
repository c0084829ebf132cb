// The four forms' schemas come in one chunk; the browser imports it once, and again after a failure.
const schemas = () => import('./auth-schemas.ts');

export const loginSchema = () => schemas().then((m) => m.LoginCredentials);
export const registrationSchema = () => schemas().then((m) => m.Registration);
export const forgotPasswordSchema = () => schemas().then((m) => m.ForgotPasswordBody);
export const resetPasswordSchema = () => schemas().then((m) => m.ResetPasswordBody);
