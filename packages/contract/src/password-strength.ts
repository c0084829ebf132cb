// No zod here: the account forms' first page imports this file alone
// ('@kubik/contract/password-strength'), and must not carry the contract's schemas.

export const PASSWORD_MIN = 8;

export interface PasswordStrength {
  /** 0 refused, 1 weak, 2 fair, 3 strong. */
  score: 0 | 1 | 2 | 3;
  label: string;
  tip?: string;
}

// Patterns every guessing list tries first (the server also refuses a list of common passwords).
const OBVIOUS =
  /^(?:(.)\1+|\d+|(?:qwerty|йцукен|asdf|zxcv|1234|password|passw0rd|пароль|minecraft|майнкрафт|admin|letmein|iloveyou)\w{0,4})$/i;

/**
 * A rough strength hint for the password forms, computed in the browser as the player types.
 * Only a hint: the server decides (length, common passwords, name or e-mail).
 */
export function passwordStrength(password: string, others: (string | undefined)[] = []): PasswordStrength | null {
  if (!password) return null;
  const lower = password.toLowerCase();
  const same = others.some((o) => {
    const v = o?.trim().toLowerCase();
    return !!v && (v === lower || v.split('@')[0] === lower);
  });
  if (same)
    return { score: 0, label: 'Совпадает с именем или почтой', tip: 'Пароль не должен повторять имя пользователя или адрес почты.' };
  if (password.length < PASSWORD_MIN) return { score: 0, label: 'Слишком короткий', tip: `Нужно не меньше ${PASSWORD_MIN} символов.` };
  const classes = [/[a-zа-яё]/, /[A-ZА-ЯЁ]/, /\d/, /[^\p{L}\d]/u].filter((re) => re.test(password)).length;
  const tip = 'Длинная фраза из нескольких слов надёжнее коротких замен букв на цифры.';
  if (OBVIOUS.test(password) || new Set(password).size <= 3) return { score: 1, label: 'Слабый: такой пароль легко подобрать', tip };
  if (password.length >= 14 || (password.length >= 11 && classes >= 3)) return { score: 3, label: 'Надёжный' };
  if (password.length >= 10 || classes >= 3) return { score: 2, label: 'Средний', tip };
  return { score: 1, label: 'Слабый', tip };
}
