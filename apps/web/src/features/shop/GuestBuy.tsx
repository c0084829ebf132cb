import type { ShopItem } from '@kubik/contract';
import { useMutation, useQuery } from '@tanstack/react-query';
import { cloneElement, useRef, useState, type FormEvent, type ReactElement } from 'react';
import { useGuestConsents } from '../../components/ConsentBoxes.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatRub } from '../../lib/format.ts';
import { errorPlace, nextStep, type GuestNextStep } from '../../lib/guest-order.ts';
import { createGuestOrder } from './guest-api.ts';
import { fetchShop, SHOP_KEY } from './api.ts';

const FIELDS = ['nickname', 'email', 'shop_id', 'quantity', 'provider'] as const;
type Field = (typeof FIELDS)[number];

/**
 * Buying for a nickname without an account (when the owner allows it): the guest names the
 * player, gives an e-mail for the receipt and pays the provider; the item waits for that
 * nickname in the game. Each refusal is shown beside its field; a nickname nobody is known by is
 * warned about beside it before the payment page, the same payment offered.
 */
export function GuestBuy() {
  const items = useQuery({ queryKey: SHOP_KEY, queryFn: fetchShop });
  const [errors, setErrors] = useState<Partial<Record<Field | 'form', string>>>({});
  const [form, setForm] = useState({ nickname: '', email: '', shop_id: '', quantity: '1', provider: 'yookassa' });
  const [step, setStep] = useState<GuestNextStep | null>(null);
  const consents = useGuestConsents();
  // A second click before React re-renders must not make a second order.
  const sending = useRef(false);
  const order = useMutation({
    mutationFn: () =>
      createGuestOrder({
        nickname: form.nickname,
        email: form.email,
        shop_id: Number(form.shop_id),
        quantity: Number(form.quantity),
        provider: form.provider as 'yookassa' | 'tbank',
        consents: consents.given,
      }),
    onSuccess: (r) => {
      const next = nextStep(r, null);
      if (next.go) return window.location.assign(next.go);
      sending.current = false;
      setStep(next);
    },
    onError: (err) => {
      sending.current = false;
      const place = errorPlace(err instanceof ApiError ? err.field : undefined, FIELDS);
      setErrors({ [place]: err instanceof ApiError ? err.message : 'Не удалось создать заказ' });
    },
  });
  const list: ShopItem[] = items.data ?? [];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (sending.current) return;
    setErrors({});
    setStep(null);
    if (!form.shop_id) return setErrors({ shop_id: 'Выберите товар' });
    if (!consents.check()) return;
    sending.current = true;
    order.mutate();
  };
  const field = (name: Field, label: string, input: ReactElement<Record<string, unknown>>, note?: string | null) => {
    const described = [errors[name] ? `guest-${name}-error` : null, note ? `guest-${name}-note` : null].filter(Boolean).join(' ');
    return (
      <div className={`field${errors[name] ? ' field-invalid' : ''}`}>
        <label htmlFor={`guest-${name}`}>{label}</label>
        {cloneElement(input, {
          ...(described ? { 'aria-describedby': described } : {}),
          ...(errors[name] ? { 'aria-invalid': true } : {}),
        })}
        {errors[name] && (
          <p className="field-error" id={`guest-${name}-error`} role="alert">
            {errors[name]}
          </p>
        )}
        {note && (
          <p className="field-warning" id={`guest-${name}-note`} role="status">
            {note}
          </p>
        )}
      </div>
    );
  };
  // Changing what was ordered drops the stop: the next «Оплатить» makes the order anew.
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => {
    setForm({ ...form, [k]: e.target.value });
    setStep(null);
  };
  const busy = order.isPending || (order.isSuccess && step === null);
  return (
    <section className="card stack" aria-labelledby="guest-h" data-testid="guest-buy">
      <h2 id="guest-h">Купить для игрока без входа</h2>
      <p className="muted">Укажите ник игрока — покупка будет выдана ему в игре. Чек придёт на вашу почту.</p>
      <form className="stack guest-form" onSubmit={submit} noValidate>
        {field(
          'nickname',
          'Ник игрока',
          <input
            id="guest-nickname"
            autoComplete="off"
            value={form.nickname}
            onChange={set('nickname')}
            aria-invalid={!!errors.nickname}
          />,
          step?.warning,
        )}
        {field(
          'email',
          'Почта для чека',
          <input
            id="guest-email"
            type="email"
            autoComplete="email"
            value={form.email}
            onChange={set('email')}
            aria-invalid={!!errors.email}
          />,
        )}
        {field(
          'shop_id',
          'Товар',
          <select id="guest-shop_id" value={form.shop_id} onChange={set('shop_id')}>
            <option value="">— выберите —</option>
            {list.map((i) => (
              <option key={i.id} value={i.id}>
                {i.name} — {formatRub(i.price)}
              </option>
            ))}
          </select>,
        )}
        {field(
          'quantity',
          'Количество',
          <input
            id="guest-quantity"
            type="number"
            min={1}
            max={1000}
            inputMode="numeric"
            value={form.quantity}
            onChange={set('quantity')}
          />,
        )}
        {field(
          'provider',
          'Способ оплаты',
          <select id="guest-provider" value={form.provider} onChange={set('provider')}>
            <option value="yookassa">ЮKassa</option>
            <option value="tbank">Т-Банк</option>
          </select>,
        )}
        {consents.boxes}
        {errors.form && (
          <p className="field-error" role="alert">
            {errors.form}
          </p>
        )}
        {step?.payUrl ? (
          <a className="btn btn-primary" href={step.payUrl}>
            {step.warning ? 'Ник верный — оплатить' : 'Оплатить'}
          </a>
        ) : (
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? 'Переходим к оплате…' : 'Оплатить'}
          </button>
        )}
      </form>
    </section>
  );
}
