import { DEFAULT_COMMAND_TEMPLATE, DEFAULT_RCON_PORT, SERVER_DEFAULTS, ServerBody, type AdminServer, type ServerBodyInput } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState, type FormEvent, type TextareaHTMLAttributes } from 'react';
import { useNotify } from '../../providers/notifications.tsx';
import { Badge } from '../../components/Badge.tsx';
import { Dropdown } from '../../components/Dropdown.tsx';
import { Field } from '../../components/Field.tsx';
import { Modal } from '../../components/Modal.tsx';
import { Empty, Loading } from '../../components/States.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useTitle } from '../../providers/title.ts';
import { ADMIN_MONITOR_MS, createServer, deleteServer, fetchAdminServers, runMonitor, serverAddress, SERVERS_ADMIN_KEY, SERVERS_KEY, updateServer } from './api.ts';
import './servers.css';

/** The form as typed: numbers stay text until they are sent, so a half-typed field is not lost. */
interface Draft {
  id: number | null;
  name: string;
  description: string;
  image_url: string;
  ip_address: string;
  port: string;
  max_online: string;
  rcon_host: string;
  rcon_port: string;
  rcon_password: string;
  clear_password: boolean;
  has_password: boolean;
  command_template: string;
}

type FieldName = keyof ServerBodyInput;

const EMPTY: Draft = {
  id: null,
  name: '',
  description: '',
  image_url: '',
  ip_address: '',
  port: String(SERVER_DEFAULTS.port),
  max_online: String(SERVER_DEFAULTS.max_online),
  rcon_host: '',
  rcon_port: '',
  rcon_password: '',
  clear_password: false,
  has_password: false,
  command_template: DEFAULT_COMMAND_TEMPLATE,
};

function toDraft(s: AdminServer): Draft {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    image_url: s.image_url,
    ip_address: s.ip_address,
    port: String(s.port),
    max_online: String(s.max_online),
    rcon_host: s.rcon_host ?? '',
    rcon_port: s.rcon_port == null ? '' : String(s.rcon_port),
    rcon_password: '',
    clear_password: false,
    has_password: s.has_rcon_password,
    command_template: s.command_template,
  };
}

const asNumber = (v: string): number | string => (/^\s*\d{1,10}\s*$/.test(v) ? Number(v) : v);

function toBody(d: Draft): ServerBodyInput {
  const body: ServerBodyInput = {
    name: d.name,
    description: d.description,
    image_url: d.image_url.trim(),
    ip_address: d.ip_address.trim(),
    port: asNumber(d.port) as number,
    max_online: asNumber(d.max_online) as number,
    rcon_host: d.rcon_host.trim() || null,
    rcon_port: d.rcon_port.trim() === '' ? null : (asNumber(d.rcon_port) as number),
    command_template: d.command_template.trim() || null,
  };
  // Write-only: sent only when typed; an edit with an empty field keeps the stored one.
  if (d.clear_password) body.rcon_password = null;
  else if (d.rcon_password) body.rcon_password = d.rcon_password;
  return body;
}

