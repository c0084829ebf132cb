import { isLocalPath } from '@kubik/contract/local-path';
import type { ReactNode } from 'react';
import { Redirect, useLocation, useSearchParams } from 'wouter';
import { Loading } from '../components/States.tsx';
import { useAuth } from '../providers/auth.tsx';

/**
 * Login, registration and recovery: a logged-in user goes home instead — or where the link said
 * to go after logging in (`next`, a page of this site: the confirmation letter's way back).
 */
export function GuestOnly({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  const [params] = useSearchParams();
  if (user === undefined) return <Loading />;
  if (user) {
    const next = params.get('next');
    return <Redirect to={isLocalPath(next) ? next : '/'} replace />;
  }
  return children;
}

export function RequireUser({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  const [pathname] = useLocation();
  if (user === undefined) return <Loading />;
  if (!user) return <Redirect to="/login" replace state={{ from: pathname }} />;
  return children;
}
