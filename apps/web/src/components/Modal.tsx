import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { offerToastHost } from '../lib/dialogs.ts';
import { leaveIfAgreed, UnsavedScopeContext } from './unsaved.ts';

interface ModalProps {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
  wide?: boolean;
}

/** What a modal focuses when it opens: a control marked for it, else its first field. */
const FIRST_FIELD = '[data-autofocus], input:not([type="hidden"]):not(:disabled), select:not(:disabled), textarea:not(:disabled)';

/**
 * A native <dialog>: focus trap, Esc and the backdrop come from the browser. On opening it
 * focuses its first field (the browser alone would focus the close button, the first control),
 * and it hosts the notifications while it is open (lib/dialogs.ts). Escape, × and the backdrop
 * ask first while a form inside holds unsaved text (unsaved.ts).
 */
export function Modal({ open, title, onClose, children, wide }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const body = useRef<HTMLDivElement>(null);
  const toasts = useRef<HTMLDivElement>(null);
  const titleId = useId();
  // The forms inside register under this modal: closing it asks only about them.
  const [scope] = useState(() => ({}));
  const requestClose = () => leaveIfAgreed(scope, onClose);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog || !open) return;
    if (!dialog.open) dialog.showModal();
    body.current?.querySelector<HTMLElement>(FIRST_FIELD)?.focus();
    const release = offerToastHost(toasts.current!);
    return () => {
      release();
      if (dialog.open) dialog.close();
    };
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="modal"
      style={wide ? { width: 'min(820px, calc(100vw - 24px))' } : undefined}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        requestClose();
      }}
      onClick={(e) => {
        if (e.target === e.currentTarget) requestClose();
      }}
    >
      {open && (
        <>
          <div className="modal-head">
            <h2 id={titleId}>{title}</h2>
            <button type="button" className="icon-button" aria-label="Закрыть" onClick={requestClose}>
              ×
            </button>
          </div>
          <div className="modal-body" ref={body}>
            <UnsavedScopeContext.Provider value={scope}>{children}</UnsavedScopeContext.Provider>
          </div>
        </>
      )}
      <div ref={toasts} />
    </dialog>
  );
}
