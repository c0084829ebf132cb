import { createRequire } from 'node:module';
import type * as LanguageCommon from '@zxcvbn-ts/language-common';
import { badRequest } from './errors.ts';

/**
 * Passwords the server refuses beyond the length rule: the ~49 000 most common
 * passwords of real leaks (the list zxcvbn-ts maintains in @zxcvbn-ts/language-common), and a
 * password equal to the account's name or e-mail address (or the address's name part).
 */
let common: Set<string> | undefined;
// The package holds every zxcvbn dictionary (~14 MB resident once loaded): it loads with the first
// password checked, not when the site starts (the memory goal).
const require = createRequire(import.meta.url);

export const PASSWORD_TEXTS = {
  common: 'Этот пароль слишком распространён: его подбирают одним из первых. Придумайте другой — например, фразу из нескольких слов.',
  sameAsName: 'Пароль не должен совпадать с именем пользователя',
  sameAsEmail: 'Пароль не должен совпадать с адресом почты',
} as const;

export function isCommonPassword(password: string): boolean {
  common ??= new Set(
    (require('@zxcvbn-ts/language-common') as typeof LanguageCommon).dictionary['passwords-common'].map((p) => p.toLowerCase()),
  );
  return common.has(password.toLowerCase());
}

/** The reason a new password is refused, or null. */
export function passwordProblem(password: string, account: { username?: string; email?: string }): string | null {
  const lower = password.trim().toLowerCase();
  if (account.username && lower === account.username.toLowerCase()) return PASSWORD_TEXTS.sameAsName;
  if (account.email) {
    const email = account.email.trim().toLowerCase();
    if (lower === email || lower === email.split('@')[0]) return PASSWORD_TEXTS.sameAsEmail;
  }
  if (isCommonPassword(password) || isCommonPassword(password.trim())) return PASSWORD_TEXTS.common;
  return null;
}

/** Throws the 400 `weak_password` beside `field` when the password is refused. */
export function checkNewPassword(password: string, account: { username?: string; email?: string }, field: string): void {
  const problem = passwordProblem(password, account);
  if (problem) throw badRequest(problem, { code: 'weak_password', field });
}
