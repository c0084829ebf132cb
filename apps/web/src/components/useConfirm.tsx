import { useCallback, useRef, useState, type ReactNode } from 'react';
import { Modal } from './Modal.tsx';

interface Ask {
  question: ReactNode;
  title: string;
  confirmLabel: string;
  danger: boolean;
}

export interface ConfirmOptions {
  title?: string;
  confirmLabel?: string;
  /** A destructive action: the confirm button is red. */
  danger?: boolean;
}

/**
 * The site's own confirmation dialog instead of the browser's window.confirm(): a Modal (focus
 * trap, Esc, the site's look) with «Отмена» and the action's button. `confirm()` resolves true
 * only when the action's button was pressed; render `dialog` once in the component.
 */
export function useConfirm(): { confirm: (question: ReactNode, options?: ConfirmOptions) => Promise<boolean>; dialog: ReactNode } {
  const [ask, setAsk] = useState<Ask | null>(null);
  const resolver = useRef<((yes: boolean) => void) | null>(null);
  const finish = useCallback((yes: boolean) => {
    resolver.current?.(yes);
    resolver.current = null;
    setAsk(null);
  }, []);
  const confirm = useCallback((question: ReactNode, options: ConfirmOptions = {}) => {
    resolver.current?.(false);
    setAsk({
      question,
      title: options.title ?? 'Подтвердите действие',
      confirmLabel: options.confirmLabel ?? 'Да',
      danger: options.danger ?? false,
    });
    return new Promise<boolean>((resolve) => {
      resolver.current = resolve;
    });
  }, []);
  const dialog = (
    <Modal open={ask !== null} title={ask?.title ?? ''} onClose={() => finish(false)}>
      <div className="stack" data-testid="confirm-dialog">
        <p>{ask?.question}</p>
        <div className="row">
          <button
            type="button"
            className={ask?.danger ? 'btn btn-danger' : 'btn btn-primary'}
            data-autofocus={ask?.danger ? undefined : true}
            onClick={() => finish(true)}
          >
            {ask?.confirmLabel}
          </button>
          {/* A destructive action starts on «Отмена»: Enter alone does no harm. */}
          <button type="button" className="btn" data-autofocus={ask?.danger ? true : undefined} onClick={() => finish(false)}>
            Отмена
          </button>
        </div>
      </div>
    </Modal>
  );
  return { confirm, dialog };
}
