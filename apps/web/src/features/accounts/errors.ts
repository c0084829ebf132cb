import type { CodeRule, ServerErrorRules } from '../../components/form/Form.tsx';
import { ApiError } from '../../lib/api.ts';

/**
 * A name or address another account has: the server answers in English (spec §8, codes
 * `username_exists` / `email_exists`); the forms show the Russian notices beside the field.
 */
export const TAKEN: Readonly<Record<string, Required<CodeRule>>> = {
  email_exists: { text: 'Пользователь с такой почтой уже зарегистрирован.', field: 'email' },
  username_exists: { text: 'Пользователь с таким именем уже существует.', field: 'username' },
};

/** The server's answer in Russian, pointing at its field even when the server did not name it. */
export function accountError(err: unknown): ApiError {
  const e = err instanceof ApiError ? err : new ApiError(0, '');
  const taken = e.code !== undefined ? TAKEN[e.code] : undefined;
  return taken ? new ApiError(e.status, taken.text, e.code, e.field ?? taken.field) : e;
}

/**
 * Registration's texts (spec §8): a taken name or address beside its field; any other refusal
 * beside the field it names, or above the button as «Ошибка регистрации: …».
 */
export const REGISTRATION_ERRORS: ServerErrorRules = {
  codes: TAKEN,
  formText: (error) => (error?.message ? `Ошибка регистрации: ${error.message}` : 'Ошибка регистрации. Попробуйте позже.'),
};

/** Login (spec §8): a 403 (a ban) and a 429 show the server's text; any other failure «Неверное имя пользователя или пароль». */
export const LOGIN_ERRORS: ServerErrorRules = {
  formText: (error) =>
    error && (error.status === 403 || error.status === 429) && error.message ? error.message : 'Неверное имя пользователя или пароль',
};

/** Forgot password and a new confirmation letter: too many tries tell when to try again; any other failure the spec's text. */
export const mailLinkErrors = (failed: string): ServerErrorRules => ({ codes: { rate_limited: {} }, formText: () => failed });

/**
 * Reset (spec §8): a refused password beside the field (the server names it); anything else
 * «Не удалось сбросить пароль», with the server's reason (an expired link, too many tries) when it gave one.
 */
export const RESET_ERRORS: ServerErrorRules = {
  formText: (error) =>
    error && error.status >= 400 && error.status < 500 && error.message
      ? `Не удалось сбросить пароль: ${error.message}`
      : 'Не удалось сбросить пароль',
};
