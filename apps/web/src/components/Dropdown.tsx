import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

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
  useEffect(() => {
    if (!open) return;
    const onDown = (e: PointerEvent) => {
      if (!box.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(false);
    };
    document.addEventListener('pointerdown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  const close = () => setOpen(false);
  return (
    <div className="dropdown" ref={box}>
      <button type="button" className="btn btn-small" aria-label={label} aria-expanded={open} aria-controls={panelId} onClick={() => setOpen((v) => !v)}>
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
