import { ApiError } from '../../lib/api.ts';

/** The two registration texts the server keeps in English (spec §8), in Russian, and the field each is about. */
const TAKEN: Record<string, { text: string; field: string }> = {
  'Email already exists': { text: 'Пользователь с такой почтой уже зарегистрирован.', field: 'email' },
  'Username already exists': { text: 'Пользователь с таким именем уже существует.', field: 'username' },
};

/** The server's answer in Russian, pointing at its field even when the server did not name it. */
export function accountError(err: unknown): ApiError {
  const e = err instanceof ApiError ? err : new ApiError(0, '');
  const taken = TAKEN[e.message];
  return taken ? new ApiError(e.status, taken.text, e.code, e.field ?? taken.field) : e;
}

/** Registration's texts (spec §8): the server decides what is valid, its words are shown as they come. */
export function registrationError(err: unknown): string {
  const text = err instanceof ApiError ? err.message : '';
  if (TAKEN[text]) return TAKEN[text].text;
  if (text) return `Ошибка регистрации: ${text}`;
  return 'Ошибка регистрации. Попробуйте позже.';
}
