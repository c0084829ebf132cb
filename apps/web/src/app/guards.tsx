import type { Permission } from '@kubik/contract';
import type { ReactNode } from 'react';
import { allowedSections } from './admin/sections.ts';
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
 * The admin area: the owner, or a staff member whose role holds `permission`; a staff member
 * without it is sent to the first screen their role opens (the server refuses the calls anyway).
 */
export function RequireAdmin({ permission, children }: { permission: Permission; children: ReactNode }) {
  const { user } = useAuth();
  if (user === undefined) return <Loading />;
  if (!user) return <Redirect to="/login" replace />;
  if (user.permissions.length === 0) return <Redirect to="/" replace />;
  if (!user.permissions.includes(permission)) {
    const first = allowedSections(user.permissions)[0];
    return <Redirect to={first?.to ?? '/'} replace />;
  }
  return children;
}
