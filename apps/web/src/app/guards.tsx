import type { ReactNode } from 'react';
import { Redirect, useLocation } from 'wouter';
import { Loading } from '../components/States.tsx';
import { useAuth } from '../providers/auth.tsx';

/** Login, registration and recovery: a logged-in user goes home instead. */
export function GuestOnly({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  if (user === undefined) return <Loading />;
  if (user) return <Redirect to="/" replace />;
  return children;
}

export function RequireUser({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  const [pathname] = useLocation();
  if (user === undefined) return <Loading />;
  if (!user) return <Redirect to="/login" replace state={{ from: pathname }} />;
  return children;
}
