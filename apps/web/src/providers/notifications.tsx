import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';

export type NoticeType = 'success' | 'danger' | 'info' | 'warning';
interface Notice {
  id: number;
  type: NoticeType;
  text: string;
}

export const NOTICE_MS = 5000;

const NotifyContext = createContext<(type: NoticeType, text: string) => void>(() => {});

export function useNotify() {
  return useContext(NotifyContext);
}

export function NotificationsProvider({ children }: { children: ReactNode }) {
  const [notices, setNotices] = useState<Notice[]>([]);
  const nextId = useRef(1);
  const timers = useRef(new Map<number, number>());

  const close = useCallback((id: number) => {
    setNotices((list) => list.filter((n) => n.id !== id));
    window.clearTimeout(timers.current.get(id));
    timers.current.delete(id);
  }, []);

  const notify = useCallback(
    (type: NoticeType, text: string) => {
      const id = nextId.current++;
      setNotices((list) => [...list.slice(-4), { id, type, text }]);
      timers.current.set(id, window.setTimeout(() => close(id), NOTICE_MS));
    },
    [close],
  );

  const value = useMemo(() => notify, [notify]);
  return (
    <NotifyContext.Provider value={value}>
      {children}
      <div className="toasts" aria-live="polite" aria-relevant="additions">
        {notices.map((n) => (
          <div key={n.id} className={`toast toast-${n.type}`} role={n.type === 'danger' ? 'alert' : 'status'} data-type={n.type}>
            <p>{n.text}</p>
            <button type="button" className="icon-button" aria-label="Закрыть уведомление" onClick={() => close(n.id)}>
              ×
            </button>
            <span className="toast-progress" style={{ animationDuration: `${NOTICE_MS}ms` }} aria-hidden="true" />
          </div>
        ))}
      </div>
    </NotifyContext.Provider>
  );
}
