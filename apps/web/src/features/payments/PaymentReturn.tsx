import { PAYMENT_TEXTS, type PlayerPayment } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link } from 'wouter';
import { ApiError } from '../../lib/api.ts';
import { formatRub } from '../../lib/format.ts';
import { TOPUP_PATH } from '../../lib/paths.ts';
import { useAuth } from '../../providers/auth.tsx';
import { fetchPayment, MY_PAYMENTS_KEY, paymentKey } from './api.ts';
import './profile-payments.css';

/** How often a pending payment is asked about: often at first (the player has just paid), then calmly. */
const FAST_POLL_MS = 2000;
const SLOW_POLL_MS = 15_000;
const FAST_FOR_MS = 3 * 60_000;

/**
 * Where the provider sends the player back (`/profile?payment=<id>`): «Платёж обрабатывается…»
 * while the payment is pending (the server re-reads it from the provider on each ask), then what
 * came of it. When it settles, the balance in the header and the payment list are read again.
 */
export function PaymentReturn({ id, onClose }: { id: string; onClose: () => void }) {
  const { refresh } = useAuth();
  const queryClient = useQueryClient();
  const since = useRef(Date.now());
  const payment = useQuery({
    queryKey: paymentKey(id),
    queryFn: () => fetchPayment(id),
    refetchInterval: (q) =>
      q.state.data && q.state.data.status !== 'pending' ? false : Date.now() - since.current < FAST_FOR_MS ? FAST_POLL_MS : SLOW_POLL_MS,
    refetchIntervalInBackground: false,
    // A 404 (someone else's or a mistyped id) will not change on a retry.
    retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 3,
  });
  const status = payment.data?.status;

  // Settled: the balance and the history changed on the server.
  useEffect(() => {
    if (status === undefined || status === 'pending') return;
    refresh();
    void queryClient.invalidateQueries({ queryKey: MY_PAYMENTS_KEY });
  }, [status, refresh, queryClient]);

  return (
    <div
      className={`notice payment-return ${tone(payment.data, payment.isError)}`}
      role="status"
      aria-live="polite"
      data-testid="payment-return"
    >
      <div className="payment-return-text">
        {content(payment.data, payment.error, payment.isPending, payment.dataUpdatedAt - since.current > FAST_FOR_MS)}
      </div>
      <button type="button" className="icon-button" aria-label="Закрыть" onClick={onClose}>
        ×
      </button>
    </div>
  );
}

function tone(p: PlayerPayment | undefined, failed: boolean): string {
  if (failed && !p) return 'notice-danger';
  if (!p || p.status === 'pending') return 'payment-return-pending';
  return p.status === 'canceled' ? 'notice-warning' : p.status === 'succeeded' ? 'notice-success' : '';
}

function content(p: PlayerPayment | undefined, error: Error | null, pending: boolean, long: boolean) {
  if (pending || (p && p.status === 'pending')) {
    return (
      <>
        <p className="payment-return-title">
          <span className="spinner" aria-hidden="true" />
          {PAYMENT_TEXTS.processing}
        </p>
        <p className="muted">
          {long
            ? 'Платёжная система ещё не подтвердила оплату. Если вы не завершили её, платёж отменится сам в течение суток, деньги не спишутся.'
            : 'Обычно это занимает несколько секунд. Страницу можно не обновлять: баланс пополнится сам.'}
        </p>
      </>
    );
  }
  if (!p) {
    const text =
      error instanceof ApiError && error.message ? error.message : 'Не удалось узнать, что с платежом. Обновите страницу чуть позже.';
    return <p className="payment-return-title">{text}</p>;
  }
  if (p.status === 'canceled') {
    return (
      <>
        <p className="payment-return-title">{PAYMENT_TEXTS.canceled}</p>
        <p>
          <Link to={TOPUP_PATH}>Попробовать ещё раз</Link>
        </p>
      </>
    );
  }
  if (p.status === 'refunding' || p.status === 'refunded') {
    return <p className="payment-return-title">{p.status === 'refunded' ? PAYMENT_TEXTS.refunded : 'Платёж возвращается'}</p>;
  }
  return (
    <>
      <p className="payment-return-title">{PAYMENT_TEXTS.credited(formatRub(p.amount))}</p>
      {p.bonus > 0 && <p>И бонус +{formatRub(p.bonus)}.</p>}
    </>
  );
}
