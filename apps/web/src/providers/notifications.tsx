import { createContext, useCallback, useContext, useMemo, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { subscribeToastHost, toastHost } from '../lib/dialogs.ts';

export type NoticeType = 'success' | 'danger' | 'info' | 'warning';
interface Notice {
  id: number;
  type: NoticeType;
  text: string;
  /** Date.now() when it appeared. */
  at: number;
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
      setNotices((list) => [...list.slice(-4), { id, type, text, at: Date.now() }]);
      timers.current.set(
        id,
        window.setTimeout(() => close(id), NOTICE_MS),
      );
    },
    [close],
  );

  const value = useMemo(() => notify, [notify]);
  // Inside the open modal, if any: outside it a toast would be under its backdrop (lib/dialogs.ts).
  const host = useSyncExternalStore(subscribeToastHost, toastHost, () => null);
  const region = (
    <div className="toasts" aria-live="polite" aria-relevant="additions">
      {notices.map((n) => (
        <div key={n.id} className={`toast toast-${n.type}`} role={n.type === 'danger' ? 'alert' : 'status'} data-type={n.type}>
          <p>{n.text}</p>
          <button type="button" className="icon-button" aria-label="Закрыть уведомление" onClick={() => close(n.id)}>
            ×
          </button>
          {/* Moving into or out of a dialog re-creates the toast: its bar goes on from where it was. */}
          <span
            className="toast-progress"
            style={{ animationDuration: `${NOTICE_MS}ms`, animationDelay: `${n.at - Date.now()}ms` }}
            aria-hidden="true"
          />
        </div>
      ))}
    </div>
  );
  return (
    <NotifyContext.Provider value={value}>
      {children}
      {host ? createPortal(region, host) : region}
    </NotifyContext.Provider>
  );
}
