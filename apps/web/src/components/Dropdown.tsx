import { useCallback, useId, useRef, useState, type ReactNode } from 'react';
import { useDismiss } from './useDismiss.ts';

interface DropdownProps {
  /** Accessible name of the trigger, e.g. 'Действия с сервером «Лобби»'. */
  label: string;
  /** What the trigger shows; '...' by default. */
  trigger?: ReactNode;
  children: ReactNode | ((close: () => void) => ReactNode);
}

/** A '...' button with a panel that closes on an outside click, Esc, or from inside via close(). */
export function Dropdown({ label, trigger = '...', children }: DropdownProps) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const panelId = useId();
  const close = useCallback(() => setOpen(false), []);
  useDismiss(box, open, close);
  return (
    <div className="dropdown" ref={box}>
      <button
        type="button"
        className="btn btn-small"
        aria-label={label}
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((v) => !v)}
      >
        {trigger}
      </button>
      {open && (
        <div className="menu dropdown-panel" id={panelId}>
          {typeof children === 'function' ? children(close) : children}
        </div>
      )}
    </div>
  );
}
