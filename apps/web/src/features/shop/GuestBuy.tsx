import type { ShopItem } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useGuestOrder } from '../../components/useGuestOrder.tsx';
import { formatRub } from '../../lib/format.ts';
import { createGuestOrder } from './guest-api.ts';
import { fetchShop, SHOP_KEY } from './api.ts';

const FIELDS = ['nickname', 'email', 'shop_id', 'quantity', 'provider'] as const;

/**
 * Buying for a nickname without an account (when the owner allows it): the guest names the
 * player, gives an e-mail for the receipt and pays the provider; the item waits for that
 * nickname in the game. Each refusal is shown beside its field; a nickname nobody is known by is
 * warned about beside it before the payment page, the same payment offered.
 */
export function GuestBuy() {
  const items = useQuery({ queryKey: SHOP_KEY, queryFn: fetchShop });
  const [form, setForm] = useState({ nickname: '', email: '', shop_id: '', quantity: '1', provider: 'yookassa' });
  const { errors, step, consents, submit, changed, field, busy } = useGuestOrder({
    fields: FIELDS,
    idOf: (f) => `guest-${f}`,
    create: (given) =>
      createGuestOrder({
        nickname: form.nickname,
        email: form.email,
        shop_id: Number(form.shop_id),
        quantity: Number(form.quantity),
        provider: form.provider as 'yookassa' | 'tbank',
        consents: given,
      }),
    shown: null,
  });
  const list: ShopItem[] = items.data ?? [];
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => {
    setForm({ ...form, [k]: e.target.value });
    changed();
  };
  return (
    <section className="card stack" aria-labelledby="guest-h" data-testid="guest-buy">
      <h2 id="guest-h">Купить для игрока без входа</h2>
      <p className="muted">Укажите ник игрока — покупка будет выдана ему в игре. Чек придёт на вашу почту.</p>
      <form className="stack guest-form" onSubmit={(e) => submit(e, form.shop_id ? null : { shop_id: 'Выберите товар' })} noValidate>
        {field(
          'nickname',
          'Ник игрока',
          (d) => (
            <input
              id="guest-nickname"
              autoComplete="off"
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
            id="guest-email"
            type="email"
            autoComplete="email"
            value={form.email}
            onChange={set('email')}
            aria-invalid={!!errors.email}
            aria-describedby={d}
          />
        ))}
        {field('shop_id', 'Товар', (d) => (
          <select id="guest-shop_id" value={form.shop_id} onChange={set('shop_id')} aria-invalid={!!errors.shop_id} aria-describedby={d}>
            <option value="">— выберите —</option>
            {list.map((i) => (
              <option key={i.id} value={i.id}>
                {i.name} — {formatRub(i.price)}
              </option>
            ))}
          </select>
        ))}
        {field('quantity', 'Количество', (d) => (
          <input
            id="guest-quantity"
            type="number"
            min={1}
            max={1000}
            inputMode="numeric"
            value={form.quantity}
            onChange={set('quantity')}
            aria-invalid={!!errors.quantity}
            aria-describedby={d}
          />
        ))}
        {field('provider', 'Способ оплаты', (d) => (
          <select
            id="guest-provider"
            value={form.provider}
            onChange={set('provider')}
            aria-invalid={!!errors.provider}
            aria-describedby={d}
          >
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
