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

/**
 * The admin area: the owner or staff (someone with a permission). Which screen a staff member's
 * role opens is the admin frame's to check (app/admin/AdminLayout.tsx, a chunk of its own, so the
 * menu's list stays out of the first page's script); the server refuses the calls anyway.
 */
export function RequireAdmin({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  if (user === undefined) return <Loading />;
  if (!user) return <Redirect to="/login" replace />;
  if (user.permissions.length === 0) return <Redirect to="/" replace />;
  return children;
}
