import { lazy, Suspense, useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { NavLink } from '../components/NavLink.tsx';
import { useAuth } from '../providers/auth.tsx';
import { loadAuthPages } from './auth-pages.ts';
import { useSite } from '../providers/site.tsx';
import { usePageLinks } from '../features/pages/api.ts';

const CartLink = lazy(() => import('./CartLink.tsx'));
// A signed-in player's menu (name, balance, links): off a guest's first page, like the bell.
const ProfileMenu = lazy(() => import('./ProfileMenu.tsx'));
// The bell and its live stream load after the page, for signed-in players only (first-page budget).
const Bell = lazy(() => import('../features/notices/Bell.tsx'));

const AUTH_PATHS = ['/login', '/register', '/forgot-password', '/reset-password', '/setup'];

const LINKS = [
  { to: '/', label: 'Главная', end: true },
  { to: '/servers', label: 'Серверы' },
  { to: '/help', label: 'Помощь' },
  { to: '/donate', label: 'Донат' },
  { to: '/shop', label: 'Магазин' },
  { to: '/rules', label: 'Правила' },
  { to: '/bans', label: 'Наказания' },
];

export function Header() {
  const site = useSite();
  const menuPages = usePageLinks('menu');
  const { user } = useAuth();
  const [navOpen, setNavOpen] = useState(false);
  const [pathname] = useLocation();
  useEffect(() => setNavOpen(false), [pathname]);

  return (
    <header className="site-header">
      <div className="container header-inner">
        <Link to="/" className="brand" aria-label={`${site.name} — на главную`}>
          <img src={site.logo_url || '/favicon.svg'} alt="" width={28} height={28} className="pixelated" />
          <span>{site.name}</span>
        </Link>
        <button
          type="button"
          className="icon-button nav-toggle"
          aria-expanded={navOpen}
          aria-controls="main-nav"
          aria-label="Меню"
          onClick={() => setNavOpen((v) => !v)}
        >
          ☰
        </button>
        <nav id="main-nav" className={`main-nav${navOpen ? ' open' : ''}`} aria-label="Основная навигация">
          <ul>
            {LINKS.map((l) => (
              <li key={l.to}>
                <NavLink to={l.to} end={l.end}>
                  {l.label}
                </NavLink>
              </li>
            ))}
            {menuPages.map((p) => (
              <li key={p.slug}>
                <NavLink to={p.path}>{p.title}</NavLink>
              </li>
            ))}
          </ul>
          <div className="header-account">
            {user === undefined ? null : user ? (
              // The slot keeps the menu's place while its chunk loads, so nothing beside it moves.
              <Suspense fallback={<span className="profile-slot" aria-hidden="true" />}>
                <ProfileMenu />
              </Suspense>
            ) : (
              <GuestLinks />
            )}
          </div>
        </nav>
        <Suspense>
          <CartLink />
        </Suspense>
        {user && (
          // The bell's place is kept while its chunk loads: the account menu beside it must not
          // move under a player's finger (or a click) the moment the bell arrives.
          <Suspense fallback={<span className="bell-slot" aria-hidden="true" />}>
            <Bell />
          </Suspense>
        )}
      </div>
    </header>
  );
}

function GuestLinks() {
  // A guest is likely to log in or register next: the forms' chunk (with zod, ~70 KB) loads as soon
  // as a link is pointed at, touched or focused — not with the page, whose main thread it would
  // keep busy while the first screen is still coming in.
  const load = () => void loadAuthPages().catch(() => {});
  // Where the guest is, so that logging in (or registering, confirming and logging in) brings them back.
  const [pathname] = useLocation();
  const state = AUTH_PATHS.includes(pathname) ? undefined : { from: pathname };
  return (
    <div className="row guest-links" onPointerEnter={load} onPointerDown={load} onFocus={load}>
      <Link to="/register" state={state} className="btn btn-ghost">
        Регистрация
      </Link>
      <Link to="/login" state={state} className="btn btn-primary">
        Вход
      </Link>
    </div>
  );
}
