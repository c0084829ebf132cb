import { lazy, useEffect, useState, type ComponentType, type ReactNode } from 'react';
import { Redirect, useLocation } from 'wouter';
import { NavLink } from '../../components/NavLink.tsx';
import { Loading } from '../../components/States.tsx';
import { AdminTwoFactorGate } from '../../features/security/AdminTwoFactorGate.tsx';
import { useAuth } from '../../providers/auth.tsx';
import { ADMIN_GROUPS, allowedSections, sectionAt } from './sections.ts';
import '../../components/admin/admin.css';

export { default as AdminStaffPage } from '../../features/staff/AdminStaffPage.tsx';

/**
 * Screens this chunk routes itself (router.tsx has no entry for them): a new admin screen adds
 * nothing to the first page's JavaScript, whose budget is spent.
 */
const FRAME_SCREENS: Record<string, ComponentType> = {
  '/admin/votes': lazy(() => import('./AdminGrowthPage.tsx')),
  '/admin/launcher': lazy(() => import('../../features/help/AdminLauncherPage.tsx')),
  '/admin/support': lazy(() => import('../../features/support/AdminSupportPage.tsx')),
};

/**
 * The admin area's frame: a sidebar of the screens grouped by what they are about, showing only
 * those the caller's permissions open (the server checks each call anyway); on a phone it folds
 * into a «Разделы» button. Each screen is a chunk of its own (router.tsx).
 */
export default function AdminLayout({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  const [path] = useLocation();
  const Screen = FRAME_SCREENS[path];
  const [open, setOpen] = useState(false);
  // A chosen screen folds the phone's menu again.
  useEffect(() => setOpen(false), [path]);
  const permissions = user?.permissions ?? [];
  const groups = ADMIN_GROUPS.map((g) => ({ ...g, sections: g.sections.filter((s) => permissions.includes(s.permission)) })).filter(
    (g) => g.sections.length > 0,
  );
  const current = groups.flatMap((g) => g.sections).find((s) => path === s.to || (!s.end && path.startsWith(`${s.to}/`)));
  // The owner or staff only (someone with a permission); the server refuses everyone else anyway.
  if (user === undefined) return <Loading />;
  if (!user) return <Redirect to="/login" replace />;
  if (permissions.length === 0) return <Redirect to="/" replace />;
  // A screen outside the role: the first one it opens instead.
  const permission = sectionAt(path)?.permission;
  if (!permission || !permissions.includes(permission)) return <Redirect to={allowedSections(permissions)[0]?.to ?? '/'} replace />;
  // Each section sets its own title; a layout title would overwrite theirs (parents' effects run last).
  return (
    <div className="stack admin">
      <h1>Админ-панель</h1>
      <div className="admin-frame">
        <nav className="admin-sidebar" aria-label="Разделы админ-панели">
          <button
            type="button"
            className="btn btn-small admin-sidebar-toggle"
            aria-expanded={open}
            aria-controls="admin-sidebar-groups"
            onClick={() => setOpen((o) => !o)}
          >
            {open ? 'Скрыть разделы' : `Разделы${current ? `: ${current.label}` : ''}`}
          </button>
          <div id="admin-sidebar-groups" className={open ? 'admin-sidebar-groups open' : 'admin-sidebar-groups'}>
            {groups.map((g) => (
              <div key={g.title} className="admin-sidebar-group">
                <p className="admin-sidebar-title">{g.title}</p>
                <ul>
                  {g.sections.map((s) => (
                    <li key={s.to}>
                      <NavLink to={s.to} end={s.end}>
                        {s.label}
                      </NavLink>
                    </li>
                  ))}
                </ul>
              </div>
            ))}
            {user?.role && <p className="muted admin-sidebar-role">Ваша роль: {user.role}</p>}
          </div>
        </nav>
        <div className="admin-content stack">
          <AdminTwoFactorGate>{Screen ? <Screen /> : children}</AdminTwoFactorGate>
        </div>
      </div>
    </div>
  );
}
