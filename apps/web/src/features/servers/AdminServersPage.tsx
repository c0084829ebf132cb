import { DEFAULT_RCON_PORT, type AdminServer, type ServerBodyInput, type ServerSaveResponse } from '@kubik/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { RowMenu } from '../../components/admin/RowMenu.tsx';
import { useCrud } from '../../components/admin/useCrud.ts';
import { Badge } from '../../components/Badge.tsx';
import { Modal } from '../../components/Modal.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import type { ApiError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import {
  ADMIN_MONITOR_MS,
  createServer,
  deleteServer,
  fetchAdminServers,
  runMonitor,
  serverAddress,
  SERVERS_ADMIN_KEY,
  SERVERS_KEY,
  updateServer,
} from './api.ts';
import { PluginPanel } from './PluginPanel.tsx';
import { pluginStatus } from './plugin-status.ts';
import { ServerFormFields } from './ServerForm.tsx';
import './servers.css';

/** Spec §8's short text, with the server's reason when it gave one. */
const failure = (base: string) => (err: ApiError) => (err.message && err.status !== 0 ? `${base}: ${err.message}` : base);
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n).trimEnd()}…` : s);
/** A server saved a moment ago is being checked (the server checks a new or moved address at once). */
const statusText = (s: AdminServer) => (s.status === 'online' ? 'Онлайн' : s.last_checked_at === null ? 'Проверяем…' : 'Оффлайн');

export default function AdminServersPage() {
  useTitle('Админ-панель: серверы');
  const notify = useNotify();
  const queryClient = useQueryClient();
  const crud = useCrud<AdminServer, ServerBodyInput>({
    queryKey: SERVERS_ADMIN_KEY,
    list: async () => (await fetchAdminServers()).servers,
    refresh: [SERVERS_KEY],
    create: createServer,
    update: (server, body) => updateServer(server.id, body),
    remove: (server) => deleteServer(server.id),
    texts: {
      created: (res) => (res as ServerSaveResponse).message,
      updated: (res) => (res as ServerSaveResponse).message,
      removed: (res) => (res as { message: string }).message,
      saveFailed: failure('Ошибка сохранения'),
      removeFailed: failure('Ошибка удаления'),
      confirmRemove: () => 'Удалить сервер?',
    },
  });

  // Until a new or moved server's first check is in, the list asks again every 2 s (for at most 30 s).
  const unchecked = crud.list.data?.some((s) => s.last_checked_at === null) ?? false;
  const { refetch } = crud.list;
  useEffect(() => {
    if (!unchecked) return;
    const timer = window.setInterval(() => void refetch(), 2000);
    const stop = window.setTimeout(() => window.clearInterval(timer), 30_000);
    return () => {
      window.clearInterval(timer);
      window.clearTimeout(stop);
    };
  }, [unchecked, refetch]);

  const monitor = useMutation({
    mutationFn: runMonitor,
    onError: () => notify('danger', 'Ошибка мониторинга'),
    onSettled: () => queryClient.invalidateQueries({ queryKey: SERVERS_KEY }),
  });
  // While this screen is open, statuses are refreshed every 5 minutes (and on the button).
  const { mutate: checkAll } = monitor;
  useEffect(() => {
    const timer = window.setInterval(() => checkAll(), ADMIN_MONITOR_MS);
    return () => window.clearInterval(timer);
  }, [checkAll]);

  // The server whose AzLink panel is open; read from the list, so it shows each refresh.
  const [pluginFor, setPluginFor] = useState<number | null>(null);
  const pluginServer = pluginFor === null ? undefined : crud.list.data?.find((s) => s.id === pluginFor);

  const columns: Column<AdminServer>[] = [
    { header: 'ID', cell: (s) => s.id, kind: 'num' },
    { header: 'Название', cell: (s) => s.name, kind: 'main' },
    { header: 'Описание', cell: (s) => <span title={s.description}>{clip(s.description, 60)}</span>, kind: 'clip' },
    { header: 'Онлайн', cell: (s) => s.online, kind: 'num' },
    { header: 'Макс. онлайн', cell: (s) => s.max_online, kind: 'num' },
    {
      header: 'Статус',
      cell: (s) => (
        <Badge tone={s.status === 'online' ? 'success' : s.last_checked_at === null ? 'neutral' : 'danger'}>{statusText(s)}</Badge>
      ),
    },
    {
      header: 'Плагин',
      cell: (s) => (
        <button type="button" className="btn btn-small" onClick={() => setPluginFor(s.id)} title={pluginStatus(s)}>
          {s.link.linked ? (s.link.online ? 'На связи' : 'Нет связи') : 'Подключить плагин'}
        </button>
      ),
    },
    {
      header: 'Действия',
      kind: 'actions',
      cell: (s) => <ServerMenu server={s} onEdit={() => crud.openEdit(s)} onDelete={() => crud.remove(s)} busy={crud.removing} />,
    },
  ];

  return (
    <AdminSection
      title="Серверы"
      actions={
        <>
          <button type="button" className="btn" onClick={() => monitor.mutate()} disabled={monitor.isPending}>
            {monitor.isPending ? 'Проверяем…' : 'Обновить статусы'}
          </button>
          <button type="button" className="btn btn-primary" onClick={crud.openNew}>
            Добавить сервер
          </button>
        </>
      }
    >
      <QueryState query={crud.list} error="Ошибка загрузки серверов" empty="Серверов пока нет. Добавьте первый.">
        {(servers) => <DataTable label="Серверы" rows={servers} columns={columns} rowKey={(s) => s.id} />}
      </QueryState>
      {crud.dialog}
      <Modal open={pluginServer !== undefined} title={`Плагин AzLink: ${pluginServer?.name ?? ''}`} onClose={() => setPluginFor(null)}>
        {pluginServer && <PluginPanel key={pluginServer.id} server={pluginServer} />}
      </Modal>
      <Modal open={crud.editing !== undefined} title={crud.editing ? 'Изменить сервер' : 'Новый сервер'} onClose={crud.close} wide>
        {crud.editing !== undefined && (
          <ServerFormFields key={crud.editing?.id ?? 'new'} server={crud.editing} onSave={crud.save} onCancel={crud.close} />
        )}
      </Modal>
    </AdminSection>
  );
}

/** Spec §2: a '...' button with the server's details, «Изменить» and «Удалить». */
function ServerMenu({
  server: s,
  onEdit,
  onDelete,
  busy,
}: {
  server: AdminServer;
  onEdit: () => void;
  onDelete: () => void;
  busy: boolean;
}) {
  const details = (
    <>
      <dt>IP</dt>
      <dd>{s.ip_address || '—'}</dd>
      <dt>Порт</dt>
      <dd>{s.port}</dd>
      <dt>Описание</dt>
      <dd>{s.description}</dd>
      <dt>Статус</dt>
      <dd>{statusText(s)}</dd>
      <dt>Макс. онлайн</dt>
      <dd>{s.max_online}</dd>
      {s.version && (
        <>
          <dt>Версия</dt>
          <dd>{s.version}</dd>
        </>
      )}
      <dt>Проверка</dt>
      <dd>{s.last_checked_at ? formatDateTime(s.last_checked_at) : 'ещё не проверялся'}</dd>
      {s.last_error && (
        <>
          <dt>Ошибка</dt>
          <dd>{s.last_error}</dd>
        </>
      )}
      <dt>Плагин AzLink</dt>
      <dd>{pluginStatus(s)}</dd>
      <dt>RCON</dt>
      <dd>
        {s.rcon_configured
          ? `настроен (${serverAddress(s.rcon_host || s.ip_address, s.rcon_port ?? DEFAULT_RCON_PORT)})`
          : s.rcon_password_dropped_at !== null
            ? 'не настроен: пароль удалён при смене адреса RCON — введите его заново'
            : 'не настроен'}
      </dd>
    </>
  );
  return <RowMenu label={`Действия с сервером «${s.name}»`} details={details} onEdit={onEdit} onDelete={onDelete} busy={busy} />;
}
