import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';

/**
 * A link that marks itself (class `active`, `aria-current="page"`) while its page is open — or,
 * unless `end`, a page under it.
 */
export function NavLink({ to, end = false, className, children }: { to: string; end?: boolean; className?: string; children: ReactNode }) {
  const [path] = useLocation();
  const active = path === to || (!end && path.startsWith(`${to}/`));
  const classes = [className, active ? 'active' : ''].filter(Boolean).join(' ');
  return (
    <Link to={to} className={classes || undefined} aria-current={active ? 'page' : undefined}>
      {children}
    </Link>
  );
}
