import { lazy, Suspense, useCallback, useEffect, useId, useRef, useState } from 'react';
import { useDismiss } from '../components/useDismiss.ts';
import { Link, useLocation } from 'wouter';
import { NavLink } from '../components/NavLink.tsx';
import { formatRub } from '../lib/format.ts';
import { TOPUP_PATH } from '../lib/paths.ts';
import { useAuth } from '../providers/auth.tsx';
import { Avatar } from './Avatar.tsx';
import { loadAuthPages } from './auth-pages.ts';
import { useSite } from '../providers/site.tsx';
import { usePageLinks } from '../features/pages/api.ts';

const CartLink = lazy(() => import('./CartLink.tsx'));
// The bell and its live stream load after the page, for signed-in players only (first-page budget).
const Bell = lazy(() => import('../features/notices/Bell.tsx'));

const LINKS = [
  { to: '/', label: 'Главная', end: true },
  { to: '/servers', label: 'Серверы' },
  { to: '/help', label: 'Помощь' },
  { to: '/donate', label: 'Донат' },
  { to: '/shop', label: 'Магазин' },
  { to: '/rules', label: 'Правила' },
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
          <div className="header-account">{user === undefined ? null : user ? <ProfileMenu /> : <GuestLinks />}</div>
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
  return (
    <div className="row guest-links" onPointerEnter={load} onPointerDown={load} onFocus={load}>
      <Link to="/register" className="btn btn-ghost">
        Регистрация
      </Link>
      <Link to="/login" className="btn btn-primary">
        Вход
      </Link>
    </div>
  );
}

function ProfileMenu() {
  const { user, refresh, logout } = useAuth();
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const menuId = useId();
  const [pathname] = useLocation();
  useEffect(() => setOpen(false), [pathname]);
  const close = useCallback(() => setOpen(false), []);
  useDismiss(box, open, close);
  if (!user) return null;
  return (
    <div className="profile-menu" ref={box} onPointerEnter={refresh} onFocus={refresh}>
      <button
        type="button"
        className="profile-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => setOpen((v) => !v)}
      >
        <Avatar username={user.username} size={32} />
        <span className="profile-name" data-testid="header-username">
          {user.username}
        </span>
      </button>
      {/* The balance is the way to top it up (a link of its own: a link cannot sit inside the menu's button). */}
      <Link
        to={TOPUP_PATH}
        className="profile-balance"
        data-testid="header-balance"
        aria-label={`Баланс ${formatRub(user.balance)} — пополнить`}
        title="Пополнить баланс"
      >
        {formatRub(user.balance)}
      </Link>
      {open && (
        <div className="menu" id={menuId} role="menu">
          <Link role="menuitem" to="/profile">
            Личный кабинет
          </Link>
          <Link role="menuitem" to={TOPUP_PATH}>
            Пополнить баланс
          </Link>
          <Link role="menuitem" to="/support">
            Поддержка
          </Link>
          <Link role="menuitem" to="/shop">
            Магазин
          </Link>
          {user.permissions.length > 0 && (
            <Link role="menuitem" to="/admin">
              Админ-панель
            </Link>
          )}
          <button role="menuitem" type="button" onClick={() => void logout()}>
            Выйти
          </button>
        </div>
      )}
    </div>
  );
}
