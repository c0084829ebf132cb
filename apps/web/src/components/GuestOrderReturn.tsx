import type { GuestOrder } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'wouter';
import { api } from '../lib/api.ts';
import { guestOrderText } from '../lib/guest-order.ts';

/** How long the page keeps asking about a payment the provider has not confirmed yet. */
const POLL_FOR_MS = 3 * 60_000;

/**
 * Back from the provider (?guest_order=…): what became of a guest's order, asked again every few
 * seconds while the payment is not confirmed. Nothing without the parameter.
 */
export function GuestOrderReturn() {
  const [params] = useSearchParams();
  const id = params.get('guest_order');
  const [since] = useState(() => Date.now());
  const order = useQuery({
    queryKey: ['guest-order', id],
    queryFn: () => api<GuestOrder>(`/api/shop/guest-orders/${encodeURIComponent(id ?? '')}`),
    enabled: !!id,
    retry: false,
    refetchInterval: (q) => (q.state.data?.status === 'pending' && Date.now() - since < POLL_FOR_MS ? 3000 : false),
  });
  if (!id) return null;
  const text = order.isError ? 'Заказ не найден' : order.data ? guestOrderText(order.data) : 'Проверяем оплату…';
  return (
    <section className="card" role="status" data-testid="guest-order-return" data-state={order.data?.status ?? 'loading'}>
      <p className="guest-order-return">{text}</p>
    </section>
  );
}
