import { useId } from 'react';
import { useController } from 'react-hook-form';
import { fieldDescribedBy, FieldShell } from './FieldShell.tsx';
import { useFormMeta } from './Form.tsx';

const two = (n: number) => String(n).padStart(2, '0');
/** Epoch ms → the local «2026-12-01T14:05» a datetime-local input shows. */
const toLocal = (ms: number) => {
  const d = new Date(ms);
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
};

/** A moment (epoch ms, or null when empty) typed in the browser's local time. */
export function DateTimeField({ name, label, hint }: { name: string; label: string; hint?: string }) {
  const { field, fieldState } = useController({ name });
  useFormMeta().setLabel(name, label);
  const id = useId();
  const value = field.value as number | null | undefined;
  const error = fieldState.error?.message;
  return (
    <FieldShell id={id} label={label} hint={hint} error={error}>
      <input
        id={id}
        ref={field.ref}
        name={field.name}
        type="datetime-local"
        value={typeof value === 'number' && Number.isFinite(value) ? toLocal(value) : ''}
        aria-invalid={error ? true : undefined}
        aria-describedby={fieldDescribedBy(id, error, hint)}
        onBlur={field.onBlur}
        onChange={(e) => {
          const ms = e.target.value ? new Date(e.target.value).getTime() : null;
          field.onChange(ms === null || Number.isFinite(ms) ? ms : null);
        }}
      />
    </FieldShell>
  );
}
