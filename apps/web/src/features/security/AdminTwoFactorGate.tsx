import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { fetchTwoFactor, TWO_FACTOR_KEY } from './api.ts';

/**
 * The admin area's content, unless the owner requires two-factor login of administrators and
 * this one has not turned it on: then a note that sends them to the profile (the admin API would
 * answer 403 `two_factor_setup_required` anyway).
 */
export function AdminTwoFactorGate({ children }: { children: ReactNode }) {
  const status = useQuery({ queryKey: TWO_FACTOR_KEY, queryFn: fetchTwoFactor, staleTime: 30_000 });
  if (status.data?.required && !status.data.enabled) {
    return (
      <div className="notice notice-warning stack" role="alert" data-testid="admin-2fa-required">
        <p>Администраторам нужна двухфакторная защита. Включите её в личном кабинете, чтобы пользоваться админ-панелью.</p>
        <p>
          <Link to="/profile?tab=settings#two-factor" className="btn btn-primary">
            Включить двухфакторную защиту
          </Link>
        </p>
      </div>
    );
  }
  return <>{children}</>;
}
