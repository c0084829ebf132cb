import type { AdminPrivilege, DonateTier } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { Badge } from '../../components/Badge.tsx';
import { Modal } from '../../components/Modal.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { DONATE_KEY, fetchTiers } from './api.ts';
import { ADMIN_PRIVILEGES_KEY, fetchAdminPrivileges, grantPrivilege, revokePrivilege, setPrivilegeEnd } from './privileges-api.ts';
import './donate.css';

const END_TEXT: Record<string, string> = { expired: 'Срок истёк', upgraded: 'Заменена более высокой', revoked: 'Снята администратором' };

/** `2026-12-23T10:00` for a datetime-local input, in the browser's time zone. */
function localInput(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** Админ-панель → Донат → «Выданные привилегии»: who holds which tier until when; grant by hand, move the end, revoke. */
export function AdminPrivileges() {
  const [onlyActive, setOnlyActive] = useState(true);
  const list = useQuery({ queryKey: [...ADMIN_PRIVILEGES_KEY, onlyActive], queryFn: () => fetchAdminPrivileges(onlyActive) });
  const tiers = useQuery({ queryKey: DONATE_KEY, queryFn: fetchTiers });
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [editing, setEditing] = useState<AdminPrivilege | null>(null);
  const reload = () => void queryClient.invalidateQueries({ queryKey: ADMIN_PRIVILEGES_KEY });
  const revoke = useMutation({
    mutationFn: (p: AdminPrivilege) => revokePrivilege(p.id),
    onSuccess: (answer) => (notify('success', answer.message), reload()),
    onError: (err) => notify('danger', err instanceof ApiError && err.message ? err.message : 'Не удалось снять привилегию'),
  });

  const columns: Column<AdminPrivilege>[] = [
    { header: 'ID', cell: (p) => p.id, kind: 'num' },
    { header: 'Игрок', cell: (p) => p.username, kind: 'main' },
    { header: 'Донат', cell: (p) => p.title },
    { header: 'Начало', cell: (p) => formatDateTime(p.starts_at) },
    { header: 'Окончание', cell: (p) => formatDateTime(p.ended_at ?? p.expires_at) },
    {
      header: 'Состояние',
      cell: (p) =>
        p.active ? (
          <Badge tone="success">Действует</Badge>
        ) : (
          <span className="muted">{p.end_reason ? END_TEXT[p.end_reason] : 'Ожидает окончания'}</span>
        ),
    },
    { header: 'Выдана', cell: (p) => (p.granted_by === null ? 'Покупка' : 'Вручную') },
    {
      header: 'Действия',
      kind: 'actions',
      cell: (p) =>
        p.ended_at === null ? (
          <div className="admin-actions">
            <button
              type="button"
              className="btn btn-small"
              aria-label={`Изменить окончание привилегии ${p.title} игрока ${p.username}`}
              onClick={() => setEditing(p)}
            >
              Срок
            </button>
            <button
              type="button"
              className="btn btn-small btn-danger"
              aria-label={`Снять привилегию ${p.title} у игрока ${p.username}`}
              disabled={revoke.isPending}
              onClick={() => {
                if (window.confirm(`Снять привилегию ${p.title} у игрока ${p.username}? Команды снятия выполнятся в игре.`))
                  revoke.mutate(p);
              }}
            >
              Снять
            </button>
          </div>
        ) : null,
    },
  ];

  return (
    <AdminSection title="Выданные привилегии">
      <GrantForm tiers={tiers.data ?? []} onGranted={reload} />
      <label className="checkbox">
        <input type="checkbox" checked={onlyActive} onChange={(e) => setOnlyActive(e.target.checked)} />
        Только незакончившиеся
      </label>
      <QueryState query={list} error="Не удалось загрузить привилегии" empty="Привилегий пока нет">
        {(rows) => <DataTable label="Привилегии" rows={rows} columns={columns} rowKey={(p) => p.id} />}
      </QueryState>
      <Modal open={editing !== null} title="Окончание привилегии" onClose={() => setEditing(null)}>
        {editing && (
          <EndForm
            key={editing.id}
            privilege={editing}
            onDone={() => {
              setEditing(null);
              reload();
            }}
          />
        )}
      </Modal>
    </AdminSection>
  );
}

function GrantForm({ tiers, onGranted }: { tiers: DonateTier[]; onGranted: () => void }) {
  const notify = useNotify();
  const [username, setUsername] = useState('');
  const [tierId, setTierId] = useState('');
  const [days, setDays] = useState('30');
  const [error, setError] = useState<{ field?: string; text: string } | null>(null);
  const ids = { user: useId(), tier: useId(), days: useId(), error: useId() };
  const grant = useMutation({
    mutationFn: () => grantPrivilege({ username: username.trim(), tier_id: Number(tierId), days: Number(days) }),
    onSuccess: (p) => {
      notify('success', `Привилегия ${p.title} выдана игроку ${p.username}`);
      setError(null);
      setUsername('');
      onGranted();
    },
    onError: (err) =>
      setError({
        field: err instanceof ApiError ? err.field : undefined,
        text: err instanceof ApiError && err.message ? err.message : 'Не удалось выдать привилегию',
      }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!username.trim()) return setError({ field: 'username', text: 'Введите имя игрока' });
    if (!tierId) return setError({ field: 'tier_id', text: 'Выберите донат' });
    if (!/^\d+$/.test(days) || Number(days) < 1) return setError({ field: 'days', text: 'Срок — целое число дней, не меньше 1' });
    grant.mutate();
  };
  const errorFor = (field: string) => (error && (error.field === field || (!error.field && field === 'days')) ? error.text : '');
  const fieldProps = (field: string) => ({
    'aria-invalid': errorFor(field) ? true : undefined,
    'aria-describedby': errorFor(field) ? `${ids.error}-${field}` : undefined,
  });
  const fieldError = (field: string) =>
    errorFor(field) && (
      <span className="field-error" id={`${ids.error}-${field}`}>
        {errorFor(field)}
      </span>
    );
  return (
    <form className="form grant-form" onSubmit={submit} noValidate aria-label="Выдать привилегию">
      <h3>Выдать привилегию</h3>
      <div className="form-grid">
        <div className={errorFor('username') ? 'field field-invalid' : 'field'}>
          <label htmlFor={ids.user}>Игрок</label>
          <input
            id={ids.user}
            value={username}
            maxLength={32}
            autoComplete="off"
            onChange={(e) => setUsername(e.target.value)}
            {...fieldProps('username')}
          />
          {fieldError('username')}
        </div>
        <div className={errorFor('tier_id') ? 'field field-invalid' : 'field'}>
          <label htmlFor={ids.tier}>Донат</label>
          <select id={ids.tier} value={tierId} onChange={(e) => setTierId(e.target.value)} {...fieldProps('tier_id')}>
            <option value="">Выберите донат</option>
            {tiers.map((t) => (
              <option key={t.id} value={t.id}>
                {t.title}
              </option>
            ))}
          </select>
          {fieldError('tier_id')}
        </div>
        <div className={errorFor('days') ? 'field field-invalid' : 'field'}>
          <label htmlFor={ids.days}>Дней</label>
          <input
            id={ids.days}
            value={days}
            inputMode="numeric"
            onChange={(e) => setDays(e.target.value.replace(/\D/g, '').slice(0, 4))}
            {...fieldProps('days')}
          />
          {fieldError('days')}
        </div>
      </div>
      <p className="muted">Тот же донат продлевается; более низкий действующий заменяется (без зачёта); при более высоком — отказ.</p>
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={grant.isPending}>
          {grant.isPending ? 'Выдаём…' : 'Выдать'}
        </button>
      </div>
    </form>
  );
}

function EndForm({ privilege, onDone }: { privilege: AdminPrivilege; onDone: () => void }) {
  const notify = useNotify();
  const [value, setValue] = useState(localInput(privilege.expires_at));
  const [error, setError] = useState('');
  const inputId = useId();
  const errorId = useId();
  const save = useMutation({
    mutationFn: (ms: number) => setPrivilegeEnd(privilege.id, ms),
    onSuccess: (p) => {
      notify('success', p.active ? 'Срок привилегии изменён' : 'Привилегия закончилась: команды снятия отправлены в игру');
      onDone();
    },
    onError: (err) => setError(err instanceof ApiError && err.message ? err.message : 'Не удалось изменить срок'),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const ms = new Date(value).getTime();
    if (!value || Number.isNaN(ms)) return setError('Укажите дату и время окончания');
    save.mutate(ms);
  };
  return (
    <form className="form" onSubmit={submit} noValidate>
      <p>
        {privilege.username}: {privilege.title}
      </p>
      <div className={error ? 'field field-invalid' : 'field'}>
        <label htmlFor={inputId}>Окончание</label>
        <input
          id={inputId}
          type="datetime-local"
          value={value}
          onChange={(e) => (setValue(e.target.value), setError(''))}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
        />
        {error && (
          <span className="field-error" id={errorId}>
            {error}
          </span>
        )}
        <span className="hint">Время в прошлом закончит привилегию сейчас: выполнятся команды снятия.</span>
      </div>
      <div className="form-actions">
        <button type="button" className="btn" onClick={() => setValue(localInput(Date.now()))}>
          Закончить сейчас
        </button>
        <button type="submit" className="btn btn-primary" disabled={save.isPending}>
          {save.isPending ? 'Сохраняем…' : 'Сохранить'}
        </button>
      </div>
    </form>
  );
}
