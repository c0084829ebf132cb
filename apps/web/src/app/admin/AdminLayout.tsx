import { lazy, type ComponentType, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import { NavLink } from '../../components/NavLink.tsx';
import { AdminTwoFactorGate } from '../../features/security/AdminTwoFactorGate.tsx';
import '../../components/admin/admin.css';

/**
 * Screens this chunk routes itself (router.tsx gives their paths an empty <Admin>): a new admin
 * screen adds nothing to the first page's JavaScript, whose budget is spent.
 */
const FRAME_SCREENS: Record<string, ComponentType> = {
  '/admin/votes': lazy(() => import('./AdminGrowthPage.tsx')),
};

const SECTIONS = [
  { to: '/admin', label: 'Обзор', end: true },
  { to: '/admin/users', label: 'Пользователи' },
  { to: '/admin/news', label: 'Новости' },
  { to: '/admin/shop', label: 'Магазин' },
  { to: '/admin/payments', label: 'Платежи' },
  { to: '/admin/promo', label: 'Промокоды' },
  { to: '/admin/donate', label: 'Донат' },
  { to: '/admin/votes', label: 'Голосование' },
  { to: '/admin/servers', label: 'Серверы' },
  { to: '/admin/capes', label: 'Плащи' },
  { to: '/admin/media', label: 'Картинки' },
  { to: '/admin/game-login', label: 'Вход в игру' },
  { to: '/admin/settings', label: 'Настройки' },
  { to: '/admin/security', label: 'Безопасность' },
  { to: '/admin/pages', label: 'Страницы' },
  { to: '/admin/audit', label: 'Журнал изменений' },
];

/** The admin area's frame: its menu lists every feature's admin screen, each a chunk of its own (router.tsx). */
export default function AdminLayout({ children }: { children: ReactNode }) {
  const [location] = useLocation();
  const Screen = FRAME_SCREENS[location];
  // Each section sets its own title; a layout title would overwrite theirs (parents' effects run last).
  return (
    <div className="stack admin">
      <h1>Админ-панель</h1>
      <nav className="admin-nav" aria-label="Разделы админ-панели">
        {SECTIONS.map((s) => (
          <NavLink key={s.to} to={s.to} end={'end' in s} className="btn btn-small">
            {s.label}
          </NavLink>
        ))}
      </nav>
      <AdminTwoFactorGate>{Screen ? <Screen /> : children}</AdminTwoFactorGate>
    </div>
  );
}
