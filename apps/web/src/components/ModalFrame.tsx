import { useEffect, useId, useRef, type ReactNode } from 'react';
import { offerToastHost } from '../lib/dialogs.ts';

export interface ModalFrameProps {
  open: boolean;
  title: string;
  /** Escape, × or a click on the backdrop: the frame asks to be closed; the owner decides. */
  onClose: () => void;
  children: ReactNode;
  wide?: boolean;
}

/** What a modal focuses when it opens: a control marked for it, else its first field. */
const FIRST_FIELD = '[data-autofocus], input:not([type="hidden"]):not(:disabled), select:not(:disabled), textarea:not(:disabled)';

/**
 * The site's modal itself, a native <dialog>: focus trap, Esc and the backdrop come from the
 * browser. On opening it focuses its first field (the browser alone would focus the close button,
 * the first control), and it hosts the notifications while it is open (lib/dialogs.ts). It knows
 * nothing of forms: Modal.tsx is this frame with the unsaved-text question before closing, and
 * the question itself (DiscardDialog.tsx) stands in a bare frame, so neither needs the other.
 */
export function ModalFrame({ open, title, onClose, children, wide }: ModalFrameProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const body = useRef<HTMLDivElement>(null);
  const toasts = useRef<HTMLDivElement>(null);
  const titleId = useId();
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
        onClose();
      }}
      onClick={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
    >
      {open && (
        <>
          <div className="modal-head">
            <h2 id={titleId}>{title}</h2>
            <button type="button" className="icon-button" aria-label="Закрыть" onClick={onClose}>
              ×
            </button>
          </div>
          <div className="modal-body" ref={body}>
            {children}
          </div>
        </>
      )}
      <div ref={toasts} />
    </dialog>
  );
}
