// The four account forms as one chunk: they follow each other quickly (login → forgot password →
// register), so once one is loaded the others show at once. The app shell loads it as soon as a
// guest points at «Вход» or «Регистрация» in the header (app/auth-pages.ts), before the click.
export { default as ForgotPasswordPage } from './ForgotPasswordPage.tsx';
export { default as LoginPage } from './LoginPage.tsx';
export { default as RegisterPage } from './RegisterPage.tsx';
export { default as ResetPasswordPage } from './ResetPasswordPage.tsx';
