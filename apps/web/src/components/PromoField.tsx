import { useId } from 'react';
import { useController } from 'react-hook-form';
import { ApiError } from '../lib/api.ts';
import { formatRub } from '../lib/format.ts';
import { fieldDescribedBy, FieldShell } from './form/FieldShell.tsx';
import { useFormMeta } from './form/Form.tsx';

/*
 * The promo code of a purchase from the balance (the shop's item and cart, a tier): the form's
 * field `promo_code` with «Применить». Applying a code asks the purchase's own preview (the shop's
 * GET /api/shop/promo/{code}?lines=…, a tier's quote) for the total with it; only an applied code
 * is sent with the purchase, so the price shown before «Подтвердить» is the price taken. A code
 * typed but not applied holds the purchase back until it is applied or cleared.
 */

/** What the purchase's preview said about the applied code. */
export interface PromoPreviewState {
  /** The code applied with «Применить» (as typed); null: none. */
  applied: string | null;
  /** The preview is being asked. */
  checking: boolean;
  /** Why the code does not apply to this purchase (the preview's refusal), beside the field. */
  error: string | null;
  /** «Скидка 20 % на привилегии», and the roubles it takes off. */
  text: string | null;
  discount: number | null;
}

/** The refusal of a preview that is about the code (its field, or a promo_* code); other refusals are the purchase's own. */
export function promoRefusal(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null;
  if (error.field === 'promo_code' || error.code?.startsWith('promo_')) return error.message || 'Промокод не подходит';
  return null;
}

/** Whether the typed code waits for «Применить» (the purchase is held back meanwhile). */
export function promoWaiting(typed: string | undefined, applied: string | null): boolean {
  const code = typed?.trim() ?? '';
  return code !== '' && code !== applied;
}

export function PromoField({ state, onApply }: { state: PromoPreviewState; onApply: (code: string | null) => void }) {
  const name = 'promo_code';
  const { field, fieldState } = useController({ name });
  useFormMeta().setLabel(name, 'Промокод');
  const id = useId();
  const value = (field.value as string | undefined) ?? '';
  const typed = value.trim();
  const error = fieldState.error?.message ?? (typed === state.applied ? state.error : null);
  const hint = error
    ? undefined
    : promoWaiting(value, state.applied)
      ? 'Нажмите «Применить», чтобы учесть промокод в цене.'
      : state.checking
        ? 'Проверяем промокод…'
        : state.text && (
            <span className="promo-ok" data-testid="promo-ok">
              {state.text}
              {state.discount ? `: −${formatRub(state.discount)}` : ''}
            </span>
          );
  const apply = () => {
    if (typed) onApply(typed);
  };
  return (
    <FieldShell id={id} label="Промокод (необязательно)" error={error} hint={hint}>
      <div className="promo-row">
        <input
          id={id}
          ref={field.ref}
          name={field.name}
          type="text"
          autoComplete="off"
          spellCheck={false}
          value={value}
          aria-invalid={error ? true : undefined}
          aria-describedby={fieldDescribedBy(id, error, hint)}
          onBlur={field.onBlur}
          onChange={(e) => {
            field.onChange(e.target.value);
            if (state.applied !== null) onApply(null);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              apply();
            }
          }}
        />
        <button type="button" className="btn" disabled={!typed || state.checking || typed === state.applied} onClick={apply}>
          Применить
        </button>
      </div>
    </FieldShell>
  );
}
