import {
  COMMAND_PLACEHOLDERS,
  DEFAULT_COMMAND_TEMPLATE,
  DEFAULT_RCON_PORT,
  SERVER_DEFAULTS,
  ServerBody,
  type AdminServer,
  type RconCheckResponse,
  type ServerBodyInput,
} from '@kubik/contract';
import { useMutation } from '@tanstack/react-query';
import { useFormContext, useWatch } from 'react-hook-form';
import { z } from 'zod';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { CheckboxField, FieldGroup, ImageUrlField, NumberField, TextAreaField, TextField } from '../../components/form/fields.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { checkRcon } from './api.ts';
import { rconMoves } from './rcon-address.ts';

/** The server's body, plus the switch that removes a stored RCON password. */
const ServerForm = ServerBody.extend({ clear_password: z.boolean() });
type Values = z.output<typeof ServerForm>;

function toBody({ clear_password, rcon_password, ...rest }: Values): ServerBodyInput {
  // Write-only: sent only when typed (an edit with an empty field keeps the stored one); null removes it.
  return { ...rest, ...(clear_password ? { rcon_password: null } : rcon_password ? { rcon_password } : {}) };
}

interface ServerFormProps {
  /** null for a new server. */
  server: AdminServer | null;
  onSave: (body: ServerBodyInput) => Promise<void>;
  onCancel: () => void;
}

export function ServerFormFields({ server, onSave, onCancel }: ServerFormProps) {
  const form = useSchemaForm(ServerForm, {
    defaultValues: {
      name: server?.name ?? '',
      description: server?.description ?? '',
      image_url: server?.image_url ?? '',
      ip_address: server?.ip_address ?? '',
      port: server?.port ?? SERVER_DEFAULTS.port,
      max_online: server?.max_online ?? SERVER_DEFAULTS.max_online,
      rcon_host: server?.rcon_host ?? '',
      rcon_port: server?.rcon_port ?? null,
      rcon_password: '',
      clear_password: false,
      command_template: server?.command_template ?? DEFAULT_COMMAND_TEMPLATE,
    },
  });
  const [address, clearing, rconHost, rconPort, typed] = useWatch({
    control: form.control,
    name: ['ip_address', 'clear_password', 'rcon_host', 'rcon_port', 'rcon_password'],
  });
  const moved =
    server !== null &&
    rconMoves(server, {
      ip_address: address,
      rcon_host: rconHost,
      rcon_port: typeof rconPort === 'number' ? rconPort : null,
    });
  return (
    <Form form={form} onSubmit={(values) => onSave(toBody(values))}>
      <TextField name="name" label="Название" maxLength={100} />
      <TextAreaField name="description" label="Описание" rows={3} maxLength={2000} />
      <ImageUrlField name="image_url" label="Ссылка на изображение" hint="Необязательно. Без картинки показывается значок сервера." />
      <div className="form-grid">
        <TextField name="ip_address" label="IP-адрес или домен" placeholder="play.example.ru" autoComplete="off" spellCheck={false} />
        <NumberField name="port" label="Порт" />
        <NumberField name="max_online" label="Максимальный онлайн" />
      </div>

      <FieldGroup legend="Выдача в игре (RCON)">
        <p className="muted">
          Покупки, привилегии и наборы выдаются командами по RCON. В server.properties сервера: enable-rcon=true, rcon.port и rcon.password
          — тот же пароль, что здесь.
        </p>
        <div className="form-grid">
          <TextField
            name="rcon_host"
            label="Адрес RCON"
            placeholder={address || 'как у сервера'}
            hint="Пусто — адрес сервера."
            autoComplete="off"
            spellCheck={false}
          />
          <NumberField name="rcon_port" label="Порт RCON" empty={null} placeholder={String(DEFAULT_RCON_PORT)} />
        </div>
        <TextField
          name="rcon_password"
          label="Пароль RCON"
          type="password"
          autoComplete="new-password"
          disabled={clearing}
          hint={passwordHint(server, moved, !!typed)}
        />
        {server?.has_rcon_password && (
          <CheckboxField name="clear_password" label="Удалить пароль RCON (выдача на этот сервер отключится)" />
        )}
        <TextField
          name="command_template"
          label="Шаблон команды выдачи"
          spellCheck={false}
          hint={`Для товаров без своих команд. Подстановки: ${COMMAND_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}.`}
        />
        <RconCheck serverId={server?.id} />
      </FieldGroup>

      <FormErrors />
      <FormActions onCancel={onCancel} />
    </Form>
  );
}

/**
 * Under the password: whether one is stored, and that it goes only to the RCON address it was typed
 * for — a changed address (or the server's own, without an RCON host) drops it on saving unless it
 * is typed again, and a password dropped so says when.
 */
function passwordHint(server: AdminServer | null, moved: boolean, typed: boolean): string {
  if (server?.has_rcon_password) {
    if (moved && !typed)
      return 'Адрес RCON изменён: при сохранении пароль удалится — введите его заново (на другой адрес сохранённый пароль не отправляется).';
    return 'Пароль задан. Оставьте поле пустым, чтобы не менять его.';
  }
  if (server?.rcon_password_dropped_at != null)
    return `Пароль удалён ${formatDateTime(server.rcon_password_dropped_at)}: сменился адрес RCON, а на новый адрес старый пароль не отправляется. Введите его заново.`;
  return 'Пароль не задан.';
}

/** «Проверить RCON»: logs in with what the form holds now and runs `list`; shows the answer or exactly why not. */
function RconCheck({ serverId }: { serverId: number | undefined }) {
  const { control } = useFormContext<Values>();
  const [ip, host, port, password, clearing] = useWatch({
    control,
    name: ['ip_address', 'rcon_host', 'rcon_port', 'rcon_password', 'clear_password'],
  });
  const check = useMutation({
    mutationFn: () =>
      checkRcon({
        ...(serverId !== undefined && { server_id: serverId }),
        ip_address: (ip ?? '').trim(),
        rcon_host: (host ?? '').trim() || null,
        rcon_port: typeof port === 'number' && Number.isFinite(port) ? port : null,
        rcon_password: password ?? '',
      }),
  });
  const result: RconCheckResponse | undefined = check.data;
  const failure = check.error
    ? check.error instanceof ApiError && check.error.message
      ? check.error.message
      : 'Не удалось проверить RCON'
    : null;
  return (
    <div className="rcon-check">
      <button type="button" className="btn" disabled={check.isPending || clearing} onClick={() => check.mutate()}>
        {check.isPending ? 'Проверяем…' : 'Проверить RCON'}
      </button>
      <div role="status" aria-live="polite" className="rcon-check-result">
        {result && !check.isPending && (
          <div className={result.ok ? 'notice notice-success' : 'notice notice-danger'} data-testid="rcon-check-result">
            <p>
              {result.message} <span className="muted">({result.address})</span>
            </p>
            {result.reply !== null && <pre className="rcon-check-reply">{result.reply || '(пустой ответ)'}</pre>}
          </div>
        )}
        {failure && !check.isPending && (
          <div className="notice notice-danger" data-testid="rcon-check-result">
            <p>{failure}</p>
          </div>
        )}
      </div>
    </div>
  );
}
