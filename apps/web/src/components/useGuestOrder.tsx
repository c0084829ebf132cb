import type { ConsentKind } from '@kubik/contract';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { ApiError } from '../lib/api.ts';
import { errorPlace, nextStep, type GuestNextStep, type GuestOrderAnswer } from '../lib/guest-order.ts';
import { useGuestConsents } from './ConsentBoxes.tsx';
import { fieldDescribedBy, FieldShell } from './form/FieldShell.tsx';

/**
 * What a guest's order form does, shared by /shop and /donate: the consents, one order per click
 * (a second click before React re-renders makes none), the refusals beside the fields they name,
 * and the step after the order (straight to the provider, or a stop that says why, offering the
 * same payment). `field` draws one of the form's fields in the site's field shell, its refusal and
 * its warning beside it.
 */
export function useGuestOrder<F extends string>({
  fields,
  idOf,
  create,
  shown,
}: {
  fields: readonly F[];
  /** The id of a field's control: a refusal focuses it, so its label and error are read out. */
  idOf: (field: F) => string;
  /** Makes the order with the consents given. */
  create: (consents: ConsentKind[] | undefined) => Promise<GuestOrderAnswer>;
  /** The sum the form shows before «Оплатить», or null when it shows none. */
  shown: number | null;
}) {
  const [errors, setErrors] = useState<Partial<Record<F | 'form', string>>>({});
  const [step, setStep] = useState<GuestNextStep | null>(null);
  const consents = useGuestConsents();
  const sending = useRef(false);
  const order = useMutation({
    mutationFn: () => create(consents.given),
    onSuccess: (r) => {
      const next = nextStep(r, shown);
      if (next.go) return window.location.assign(next.go);
      sending.current = false;
      setStep(next);
    },
    onError: (err) => {
      sending.current = false;
      const place = errorPlace(err instanceof ApiError ? err.field : undefined, fields);
      setErrors({ [place]: err instanceof ApiError ? err.message : 'Не удалось создать заказ' } as Partial<Record<F | 'form', string>>);
    },
  });
  useEffect(() => {
    const first = fields.find((f) => errors[f]);
    if (first) document.getElementById(idOf(first))?.focus();
    // Only a new set of refusals moves the focus.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [errors]);
  /** `refusal`: what the form itself refuses before any order (a field and its text), or null. */
  const submit = (e: FormEvent, refusal?: Partial<Record<F, string>> | null) => {
    e.preventDefault();
    if (sending.current) return;
    setErrors({});
    setStep(null);
    if (refusal) return setErrors(refusal as Partial<Record<F | 'form', string>>);
    if (!consents.check()) return;
    sending.current = true;
    order.mutate();
  };
  /** Changing what was ordered drops the stop: the next «Оплатить» makes the order anew. */
  const changed = () => setStep(null);
  const field = (name: F, label: string, control: (describedBy: string | undefined) => ReactNode, warning?: string | null) => (
    <FieldShell id={idOf(name)} label={label} error={errors[name]} warning={warning}>
      {control(fieldDescribedBy(idOf(name), errors[name], undefined, warning))}
    </FieldShell>
  );
  return { errors, step, consents, submit, changed, field, busy: order.isPending || (order.isSuccess && step === null) };
}
