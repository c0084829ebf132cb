import { useConfirm } from '../../components/useConfirm.tsx';
import {
  DELIVERY_SOURCE_TEXT,
  DELIVERY_SOURCES,
  DELIVERY_STATES,
  type AdminDelivery,
  type DeliverySource,
  type DeliveryState,
} from '@kubik/contract';
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
import {
  ADMIN_ITEMS_KEY,
  ADMIN_SERVERS_KEY,
  DELIVERIES_KEY,
  fetchDeliveries,
  fetchShopServers,
  refundDelivery,
  resendDelivery,
  SHOP_KEY,
} from './api.ts';
import { DELIVERY_TONE, deliveryText, isMoving, WAITING_TEXT } from './deliveryState.ts';
import { FieldShell } from '../../components/form/FieldShell.tsx';

const canAct = (s: DeliveryState) => s === 'failed' || s === 'unknown' || s === 'pending';

/** «Выдача в игре»: the whole delivery queue (purchases, privileges, kits, bans) with states and the server's answers. */
export function AdminDeliveries() {
  const notify = useNotify();
  const { confirm, dialog } = useConfirm();
  const queryClient = useQueryClient();
  const stateId = useId();
  const sourceId = useId();
  const [state, setState] = useState<DeliveryState | ''>('');
  const [source, setSource] = useState<DeliverySource | ''>('');
  const list = useQuery({
    queryKey: [...DELIVERIES_KEY, state, source],
    queryFn: () => fetchDeliveries(state, source),
    refetchInterval: (q) => (q.state.data?.some((d) => isMoving(d.state)) ? 5000 : false),
  });
  const servers = useQuery({ queryKey: ADMIN_SERVERS_KEY, queryFn: fetchShopServers });

  const refresh = (...keys: (readonly unknown[])[]) => {
    for (const queryKey of [DELIVERIES_KEY, AUDIT_KEY, ...keys]) void queryClient.invalidateQueries({ queryKey });
  };
  const failed = (err: unknown) => notify('danger', err instanceof ApiError && err.message ? err.message : 'Произошла ошибка');
  const resend = useMutation({
    mutationFn: ({ d, serverId }: { d: AdminDelivery; serverId?: number }) => resendDelivery(d.id, serverId),
    onSuccess: (r) => notify('success', r.message),
    onError: failed,
    onSettled: () => refresh(),
  });
  const refund = useMutation({
    mutationFn: (d: AdminDelivery) => refundDelivery(d.id),
    onSuccess: (r) => notify('success', r.message),
    onError: failed,
    // The purchases went back to stock.
    onSettled: () => refresh(ADMIN_ITEMS_KEY, SHOP_KEY),
  });
  const busy = resend.isPending || refund.isPending;

  async function askResend(d: AdminDelivery, serverId?: number) {
    if (
      d.handed_to_plugin_at !== null &&
      !(await confirm('Плагин AzLink не подтверждает команды. Проверьте в игре, что выдача не дошла. Выдать ещё раз?', {
        confirmLabel: 'Выдать ещё раз',
      }))
    )
      return;
    if (
      d.state === 'unknown' &&
      !(await confirm('Сервер не ответил на команду — она могла выполниться. Проверьте в игре. Выдать ещё раз?', {
        confirmLabel: 'Выдать ещё раз',
      }))
    )
      return;
    resend.mutate({ d, serverId });
  }
  async function askRefund(d: AdminDelivery) {
    if (
      await confirm(
        `Вернуть игроку ${d.username ?? ''} ${formatRub(d.amount ?? 0)} за «${d.label}» × ${d.quantity ?? 1}? Выдача будет отменена.`,
        {
          confirmLabel: 'Вернуть деньги',
          danger: true,
        },
      )
    )
      refund.mutate(d);
  }

  const columns: Column<AdminDelivery>[] = [
    { header: '№', cell: (d) => d.id, kind: 'num' },
    { header: 'Куплено', cell: (d) => formatDateTime(d.created_at) },
    { header: 'Игрок', cell: (d) => d.username ?? <span className="muted">—</span> },
    {
      header: 'Что выдаётся',
      kind: 'main',
      cell: (d) => (
        <>
          {d.label}
          {d.quantity !== null && ` × ${d.quantity}`}
          <div className="muted-small">
            {DELIVERY_SOURCE_TEXT[d.source]}
            {d.order_id !== null && ` · заказ №${d.order_id}`}
            {d.amount !== null && ` · ${formatRub(d.amount)}`}
          </div>
        </>
      ),
    },
    {
      header: 'Сервер',
      cell: (d) => (
        <>
          {d.server_name ?? (
            <span className="muted">
              {d.server_scope === 'all' ? 'все серверы с RCON' : d.server_scope === 'only' ? 'единственный с RCON' : 'удалён'}
            </span>
          )}
          {d.waiting === 'no_server' && d.state === 'pending' && (
            <MoveToServer
              delivery={d}
              servers={servers.data?.servers ?? []}
              disabled={busy}
              onMove={(serverId) => askResend(d, serverId)}
            />
          )}
        </>
      ),
    },
    {
      header: 'Состояние',
      cell: (d) => (
        <>
          {d.handed_to_plugin_at !== null ? (
            <Badge tone="neutral">Передано плагину</Badge>
          ) : (
            <Badge tone={DELIVERY_TONE[d.state]}>{deliveryText(d.state)}</Badge>
          )}
          {d.state === 'pending' && d.waiting && <div className="muted-small">{WAITING_TEXT[d.waiting]}</div>}
          {d.steps > 1 && (
            <div className="muted-small">
              выполнено команд: {Math.min(d.step, d.steps)} из {d.steps}
            </div>
          )}
          {d.handed_to_plugin_at !== null ? (
            <div className="muted-small">{formatDateTime(d.handed_to_plugin_at)}, без подтверждения</div>
          ) : (
            d.done_at !== null && d.state === 'done' && <div className="muted-small">подтверждено {formatDateTime(d.done_at)}</div>
          )}
        </>
      ),
    },
    {
      // Tries are not what was given: a command sent five times to a player away is given once.
      header: 'Попытки',
      cell: (d) =>
        d.attempts === 0 ? (
          <span className="muted">ещё не было</span>
        ) : (
          <>
            {d.attempts}
            {d.last_attempt_at !== null && <div className="muted-small">последняя {formatDateTime(d.last_attempt_at)}</div>}
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
          {d.state === 'pending' && d.next_attempt_at > Date.now() && (
            <div className="muted-small">Следующая попытка: {formatDateTime(d.next_attempt_at)}</div>
          )}
        </div>
      ),
    },
    {
      header: 'Действия',
      kind: 'actions',
      cell: (d) =>
        (canAct(d.state) || d.handed_to_plugin_at !== null) && (
          <div className="admin-actions">
            <button type="button" className="btn btn-small" disabled={busy} onClick={() => askResend(d)}>
              {d.state === 'pending' ? 'Отправить сейчас' : 'Выдать повторно'}
            </button>
            {d.source === 'shop' && d.handed_to_plugin_at === null && (
              <button type="button" className="btn btn-small btn-danger" disabled={busy} onClick={() => askRefund(d)}>
                Вернуть деньги
              </button>
            )}
          </div>
        ),
    },
  ];

  return (
    <AdminSection
      title="Выдача в игре"
      actions={
        <>
          {dialog}
          <FieldShell id={sourceId} label="Источник" className="admin-filter">
            <select id={sourceId} value={source} onChange={(e) => setSource(e.target.value as DeliverySource | '')}>
              <option value="">Все</option>
              {DELIVERY_SOURCES.map((s) => (
                <option key={s} value={s}>
                  {DELIVERY_SOURCE_TEXT[s]}
                </option>
              ))}
            </select>
          </FieldShell>
          <FieldShell id={stateId} label="Состояние" className="admin-filter">
            <select id={stateId} value={state} onChange={(e) => setState(e.target.value as DeliveryState | '')}>
              <option value="">Все</option>
              {DELIVERY_STATES.map((s) => (
                <option key={s} value={s}>
                  {deliveryText(s)}
                </option>
              ))}
            </select>
          </FieldShell>
          <button type="button" className="btn" onClick={() => void list.refetch()} disabled={list.isFetching}>
            Обновить
          </button>
        </>
      }
    >
      <QueryState query={list} loading="Загрузка выдач..." error="Не удалось загрузить выдачи" empty="Выдач пока нет">
        {(deliveries) => (
          <DataTable
            label="Выдача в игре"
            rows={deliveries}
            columns={columns}
            rowKey={(d) => d.id}
            rowProps={(d) => ({ 'data-testid': `delivery-${d.id}` })}
          />
        )}
      </QueryState>
    </AdminSection>
  );
}

/** A delivery with no server to go to (its own was deleted, or none was chosen) can be sent to another. */
function MoveToServer({
  delivery,
  servers,
  disabled,
  onMove,
}: {
  delivery: AdminDelivery;
  servers: { id: number; name: string; rcon: boolean }[];
  disabled: boolean;
  onMove: (serverId: number) => void;
}) {
  const id = useId();
  const choices = servers.filter((s) => s.rcon && s.id !== delivery.server_id);
  if (choices.length === 0) return null;
  return (
    <FieldShell id={id} label="Выдать на сервер" className="admin-filter">
      <select
        id={id}
        value=""
        disabled={disabled}
        onChange={(e) => {
          if (e.target.value) onMove(Number(e.target.value));
        }}
      >
        <option value="">Выберите…</option>
        {choices.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
          </option>
        ))}
      </select>
    </FieldShell>
  );
}
