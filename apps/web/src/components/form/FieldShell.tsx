import type { ReactNode } from 'react';

/*
 * The one shell of a field on the site: its label, the control, then its error, its warning and
 * its hint, each with an id the control names in aria-describedby (fieldDescribedBy). The form kit's
 * fields draw themselves in it, and so does a control outside a form (a search box, a filter,
 * a purchase's quantity), so every field looks and reads alike. No form library here: a guest's
 * page may use it without loading the kit.
 */

/** What the control's aria-describedby names: its error first, then its warning, then its hint. */
export function fieldDescribedBy(id: string, error?: ReactNode, hint?: ReactNode, warning?: ReactNode): string | undefined {
  return [error && `${id}-error`, warning && `${id}-note`, hint && `${id}-hint`].filter(Boolean).join(' ') || undefined;
}

/**
 * The error, the warning and the hint under a control (also under a checkbox or a group of
 * radios). A warning is news the value is taken with (a nickname nobody has played under): it is
 * announced as it appears.
 */
export function FieldNotes({ id, error, hint, warning }: { id: string; error?: ReactNode; hint?: ReactNode; warning?: ReactNode }) {
  return (
    <>
      {error && (
        <span className="field-error" id={`${id}-error`}>
          {error}
        </span>
      )}
      {warning && (
        <span className="field-warning" id={`${id}-note`} role="status">
          {warning}
        </span>
      )}
      {hint && (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
    </>
  );
}

export function FieldShell({
  id,
  label,
  hint,
  error,
  warning,
  required,
  className,
  children,
}: {
  /** The control's id: the label points at it; the notes' ids are made from it. */
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: ReactNode;
  warning?: ReactNode;
  /** Marks the label «*» (the control itself carries `required`, which screen readers announce). */
  required?: boolean;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={['field', error ? 'field-invalid' : '', className ?? ''].filter(Boolean).join(' ')}>
      <label htmlFor={id}>
        {label}
        {required && (
          <span className="field-required" aria-hidden="true">
            {' '}
            *
          </span>
        )}
      </label>
      {children}
      <FieldNotes id={id} error={error} hint={hint} warning={warning} />
    </div>
  );
}
