import { Email, ForgotPasswordBody, LoginBody, NewPassword, ResetPasswordBody, Username } from '@kubik/contract';
import { z } from 'zod';

// The account forms' schemas, a chunk of their own: the forms import it when the player first
// touches the page (components/form/Form.tsx, SchemaSource), so that their first page, often a
// guest's, does not carry zod.

/** `email`: asked only for an account that came from the game server's AuthMe without one. */
export const LoginCredentials = LoginBody.pick({ username: true, password: true, code: true }).extend({
  email: z.union([z.literal(''), Email]).optional(),
});
/** The server's own rules (contract), the name trimmed as it always was before sending. */
export const Registration = z.object({ username: z.string().trim().pipe(Username), email: Email, password: NewPassword });
export { ForgotPasswordBody, ResetPasswordBody };
