import { PAYMENT_EVENT_KIND_TEXT, PAYMENT_PROVIDER_TEXT, PAYMENT_STATUS_TEXT, type AdminPaymentDetail } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Badge } from '../../components/Badge.tsx';
import { Modal } from '../../components/Modal.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime, formatRub } from '../../lib/format.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { ADMIN_PAYMENTS_KEY, fetchPayment, refundPayment } from './api.ts';
import { RefundDialog } from './RefundDialog.tsx';
import { STATUS_TONE } from './status.ts';

/** One payment: its facts, every notification and provider answer, and «Вернуть». */
export function PaymentDetail({ id }: { id: string }) {
  const query = useQuery({ queryKey: [...ADMIN_PAYMENTS_KEY, 'one', id], queryFn: () => fetchPayment(id) });
  return (
    <QueryState query={query} error="Не удалось загрузить платёж" isEmpty={() => false}>
      {(data) => <Detail data={data} />}
    </QueryState>
  );
}

function Detail({ data }: { data: AdminPaymentDetail }) {
  const p = data.payment;
  const notify = useNotify();
  const queryClient = useQueryClient();
  const [problem, setProblem] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  const refund = useMutation({
    mutationFn: (amount?: number) => refundPayment(p.id, amount),
    onMutate: () => setProblem(null),
    onSuccess: (answer) => {
      setAsking(false);
      notify('success', answer.message);
    },
    onError: (err) => setProblem(err instanceof ApiError && err.message ? err.message : 'Не удалось вернуть платёж. Попробуйте ещё раз.'),
    // Whatever happened (a refusal puts the money back, no answer keeps it debited), show the payment as it is now.
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: ADMIN_PAYMENTS_KEY });
      void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
      void queryClient.invalidateQueries({ queryKey: ['admin', 'users'] });
    },
  });
  const provider = PAYMENT_PROVIDER_TEXT[p.provider];
  const resume = p.status === 'refunding';
  // A refund left «Возвращается» is asked about again (nothing more is debited); otherwise the dialog asks how much.
  const ask = () => (resume ? refund.mutate(undefined) : setAsking(true));

  return (
    <div className="stack payment-detail" data-testid="payment-detail">
      <dl className="payment-facts">
        <dt>Игрок</dt>
        <dd>{p.username}</dd>
        <dt>Сумма</dt>
        <dd>
          {formatRub(p.amount)}
          {p.bonus > 0 && <span className="muted"> + бонус {formatRub(p.bonus)}</span>}
        </dd>
        <dt>Статус</dt>
        <dd>
          <Badge tone={STATUS_TONE[p.status]}>{PAYMENT_STATUS_TEXT[p.status]}</Badge>
          {p.provider_status_text && <span className="muted"> у провайдера: {p.provider_status_text}</span>}
          {p.status === 'succeeded' && p.refunded_amount > 0 && <span className="muted"> · возвращено {formatRub(p.refunded_amount)}</span>}
        </dd>
        <dt>Способ оплаты</dt>
        <dd>{provider}</dd>
        <dt>Создан</dt>
        <dd>{formatDateTime(p.created_at)}</dd>
        {p.paid_at !== null && (
          <>
            <dt>Оплачен</dt>
            <dd>{formatDateTime(p.paid_at)}</dd>
          </>
        )}
        {p.canceled_at !== null && (
          <>
            <dt>Отменён</dt>
            <dd>{formatDateTime(p.canceled_at)}</dd>
          </>
        )}
        {p.refunded_at !== null && (
          <>
            <dt>Возвращён</dt>
            <dd>{formatDateTime(p.refunded_at)}</dd>
          </>
        )}
        {p.refund_requested_by && (
          <>
            <dt>Возврат запросил</dt>
            <dd>{p.refund_requested_by}</dd>
          </>
        )}
        <dt>Номер на сайте</dt>
        <dd className="payment-code">{p.id}</dd>
        <dt>Номер у провайдера</dt>
        <dd className="payment-code">{p.provider_payment_id ?? '—'}</dd>
        <dt>Баланс игрока</dt>
        <dd>{formatRub(data.balance)}</dd>
      </dl>

      {p.refund_error && p.status !== 'refunded' && <p className="notice notice-warning">Последняя попытка возврата: {p.refund_error}</p>}

      <div className="payment-refund">
        {data.refund_block === null ? (
          <button type="button" className="btn btn-danger" onClick={ask} disabled={refund.isPending}>
            {refund.isPending ? 'Возвращаем…' : resume ? 'Повторить возврат' : 'Вернуть…'}
          </button>
        ) : (
          p.status !== 'refunded' && <p className="muted">{data.refund_block}</p>
        )}
        {problem && (
          <p className="notice notice-danger" role="alert">
            {problem}
          </p>
        )}
      </div>

      <Modal open={asking} title="Возврат платежа" onClose={() => setAsking(false)}>
        {asking && <RefundDialog data={data} onRefund={(amount) => refund.mutateAsync(amount)} onCancel={() => setAsking(false)} />}
      </Modal>

      <section className="stack" aria-label="События платежа">
        <h3>События ({data.events.length})</h3>
        {data.events.length === 0 ? (
          <p className="muted">Событий нет.</p>
        ) : (
          <ol className="payment-events">
            {data.events.map((e) => (
              <li key={e.id} className={e.kind === 'error' ? 'payment-event payment-event-error' : 'payment-event'}>
                <div className="payment-event-head">
                  <strong>{PAYMENT_EVENT_KIND_TEXT[e.kind] ?? e.kind}</strong>
                  <time className="muted" dateTime={new Date(e.created_at).toISOString()}>
                    {formatDateTime(e.created_at)}
                  </time>
                  {e.ip && <span className="muted">с адреса {e.ip}</span>}
                </div>
                <div>{e.outcome}</div>
                {e.body && (
                  <details>
                    <summary>Что пришло</summary>
                    <pre className="payment-event-body">{pretty(e.body)}</pre>
                  </details>
                )}
              </li>
            ))}
          </ol>
        )}
      </section>
    </div>
  );
}

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
