import { PASSWORD_MIN, passwordStrength } from '@kubik/contract/password-strength';
import type { ReactNode } from 'react';

const TONE = ['danger', 'danger', 'warning', 'success'] as const;

/**
 * The hint under a new-password field: the rule, then a strength estimate as the player types
 * (only a hint; the server refuses common passwords and the name or e-mail).
 */
export function PasswordHint({ password, others = [], extra }: { password: string; others?: (string | undefined)[]; extra?: ReactNode }) {
  const s = passwordStrength(password, others);
  return (
    <>
      Не короче {PASSWORD_MIN} символов; не используйте имя, почту и распространённые пароли.{extra ? <> {extra}</> : null}
      {s && (
        <span className={`password-strength password-strength-${TONE[s.score]}`} data-testid="password-strength">
          <span className="password-strength-bar" aria-hidden="true">
            {[1, 2, 3].map((i) => (
              <span key={i} className={i <= s.score ? 'on' : undefined} />
            ))}
          </span>
          Надёжность: {s.label}
          {s.tip ? `. ${s.tip}` : ''}
        </span>
      )}
    </>
  );
}
