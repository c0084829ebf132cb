import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { useDismiss } from '../components/useDismiss.ts';
import { formatRub } from '../lib/format.ts';
import { TOPUP_PATH } from '../lib/paths.ts';
import { useAuth } from '../providers/auth.tsx';
import { Avatar } from './Avatar.tsx';

/** The header's menu of a signed-in player: avatar and name (the menu's button), the balance (a link to top it up), and the menu. */
export default function ProfileMenu() {
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
