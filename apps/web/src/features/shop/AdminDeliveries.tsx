import { DELIVERY_STATES, type AdminDelivery, type DeliveryState } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useNotify } from '../../app/notifications.tsx';
import { Badge } from '../../components/Badge.tsx';
import { Empty, Loading } from '../../components/States.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime, formatRub } from '../../lib/format.ts';
import { ADMIN_ITEMS_KEY, DELIVERIES_KEY, fetchDeliveries, refundDelivery, resendDelivery, SHOP_KEY } from './api.ts';
import { DELIVERY_TONE, deliveryText, isMoving } from './deliveryState.ts';

const canResend = (s: DeliveryState) => s === 'failed' || s === 'unknown' || s === 'pending';
const canRefund = (s: DeliveryState) => s === 'failed' || s === 'unknown' || s === 'pending';

/** Every delivery with its state and the server's answer; resend and refund. */
export function AdminDeliveries() {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const headingId = useId();
  const filterId = useId();
  const [state, setState] = useState<DeliveryState | ''>('');
  const list = useQuery({
    queryKey: [...DELIVERIES_KEY, state],
    queryFn: () => fetchDeliveries(state),
    refetchInterval: (q) => (q.state.data?.some((d) => isMoving(d.state)) ? 5000 : false),
  });

  const done = (message: string) => {
    notify('success', message);
    void queryClient.invalidateQueries({ queryKey: DELIVERIES_KEY });
  };
  const failed = (err: unknown) => notify('danger', err instanceof ApiError && err.message ? err.message : 'Произошла ошибка');

  const resend = useMutation({ mutationFn: (d: AdminDelivery) => resendDelivery(d.id), onSuccess: (r) => done(r.message), onError: failed });
  const refund = useMutation({
    mutationFn: (d: AdminDelivery) => refundDelivery(d.id),
    onSuccess: (r) => {
      done(r.message);
      // The pieces went back to stock.
      void queryClient.invalidateQueries({ queryKey: ADMIN_ITEMS_KEY });
      void queryClient.invalidateQueries({ queryKey: SHOP_KEY });
    },
    onError: failed,
  });
  const busy = resend.isPending || refund.isPending;

  function askResend(d: AdminDelivery) {
    if (d.state === 'unknown' && !window.confirm('Сервер не ответил на команду — предмет мог быть выдан. Проверьте в игре. Выдать ещё раз?')) return;
    resend.mutate(d);
  }
  function askRefund(d: AdminDelivery) {
    if (window.confirm(`Вернуть игроку ${d.username} ${formatRub(d.amount ?? 0)} за «${d.item_name}» × ${d.quantity}? Выдача будет отменена.`)) refund.mutate(d);
  }

  return (
    <div className="stack">
      <div className="shop-admin-head">
        <h2 id={headingId}>Выдача в игре</h2>
        <div className="row">
          <div className="field shop-filter">
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
        </div>
      </div>
      {list.isPending ? (
        <Loading text="Загрузка выдач..." />
      ) : list.isError ? (
        <Empty>
          <p>Не удалось загрузить выдачи</p>
          <button type="button" className="btn btn-small" onClick={() => void list.refetch()}>
            Повторить
          </button>
        </Empty>
      ) : list.data.length === 0 ? (
        <Empty>Выдач пока нет</Empty>
      ) : (
        <div className="table-wrap shop-table-wrap">
          <table className="table shop-table" aria-labelledby={headingId}>
            <thead>
              <tr>
                <th className="shop-num">№</th>
                <th>Время</th>
                <th>Игрок</th>
                <th>Товар</th>
                <th>Сервер</th>
                <th>Состояние</th>
                <th>Ответ сервера</th>
                <th>
                  <span className="visually-hidden">Действия</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((d) => (
                <tr key={d.id} data-testid={`delivery-${d.id}`}>
                  <td className="shop-num">{d.id}</td>
                  <td className="shop-nowrap">{formatDateTime(d.updated_at)}</td>
                  <td>{d.username}</td>
                  <td>
                    {d.item_name} × {d.quantity}
                    <div className="muted shop-small">
                      Заказ №{d.order_id} · {formatRub(d.amount ?? 0)}
                    </div>
                  </td>
                  <td>{d.server_name ?? <span className="muted">не выбран</span>}</td>
                  <td>
                    <Badge tone={DELIVERY_TONE[d.state]}>{deliveryText(d.state)}</Badge>
                    {d.attempts > 0 && <div className="muted shop-small">попыток: {d.attempts}</div>}
                  </td>
                  <td className="shop-reply">
                    {d.command && <code className="shop-command">{d.command}</code>}
                    {d.reply && <div>{d.reply}</div>}
                    {d.last_error && <div className="shop-error-text">{d.last_error}</div>}
                    {d.state === 'pending' && d.next_attempt_at > Date.now() && <div className="muted shop-small">Следующая попытка: {formatDateTime(d.next_attempt_at)}</div>}
                  </td>
                  <td>
                    <div className="shop-actions">
                      {canResend(d.state) && (
                        <button type="button" className="btn btn-small" disabled={busy} onClick={() => askResend(d)}>
                          {d.state === 'pending' ? 'Отправить сейчас' : 'Выдать повторно'}
                        </button>
                      )}
                      {canRefund(d.state) && (
                        <button type="button" className="btn btn-small btn-danger" disabled={busy} onClick={() => askRefund(d)}>
                          Вернуть деньги
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