/** The first problem of each field, in the words of the shared schema. */
function validate(d: Draft): Partial<Record<FieldName, string>> {
  const parsed = ServerBody.safeParse(toBody(d));
  if (parsed.success) return {};
  const errors: Partial<Record<FieldName, string>> = {};
  for (const issue of parsed.error.issues) {
    const key = issue.path[0] as FieldName | undefined;
    if (key && !errors[key]) errors[key] = issue.message;
  }
  return errors;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n).trimEnd()}…` : s);

export default function AdminServersPage() {
  useTitle('Админ-панель: серверы');
  const notify = useNotify();
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: SERVERS_ADMIN_KEY, queryFn: fetchAdminServers });
  const [draft, setDraft] = useState<Draft | null>(null);
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [serverError, setServerError] = useState('');

  useEffect(() => {
    if (list.error) console.error('Не удалось загрузить серверы', list.error);
  }, [list.error]);

  const refresh = () => queryClient.invalidateQueries({ queryKey: SERVERS_KEY });
  const failure = (base: string, err: unknown) => (err instanceof ApiError && err.message && err.status !== 0 ? `${base}: ${err.message}` : base);

  const monitor = useMutation({
    mutationFn: runMonitor,
    onError: () => notify('danger', 'Ошибка мониторинга'),
    onSettled: refresh,
  });
  // While this screen is open, statuses are refreshed every 5 minutes (and on the button).
  const { mutate: checkAll } = monitor;
  useEffect(() => {
    const timer = window.setInterval(() => checkAll(), ADMIN_MONITOR_MS);
    return () => window.clearInterval(timer);
  }, [checkAll]);

  const save = useMutation({
    mutationFn: (d: Draft) => (d.id === null ? createServer(toBody(d)) : updateServer(d.id, toBody(d))),
    onSuccess: (res) => {
      notify('success', res.message);
      setDraft(null);
    },
    onError: (err) => {
      notify('danger', failure('Ошибка сохранения', err));
      setServerError(err instanceof ApiError ? err.message : '');
    },
    onSettled: refresh,
  });

  const remove = useMutation({
    mutationFn: (s: AdminServer) => deleteServer(s.id),
    onSuccess: (res) => notify('success', res.message),
    onError: (err) => notify('danger', failure('Ошибка удаления', err)),
    onSettled: refresh,
  });

  const open = (d: Draft) => {
    setErrors({});
    setServerError('');
    setDraft(d);
  };

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!draft) return;
    const found = validate(draft);
    setErrors(found);
    setServerError('');
    if (Object.keys(found).length > 0) return;
    save.mutate(draft);
  }

  const set = (key: keyof Draft) => (e: { target: { value: string } }) => setDraft((d) => (d ? { ...d, [key]: e.target.value } : d));
  const servers = list.data?.servers ?? [];

  return (
    <section className="stack" aria-labelledby="admin-servers-heading">
      <div className="srv-admin-head">
        <h2 id="admin-servers-heading">Серверы</h2>
        <div className="srv-admin-buttons">
          <button type="button" className="btn" onClick={() => monitor.mutate()} disabled={monitor.isPending}>
            {monitor.isPending ? 'Проверяем…' : 'Обновить статусы'}
          </button>
          <button type="button" className="btn btn-primary" onClick={() => open(EMPTY)}>
            Добавить сервер
          </button>
        </div>
      </div>

      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <Empty>Ошибка загрузки серверов</Empty>
      ) : servers.length === 0 ? (
        <Empty>Серверов пока нет. Добавьте первый.</Empty>
      ) : (
        <div className="table-wrap srv-table-wrap">
          <table className="table srv-table">
            <thead>
              <tr>
                <th className="srv-num">ID</th>
                <th>Название</th>
                <th>Описание</th>
                <th className="srv-num">Онлайн</th>
                <th className="srv-num">Макс. онлайн</th>
                <th>Статус</th>
                <th>Действия</th>
              </tr>
            </thead>
            <tbody>
              {servers.map((s) => (
                <tr key={s.id}>
                  <td className="srv-num" data-label="ID">{s.id}</td>
                  <td data-label="Название">{s.name}</td>
                  <td className="srv-clip" data-label="Описание" title={s.description}>
                    {clip(s.description, 60)}
                  </td>
                  <td className="srv-num" data-label="Онлайн">{s.online}</td>
                  <td className="srv-num" data-label="Макс. онлайн">{s.max_online}</td>
                  <td data-label="Статус">
                    <Badge tone={s.status === 'online' ? 'success' : 'danger'}>{s.status === 'online' ? 'Онлайн' : 'Оффлайн'}</Badge>
                  </td>
                  <td className="srv-actions">
                    <Dropdown label={`Действия с сервером «${s.name}»`}>
                      {(close) => (
                        <>
                          <dl>
                            <dt>IP</dt>
                            <dd>{s.ip_address || '—'}</dd>
                            <dt>Порт</dt>
                            <dd>{s.port}</dd>
                            <dt>Описание</dt>
                            <dd>{s.description}</dd>
                            <dt>Статус</dt>
                            <dd>{s.status === 'online' ? 'Онлайн' : 'Оффлайн'}</dd>
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
                            <dt>RCON</dt>
                            <dd>{s.rcon_configured ? `настроен (${serverAddress(s.rcon_host || s.ip_address, s.rcon_port ?? DEFAULT_RCON_PORT)})` : 'не настроен'}</dd>
                          </dl>
                          <button
                            type="button"
                            onClick={() => {
                              close();
                              open(toDraft(s));
                            }}
                          >
                            Изменить
                          </button>
                          <button
                            type="button"
                            className="srv-danger-item"
                            disabled={remove.isPending}
                            onClick={() => {
                              close();
                              if (window.confirm('Удалить сервер?')) remove.mutate(s);
                            }}
                          >
                            Удалить
                          </button>
                        </>
                      )}
                    </Dropdown>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <Modal open={draft !== null} title={draft?.id ? 'Изменить сервер' : 'Новый сервер'} onClose={() => setDraft(null)} wide>
        {draft && (
          <form className="form" onSubmit={submit} noValidate>
            <Field label="Название" name="name" value={draft.name} onChange={set('name')} maxLength={100} required error={errors.name} />
            <TextArea label="Описание" name="description" value={draft.description} onChange={set('description')} rows={3} maxLength={2000} required error={errors.description} />
            <Field
              label="Ссылка на изображение (image_url)"
              name="image_url"
              inputMode="url"
              value={draft.image_url}
              onChange={set('image_url')}
              placeholder="https://… или /images/…"
              hint="Необязательно. Без картинки показывается значок сервера."
              error={errors.image_url}
            />
            <div className="srv-form-grid">
              <Field label="IP-адрес или домен (ip_address)" name="ip_address" value={draft.ip_address} onChange={set('ip_address')} placeholder="play.example.ru" autoComplete="off" spellCheck={false} error={errors.ip_address} />
              <Field label="Порт" name="port" type="number" inputMode="numeric" min={1} max={65535} value={draft.port} onChange={set('port')} required error={errors.port} />
              <Field label="Максимальный онлайн" name="max_online" type="number" inputMode="numeric" min={1} value={draft.max_online} onChange={set('max_online')} required error={errors.max_online} />
            </div>

            <fieldset className="srv-fieldset">
              <legend>Выдача покупок (RCON)</legend>
              <p className="srv-hint">Магазин отправляет команды на сервер по RCON. Включите enable-rcon в server.properties и укажите тот же пароль.</p>
              <div className="srv-form-grid">
                <Field label="Адрес RCON" name="rcon_host" value={draft.rcon_host} onChange={set('rcon_host')} placeholder={draft.ip_address || 'как у сервера'} hint="Пусто — адрес сервера." autoComplete="off" spellCheck={false} error={errors.rcon_host} />
                <Field label="Порт RCON" name="rcon_port" type="number" inputMode="numeric" min={1} max={65535} value={draft.rcon_port} onChange={set('rcon_port')} placeholder={String(DEFAULT_RCON_PORT)} error={errors.rcon_port} />
              </div>
              <Field
                label="Пароль RCON"
                name="rcon_password"
                type="password"
                autoComplete="new-password"
                value={draft.rcon_password}
                onChange={set('rcon_password')}
                disabled={draft.clear_password}
                hint={draft.has_password ? 'Пароль задан. Оставьте поле пустым, чтобы не менять его.' : 'Пароль не задан.'}
                error={errors.rcon_password}
              />
              {draft.has_password && (
                <label className="checkbox">
                  <input type="checkbox" checked={draft.clear_password} onChange={(e) => setDraft({ ...draft, clear_password: e.target.checked, rcon_password: '' })} />
                  Удалить пароль RCON (выдача на этот сервер отключится)
                </label>
              )}
              <Field
                label="Шаблон команды выдачи"
                name="command_template"
                value={draft.command_template}
                onChange={set('command_template')}
                spellCheck={false}
                hint="Подстановки: {player}, {item}, {quantity}, {order}."
                error={errors.command_template}
              />
            </fieldset>

            {serverError && (
              <p className="notice notice-danger" role="alert">
                {serverError}
              </p>
            )}
            <div className="form-actions">
              <button type="button" className="btn" onClick={() => setDraft(null)}>
                Отмена
              </button>
              <button type="submit" className="btn btn-primary" disabled={save.isPending}>
                {save.isPending ? 'Сохраняем…' : 'Сохранить'}
              </button>
            </div>
          </form>
        )}
      </Modal>
    </section>
  );
}

interface TextAreaProps extends TextareaHTMLAttributes<HTMLTextAreaElement> {
  label: string;
  error?: string;
}

function TextArea({ label, error, ...rest }: TextAreaProps) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} {...rest} />
      {error && (
        <span className="field-error" id={`${id}-error`} role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
