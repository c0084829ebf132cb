import { DELIVERY_STATES, type AdminDelivery, type DeliveryState } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { Badge } from '../../components/Badge.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime, formatRub } from '../../lib/format.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { ADMIN_ITEMS_KEY, DELIVERIES_KEY, fetchDeliveries, refundDelivery, resendDelivery, SHOP_KEY } from './api.ts';
import { DELIVERY_TONE, deliveryText, isMoving } from './deliveryState.ts';

const canAct = (s: DeliveryState) => s === 'failed' || s === 'unknown' || s === 'pending';

/** «Выдача в игре»: every delivery with its state and the server's answer; resend and refund. */
export function AdminDeliveries() {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const filterId = useId();
  const [state, setState] = useState<DeliveryState | ''>('');
  const list = useQuery({
    queryKey: [...DELIVERIES_KEY, state],
    queryFn: () => fetchDeliveries(state),
    refetchInterval: (q) => (q.state.data?.some((d) => isMoving(d.state)) ? 5000 : false),
  });

  const refresh = (...keys: (readonly unknown[])[]) => {
    for (const queryKey of [DELIVERIES_KEY, AUDIT_KEY, ...keys]) void queryClient.invalidateQueries({ queryKey });
  };
  const failed = (err: unknown) => notify('danger', err instanceof ApiError && err.message ? err.message : 'Произошла ошибка');
  const resend = useMutation({
    mutationFn: (d: AdminDelivery) => resendDelivery(d.id),
    onSuccess: (r) => notify('success', r.message),
    onError: failed,
    onSettled: () => refresh(),
  });
  const refund = useMutation({
    mutationFn: (d: AdminDelivery) => refundDelivery(d.id),
    onSuccess: (r) => notify('success', r.message),
    onError: failed,
    // The pieces went back to stock.
    onSettled: () => refresh(ADMIN_ITEMS_KEY, SHOP_KEY),
  });
  const busy = resend.isPending || refund.isPending;

  function askResend(d: AdminDelivery) {
    if (d.state === 'unknown' && !window.confirm('Сервер не ответил на команду — предмет мог быть выдан. Проверьте в игре. Выдать ещё раз?')) return;
    resend.mutate(d);
  }
  function askRefund(d: AdminDelivery) {
    if (window.confirm(`Вернуть игроку ${d.username} ${formatRub(d.amount)} за «${d.item_name}» × ${d.quantity}? Выдача будет отменена.`)) refund.mutate(d);
  }

  const columns: Column<AdminDelivery>[] = [
    { header: '№', cell: (d) => d.id, kind: 'num' },
    { header: 'Время', cell: (d) => formatDateTime(d.updated_at) },
    { header: 'Игрок', cell: (d) => d.username },
    {
      header: 'Товар',
      kind: 'main',
      cell: (d) => (
        <>
          {d.item_name} × {d.quantity}
          <div className="muted-small">
            Заказ №{d.order_id} · {formatRub(d.amount)}
          </div>
        </>
      ),
    },
    { header: 'Сервер', cell: (d) => d.server_name ?? <span className="muted">не выбран</span> },
    {
      header: 'Состояние',
      cell: (d) => (
        <>
          <Badge tone={DELIVERY_TONE[d.state]}>{deliveryText(d.state)}</Badge>
          {d.attempts > 0 && <div className="muted-small">попыток: {d.attempts}</div>}
        </>
      ),
    },
    {
      header: 'Ответ сервера',
      cell: (d) => (
        <div className="shop-reply">
          {d.command && <code className="shop-command">{d.command}</code>}
          {d.reply && <div>{d.reply}</div>}
          {d.last_error && <div className="shop-error-text">{d.last_error}</div>}
          {d.state === 'pending' && d.next_attempt_at > Date.now() && <div className="muted-small">Следующая попытка: {formatDateTime(d.next_attempt_at)}</div>}
        </div>
      ),
    },
    {
      header: 'Действия',
      kind: 'actions',
      cell: (d) =>
        canAct(d.state) && (
          <div className="admin-actions">
            <button type="button" className="btn btn-small" disabled={busy} onClick={() => askResend(d)}>
              {d.state === 'pending' ? 'Отправить сейчас' : 'Выдать повторно'}
            </button>
            <button type="button" className="btn btn-small btn-danger" disabled={busy} onClick={() => askRefund(d)}>
              Вернуть деньги
            </button>
          </div>
        ),
    },
  ];

  return (
    <AdminSection
      title="Выдача в игре"
      actions={
        <>
          <div className="field admin-filter">
            <label htmlFor={filterId}>Состояние</label>
            <select id={filterId} value={state} onChange={(e) => setState(e.target.value as DeliveryState | '')}>
              <option value="">Все</option>
              {DELIVERY_STATES.map((s) => (
                <option key={s} value={s}>
                  {deliveryText(s)}
                </option>
              ))}
            </select>
          </div>
          <button type="button" className="btn" onClick={() => void list.refetch()} disabled={list.isFetching}>
            Обновить
          </button>
        </>
      }
    >
      <QueryState query={list} loading="Загрузка выдач..." error="Не удалось загрузить выдачи" empty="Выдач пока нет">
        {(deliveries) => <DataTable label="Выдача в игре" rows={deliveries} columns={columns} rowKey={(d) => d.id} rowProps={(d) => ({ 'data-testid': `delivery-${d.id}` })} />}
      </QueryState>
    </AdminSection>
  );
}
