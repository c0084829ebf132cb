import type { ErrorCode } from '@kubik/contract';

/**
 * What the web does about an API error beyond showing its text, decided by the error's code
 * (the contract's ErrorCode), never by the text, which the server may reword:
 * - `relogin`: the session or token sent is no good; the app goes to /login (spec §7);
 * - `two_factor`: the login (or account deletion) needs the authenticator's code, or it was wrong;
 * - `unconfirmed`: login before the address was confirmed; a warning with the resend link (spec §8);
 * - `top_up`: the balance is short; the purchase offers «Пополнить баланс».
 * A feature's own mapping stays in the feature (registration's «taken» texts: features/accounts/errors.ts).
 * Only types come from the contract: lib/api.ts loads this on the first page, so it stays this small.
 */
export type ErrorReaction = 'relogin' | 'two_factor' | 'unconfirmed' | 'top_up';

const REACTIONS: Partial<Record<ErrorCode, ErrorReaction>> = {
  invalid_token: 'relogin',
  two_factor_required: 'two_factor',
  bad_two_factor_code: 'two_factor',
  email_not_confirmed: 'unconfirmed',
  insufficient_funds: 'top_up',
};

export function reactionTo(code: ErrorCode | undefined): ErrorReaction | undefined {
  return code === undefined ? undefined : REACTIONS[code];
}
