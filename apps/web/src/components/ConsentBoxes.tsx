import { CONSENT_TEXT, type ConsentKind } from '@kubik/contract';
import { useState } from 'react';
import { Link } from 'wouter';
import { FieldNotes } from './form/FieldShell.tsx';
import { useLegal } from '../providers/legal.ts';

const DOC_OF: Partial<Record<ConsentKind, string>> = { offer: '/legal/offer', privacy: '/legal/privacy' };

/**
 * Separate, not pre-ticked checkboxes for the consents asked (registration, before paying), each
 * with its error under it; the document's name links to its published text.
 */
export function ConsentBoxes({
  asked,
  ticked,
  errors,
  onChange,
}: {
  asked: readonly ConsentKind[];
  ticked: readonly ConsentKind[];
  errors: Partial<Record<ConsentKind, string>>;
  onChange: (next: ConsentKind[]) => void;
}) {
  const legal = useLegal();
  if (asked.length === 0) return null;
  return (
    <div className="stack consent-boxes" data-testid="consents">
      {asked.map((kind) => {
        const id = `consent-${kind}`;
        const error = errors[kind];
        const doc = DOC_OF[kind];
        const published = legal?.documents.some((d) => d.kind === kind);
        return (
          <div key={kind} className={error ? 'field field-check field-invalid' : 'field field-check'}>
            <label className="checkbox">
              <input
                id={id}
                type="checkbox"
                name={id}
                checked={ticked.includes(kind)}
                aria-invalid={error ? true : undefined}
                aria-describedby={error ? `${id}-error` : undefined}
                onChange={(e) => onChange(e.target.checked ? [...ticked, kind] : ticked.filter((k) => k !== kind))}
              />
              {CONSENT_TEXT[kind]}
              {doc && published && (
                <>
                  {' '}
                  (
                  <Link to={doc} target="_blank">
                    текст
                  </Link>
                  )
                </>
              )}
            </label>
            <FieldNotes id={id} error={error} />
          </div>
        );
      })}
    </div>
  );
}

/** What a missing tick says, beside its box. */
export const CONSENT_MISSING: Record<ConsentKind, string> = {
  privacy: 'Отметьте согласие на обработку персональных данных',
  offer: 'Примите условия публичной оферты',
  age: 'Подтвердите возраст или согласие родителей',
};

/**
 * The consents a guest paying for a nickname ticks: once the owner has published the offer or
 * the policy, those and the age mark, on every order (no account remembers them). `check()` puts
 * each missing tick's error beside its box and says whether the order may go.
 */
export function useGuestConsents() {
  const legal = useLegal();
  const docs = (legal?.documents ?? []).map((d) => d.kind).filter((k): k is 'offer' | 'privacy' => k === 'offer' || k === 'privacy');
  const asked: ConsentKind[] = docs.length > 0 ? [...docs, 'age'] : [];
  const [ticked, setTicked] = useState<ConsentKind[]>([]);
  const [errors, setErrors] = useState<Partial<Record<ConsentKind, string>>>({});
  const check = () => {
    const missing = asked.filter((k) => !ticked.includes(k));
    setErrors(Object.fromEntries(missing.map((k) => [k, CONSENT_MISSING[k]])));
    return missing.length === 0;
  };
  const given = asked.length > 0 ? ticked.filter((k) => asked.includes(k)) : undefined;
  const boxes = <ConsentBoxes asked={asked} ticked={ticked} errors={errors} onChange={setTicked} />;
  return { given, check, boxes };
}
