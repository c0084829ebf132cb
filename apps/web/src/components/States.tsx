import type { ReactNode } from 'react';

export function Loading({ text = 'Загрузка...' }: { text?: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      {text}
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}
