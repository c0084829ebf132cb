import type { ErrorCode } from '@kubik/contract';
import { ApiError } from '../../lib/api.ts';

/**
 * The server answers a taken name or address in English (`Username already exists`, `Email already
 * exists`, kept for spec §8); registration and the admin's user form show these Russian texts
 * instead, by the answer's code, next to the field at fault.
 */
const TAKEN: Partial<Record<ErrorCode, { text: string; field: string }>> = {
  email_exists: { text: 'Пользователь с такой почтой уже зарегистрирован.', field: 'email' },
  username_exists: { text: 'Пользователь с таким именем уже существует.', field: 'username' },
};

/** The server's answer in Russian, pointing at its field even when the server did not name it. */
export function accountError(err: unknown): ApiError {
  const e = err instanceof ApiError ? err : new ApiError(0, '');
  const taken = e.code && TAKEN[e.code];
  return taken ? new ApiError(e.status, taken.text, e.code, e.field ?? taken.field) : e;
}

/** Registration's texts (spec §8): the server decides what is valid, its words are shown as they come. */
export function registrationError(err: unknown): string {
  const e = err instanceof ApiError ? err : undefined;
  const taken = e?.code && TAKEN[e.code];
  if (taken) return taken.text;
  if (e?.message) return `Ошибка регистрации: ${e.message}`;
  return 'Ошибка регистрации. Попробуйте позже.';
}
