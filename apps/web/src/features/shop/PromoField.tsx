import type { PromoPreview } from '@kubik/contract';
import { useId, useState } from 'react';
import { useController, useFormContext } from 'react-hook-form';
import { useFormMeta } from '../../components/form/Form.tsx';
import { ApiError } from '../../lib/api.ts';
import { previewPromo } from './api.ts';

/** Roubles a previewed code takes off the lines it covers (the server counts the same way when it is paid). */
export function estimateDiscount(
  promo: PromoPreview | null,
  lines: { itemId?: number; category?: string; amount: number }[],
  target: 'shop' | 'donate',
): number {
  if (!promo || promo.kind === 'topup_bonus' || (promo.applies_to !== 'all' && promo.applies_to !== target)) return 0;
  const covered = lines.filter(
    (l) =>
      (promo.item_ids === null || (l.itemId !== undefined && promo.item_ids.includes(l.itemId))) &&
      (promo.category === null || l.category?.toLowerCase() === promo.category.toLowerCase()),
  );
  const base = Math.round(covered.reduce((s, l) => s + l.amount, 0) * 100);
  if (base === 0 || (promo.min_total !== null && base < Math.round(promo.min_total * 100))) return 0;
  const off = promo.kind === 'percent' ? Math.floor((base * promo.value) / 100) : Math.min(base, Math.round(promo.value * 100));
  return off / 100;
}

/**
 * The promo code of a purchase form (field `promo_code`): «Применить» asks the server what it
 * gives and shows it, or why not, next to the field; the purchase itself checks it again.
 */
export function PromoField({ onPreview }: { onPreview: (promo: PromoPreview | null) => void }) {
  const name = 'promo_code';
  const { field, fieldState } = useController({ name });
  const { setError, clearErrors } = useFormContext();
  useFormMeta().setLabel(name, 'Промокод');
  const id = useId();
  const [applied, setApplied] = useState<PromoPreview | null>(null);
  const [checking, setChecking] = useState(false);
  const value = (field.value as string | undefined) ?? '';
  const error = fieldState.error?.message;

  async function apply() {
    if (!value.trim()) return;
    setChecking(true);
    try {
      const promo = await previewPromo(value);
      setApplied(promo);
      onPreview(promo);
      clearErrors(name);
    } catch (err) {
      setApplied(null);
      onPreview(null);
      setError(name, { type: 'server', message: err instanceof ApiError && err.message ? err.message : 'Не удалось проверить промокод' });
    } finally {
      setChecking(false);
    }
  }

  return (
    <div className={error ? 'field field-invalid' : 'field'}>
      <label htmlFor={id}>Промокод</label>
      <div className="promo-row">
        <input
          id={id}
          ref={field.ref}
          name={field.name}
          type="text"
          autoComplete="off"
          value={value}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : applied ? `${id}-ok` : undefined}
          onBlur={field.onBlur}
          onChange={(e) => {
            field.onChange(e.target.value);
            setApplied(null);
            onPreview(null);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              void apply();
            }
          }}
        />
        <button type="button" className="btn" disabled={checking || !value.trim()} onClick={() => void apply()}>
          Применить
        </button>
      </div>
      {error ? (
        <span className="field-error" id={`${id}-error`}>
          {error}
        </span>
      ) : (
        applied && (
          <span className="hint promo-ok" id={`${id}-ok`} data-testid="promo-ok">
            {applied.text}
          </span>
        )
      )}
    </div>
  );
}
