import { PAYMENT_PROVIDER_TEXT, PAYMENT_STATUS_TEXT, type PaymentStatus, type PlayerPayment } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Badge, type BadgeTone } from '../../components/Badge.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { formatDateTime, formatRub } from '../../lib/format.ts';
import { fetchMyPayments, MY_PAYMENTS_KEY } from './api.ts';
import './profile-payments.css';

const STATUS_TONE: Record<PaymentStatus, BadgeTone> = {
  pending: 'warning',
  succeeded: 'success',
  canceled: 'neutral',
  refunding: 'warning',
  refunded: 'neutral',
};

/** The profile's «Пополнения»: the player's payments, newest first, with date, provider, amount and status. */
export function MyPayments() {
  const headingId = useId();
  const payments = useQuery({
    queryKey: MY_PAYMENTS_KEY,
    queryFn: fetchMyPayments,
    // A payment still waiting for the provider is worth watching.
    refetchInterval: (q) => (q.state.data?.some((p) => p.status === 'pending' || p.status === 'refunding') ? 15_000 : false),
  });
  return (
    <section className="stack my-payments" aria-labelledby={headingId}>
      <h2 id={headingId}>Пополнения баланса</h2>
      <QueryState query={payments} loading="Загрузка платежей..." error="Не удалось загрузить платежи" empty="Пополнений пока не было">
        {(list) => (
          <ul className="payments-list">
            {list.map((p) => (
              <PaymentItem key={p.id} payment={p} />
            ))}
          </ul>
        )}
      </QueryState>
    </section>
  );
}

function PaymentItem({ payment: p }: { payment: PlayerPayment }) {
  return (
    <li className="payment-item" data-testid={`payment-${p.id}`}>
      <div>
        <p className="payment-amount">
          {formatRub(p.amount)}
          {p.bonus > 0 && <span className="muted"> + бонус {formatRub(p.bonus)}</span>}
        </p>
        <p className="muted payment-meta">
          <time dateTime={new Date(p.created_at).toISOString()}>{formatDateTime(p.created_at)}</time> · {PAYMENT_PROVIDER_TEXT[p.provider]}
        </p>
      </div>
      <Badge tone={STATUS_TONE[p.status]}>{PAYMENT_STATUS_TEXT[p.status]}</Badge>
    </li>
  );
}
