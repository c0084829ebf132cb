import { useEffect, useId, useState, type ReactNode } from 'react';
import type { FieldValues, UseFormReturn } from 'react-hook-form';
import { Link } from 'wouter';
import { ApiError } from '../lib/api.ts';
import { formatRub } from '../lib/format.ts';
import { newIdempotencyKey, sendIdempotent } from '../lib/idempotency.ts';
import { TOPUP_PATH } from '../lib/paths.ts';
import { Form } from './form/Form.tsx';
import { Modal } from './Modal.tsx';
import './purchase-modal.css';

/*
 * The one confirmation of a purchase paid from the balance (an item, a tier; a cart later):
 *
 *   <PurchaseModal title="Подтверждение покупки" open={item !== null} onClose={close}>
 *     {item && <ItemForm key={item.id} … />}          // mounted per opening
 *   </PurchaseModal>
 *
 *   function ItemForm() {
 *     const form = useSchemaForm(BuyBody, { defaultValues });   // the form kit, the contract's schema
 *     return (
 *       <PurchaseForm form={form} total={…} balance={…} send={(body, key) => buyItem(body, key)} …>
 *         fields and the summary
 *       </PurchaseForm>
 *     );
 *   }
 *
 * PurchaseForm keeps one Idempotency-Key for as long as it is mounted (one opening): every try of
 * this purchase sends it, and a lost answer is asked again with it (lib/idempotency.ts). Errors
 * of a field stand next to it; the rest, and a short balance with the way to top it up, above the
 * buttons. It branches on the server's error code, never on its text.
 */

export function PurchaseModal({
  title,
  open,
  onClose,
  children,
}: {
  title: string;
  open: boolean;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <Modal open={open} title={title} onClose={onClose}>
      {children}
    </Modal>
  );
}

/** What every purchase answers. */
export interface PurchaseAnswer {
  new_balance: number;
  message: string;
}

export const PURCHASE_TEXTS = {
  noFunds: 'Недостаточно средств на балансе',
  failed: 'Ошибка при покупке',
} as const;

interface PurchaseFormProps<I extends FieldValues, O> {
  form: UseFormReturn<I, unknown, O>;
  className?: string;
  balance: number;
  /** Roubles the purchase takes as the form stands; null while unknown (nothing to compare with the balance). */
  total: number | null;
  /** Whether the form is complete enough to confirm (the shop: a quantity typed; a tier: its quote read). */
  ready?: boolean;
  /** Why this cannot be bought as it stands (e.g. a higher tier runs); shown, and confirming is off. */
  refusal?: string | null;
  send: (body: O, key: string) => Promise<PurchaseAnswer>;
  onClose: () => void;
  onBought: (newBalance: number, message: string) => void;
  /** After a refused purchase (the stock or the balance may have changed). */
  onFailed?: (error: ApiError) => void;
  children: ReactNode;
}

export function PurchaseForm<I extends FieldValues, O>({
  form,
  className = 'form purchase-form',
  balance,
  total,
  ready = true,
  refusal,
  send,
  onClose,
  onBought,
  onFailed,
  children,
}: PurchaseFormProps<I, O>) {
  const [key] = useState(newIdempotencyKey);
  const [failure, setFailure] = useState<ApiError | null>(null);
  const noticeId = useId();
  const processing = form.formState.isSubmitting;

  // A change of the purchase takes the last refusal's text away.
  useEffect(() => {
    const watching = form.watch(() => {
      form.clearErrors('root');
      setFailure(null);
    });
    return () => watching.unsubscribe();
  }, [form]);

  const insufficient = total !== null && balance < total;
  const serverError = form.formState.errors.root?.server?.message;
  const shown = refusal || (insufficient ? PURCHASE_TEXTS.noFunds : '') || serverError || '';
  const topUp = !refusal && (insufficient || (shown === serverError && failure?.code === 'insufficient_funds'));

  async function submit(body: O) {
    setFailure(null);
    try {
      const answer = await sendIdempotent(() => send(body, key));
      onBought(answer.new_balance, answer.message);
    } catch (err) {
      const known = err instanceof ApiError ? err : new ApiError(0, '');
      const error = known.message ? known : new ApiError(known.status, PURCHASE_TEXTS.failed, known.code, known.field);
      setFailure(error);
      onFailed?.(error);
      throw error;
    }
  }

  return (
    <Form form={form} onSubmit={submit} className={className} guard={false}>
      <fieldset className="purchase-fields" disabled={processing}>
        {children}
      </fieldset>

      {shown && (
        <p className="notice notice-danger purchase-notice" id={noticeId} role="alert">
          {shown}
          {topUp && (
            <>
              {' '}
              <Link to={TOPUP_PATH} onClick={onClose}>
                Пополнить баланс
              </Link>
            </>
          )}
        </p>
      )}

      <div className="form-actions">
        <button type="button" className="btn" onClick={onClose}>
          Отмена
        </button>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={processing || insufficient || !!refusal || !ready}
          aria-describedby={shown ? noticeId : undefined}
        >
          {/* The button says what it takes: the total shown above it, as the server counted it. */}
          {processing ? 'Покупаем…' : total !== null && ready ? `Подтвердить покупку за ${formatRub(total)}` : 'Подтвердить покупку'}
        </button>
      </div>
    </Form>
  );
}
