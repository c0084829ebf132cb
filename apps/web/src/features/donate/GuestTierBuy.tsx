import type { DonateTier } from '@kubik/contract';
import { useState } from 'react';
import { useGuestOrder } from '../../components/useGuestOrder.tsx';
import { formatRub, plural } from '../../lib/format.ts';
import { createGuestTierOrder } from './guest-api.ts';
import { tierNow } from './tierNow.ts';

const FIELDS = ['nickname', 'email', 'months', 'provider'] as const;

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
  const shown = periods.find((p) => String(p.months) === form.months)?.total ?? null;
  const { errors, step, consents, submit, changed, field, busy } = useGuestOrder({
    fields: FIELDS,
    idOf: (f) => `gt-${f}`,
    create: (given) =>
      createGuestTierOrder(tier.id, {
        nickname: form.nickname,
        email: form.email,
        months: Number(form.months),
        provider: form.provider as 'yookassa' | 'tbank',
        consents: given,
      }),
    shown,
  });
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => {
    setForm({ ...form, [k]: e.target.value });
    changed();
  };
  return (
    <form
      className="stack guest-form guest-tier-form"
      onSubmit={(e) => submit(e)}
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
