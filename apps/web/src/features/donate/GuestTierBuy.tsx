import type { DonateTier } from '@kubik/contract';
import { useMutation } from '@tanstack/react-query';
import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useGuestConsents } from '../../components/ConsentBoxes.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatRub, plural } from '../../lib/format.ts';
import { errorPlace, nextStep, type GuestNextStep } from '../../lib/guest-order.ts';
import { createGuestTierOrder } from './guest-api.ts';
import { tierNow } from './tierNow.ts';

const FIELDS = ['nickname', 'email', 'months', 'provider'] as const;
type Field = (typeof FIELDS)[number];

const monthsText = (m: number) => `${m} ${plural(m, ['месяц', 'месяца', 'месяцев'])}`;

/**
 * A tier bought for a nickname without an account (when the owner allows it): the guest names the
 * player, gives an e-mail for the receipt, picks a period and a provider and pays there; the
 * privilege waits for that nickname in the game. Each refusal stands beside its field; an unknown
 * nickname or a price that moved stops the form before the payment page, with the same payment offered.
 */
export function GuestTierBuy({ tier }: { tier: DonateTier }) {
  const periods = tierNow(tier, Date.now()).periods;
  const [form, setForm] = useState({ nickname: '', email: '', months: String(periods[0]?.months ?? 1), provider: 'yookassa' });
  const [errors, setErrors] = useState<Partial<Record<Field | 'form', string>>>({});
  const [step, setStep] = useState<GuestNextStep | null>(null);
  const consents = useGuestConsents();
  // A second click before React re-renders must not make a second order.
  const sending = useRef(false);
  const shown = periods.find((p) => String(p.months) === form.months)?.total ?? null;
  const order = useMutation({
    mutationFn: () =>
      createGuestTierOrder(tier.id, {
        nickname: form.nickname,
        email: form.email,
        months: Number(form.months),
        provider: form.provider as 'yookassa' | 'tbank',
        consents: consents.given,
      }),
    onSuccess: (r) => {
      const next = nextStep(r, shown);
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
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (sending.current) return;
    setErrors({});
    setStep(null);
    if (!consents.check()) return;
    sending.current = true;
    order.mutate();
  };
  // Changing what was ordered drops the stop: the next «Оплатить» makes the order anew.
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => {
    setForm({ ...form, [k]: e.target.value });
    setStep(null);
  };
  const field = (name: Field, label: string, control: (described: string | undefined) => ReactNode, note?: string | null) => {
    const err = errors[name];
    const ids = [err ? `gt-${name}-error` : null, note ? `gt-${name}-note` : null].filter(Boolean).join(' ') || undefined;
    return (
      <div className={`field${err ? ' field-invalid' : ''}`}>
        <label htmlFor={`gt-${name}`}>{label}</label>
        {control(ids)}
        {err && (
          <p className="field-error" id={`gt-${name}-error`} role="alert">
            {err}
          </p>
        )}
        {note && (
          <p className="field-warning" id={`gt-${name}-note`} role="status">
            {note}
          </p>
        )}
      </div>
    );
  };
  const busy = order.isPending || (order.isSuccess && step === null);
  return (
    <form
      className="stack guest-form guest-tier-form"
      onSubmit={submit}
      noValidate
      data-testid="guest-tier-buy"
      aria-label={`${tier.title} для игрока`}
    >
      <p className="muted">Привилегия будет выдана игроку с этим ником в игре. Оплата — сразу у платёжной системы, чек придёт на почту.</p>
      {field(
        'nickname',
        'Ник игрока',
        (d) => (
          <input
            id="gt-nickname"
            autoComplete="off"
            autoCapitalize="off"
            spellCheck={false}
            value={form.nickname}
            onChange={set('nickname')}
            aria-invalid={!!errors.nickname}
            aria-describedby={d}
          />
        ),
        step?.warning,
      )}
      {field('email', 'Почта для чека', (d) => (
        <input
          id="gt-email"
          type="email"
          autoComplete="email"
          value={form.email}
          onChange={set('email')}
          aria-invalid={!!errors.email}
          aria-describedby={d}
        />
      ))}
      {field('months', 'Срок', (d) => (
        <select id="gt-months" value={form.months} onChange={set('months')} aria-invalid={!!errors.months} aria-describedby={d}>
          {periods.map((p) => (
            <option key={p.months} value={p.months}>
              {monthsText(p.months)} — {formatRub(p.total)}
              {p.discount > 0 ? ` (−${p.discount} %)` : ''}
            </option>
          ))}
        </select>
      ))}
      {field('provider', 'Способ оплаты', (d) => (
        <select id="gt-provider" value={form.provider} onChange={set('provider')} aria-invalid={!!errors.provider} aria-describedby={d}>
          <option value="yookassa">ЮKassa</option>
          <option value="tbank">Т-Банк</option>
        </select>
      ))}
      {consents.boxes}
      {errors.form && (
        <p className="field-error" role="alert">
          {errors.form}
        </p>
      )}
      {step?.priceNote && (
        <p className="field-warning" role="status">
          {step.priceNote}
        </p>
      )}
      {step?.payUrl ? (
        <a className="btn btn-primary" href={step.payUrl}>
          {step.warning ? 'Ник верный — оплатить' : 'Оплатить'}
        </a>
      ) : (
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Переходим к оплате…' : shown !== null ? `Оплатить ${formatRub(shown)}` : 'Оплатить'}
        </button>
      )}
    </form>
  );
}
