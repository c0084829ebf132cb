import { useMutation } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { ApiError } from '../lib/api.ts';
import { TextField } from './form/fields.tsx';

/** What a «Проверить подключение» answers: whether all is well, what is wrong, what was found. */
export interface ConnectionCheckResult {
  ok: boolean;
  problems: string[];
  notes: string[];
}

/**
 * The «Проверка» card of a screen that connects the site to another program's database (AuthMe,
 * a punishment plugin): a button that asks the server to try the saved address, then its verdict
 * with what is wrong and what was found. A refused request shows as one problem.
 */
export function ConnectionCheckPanel({
  headingId,
  check,
  intro,
  testId,
}: {
  /** The heading's id (the card is labelled by it), unique on the page. */
  headingId: string;
  check: () => Promise<ConnectionCheckResult>;
  /** What the check looks at, above the button. */
  intro?: string;
  testId?: string;
}) {
  const [result, setResult] = useState<ConnectionCheckResult | null>(null);
  const run = useMutation({
    mutationFn: check,
    onMutate: () => setResult(null),
    onSuccess: setResult,
    onError: (err) =>
      setResult({ ok: false, problems: [err instanceof ApiError && err.message ? err.message : 'Проверка не удалась'], notes: [] }),
  });
  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h3 id={headingId}>Проверка</h3>
      {intro && <p className="muted">{intro}</p>}
      <div>
        <button type="button" className="btn" onClick={() => run.mutate()} disabled={run.isPending}>
          {run.isPending ? 'Проверяем…' : 'Проверить подключение'}
        </button>
      </div>
      {result && (
        <div className={result.ok ? 'notice notice-success' : 'notice notice-danger'} role="status" data-testid={testId}>
          <p>{result.ok ? 'Подключение в порядке.' : 'Что не так:'}</p>
          {result.problems.length > 0 && (
            <ul>
              {result.problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          )}
          {result.notes.length > 0 && (
            <ul className="muted">
              {result.notes.map((n) => (
                <li key={n}>{n}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}

/**
 * The form's `database_url` field. The address holds the database's password, so only the owner
 * sees the field, and write-only (left empty, the saved address stays); anyone else reads
 * `readOnly` in its place. `children` are the owner's further fields beside it.
 */
export function DatabaseUrlField({
  owner,
  label,
  placeholder,
  hint,
  readOnly,
  children,
}: {
  owner: boolean;
  label: string;
  placeholder: string;
  hint: string;
  readOnly: ReactNode;
  children?: ReactNode;
}) {
  if (!owner) return <p className="muted">{readOnly}</p>;
  return (
    <>
      <TextField name="database_url" label={label} type="password" autoComplete="off" placeholder={placeholder} hint={hint} />
      {children}
    </>
  );
}
