import { useId, type ReactNode } from 'react';
import './admin.css';

/** One admin screen: its heading with the screen's buttons beside it, then the content. */
export function AdminSection({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  const headingId = useId();
  return (
    <section className="stack" aria-labelledby={headingId}>
      <div className="admin-section-head">
        <h2 id={headingId}>{title}</h2>
        {actions && <div className="admin-actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}
