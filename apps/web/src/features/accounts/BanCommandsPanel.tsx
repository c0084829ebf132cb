import { BanCommandsBody, type BanServerCommands } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { TextField } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { BAN_COMMANDS_KEY, fetchBanCommands, saveBanCommands } from './bans-api.ts';

const HINT = 'Подстановки: {player}, {uuid}, {reason}, {until}, {duration} (30d, 12h — для tempban). Пусто — на этот сервер не отправлять.';

/** Админ-панель → Пользователи: the optional console commands each server runs on a ban and on its end. */
export function BanCommandsPanel() {
  const list = useQuery({ queryKey: BAN_COMMANDS_KEY, queryFn: fetchBanCommands });
  return (
    <details className="card stack ban-commands">
      <summary>
        <strong>Команды бана в игре</strong> <span className="muted">— по серверам, через очередь выдачи</span>
      </summary>
      <QueryState query={list} error="Не удалось загрузить серверы" empty="Серверов пока нет: добавьте их в разделе «Серверы»">
        {(servers) => (
          <div className="stack">
            {servers.map((s) => (
              <ServerCommands key={s.server_id} server={s} />
            ))}
          </div>
        )}
      </QueryState>
    </details>
  );
}

function ServerCommands({ server }: { server: BanServerCommands }) {
  const notify = useNotify();
  const client = useQueryClient();
  const form = useSchemaForm(BanCommandsBody, {
    defaultValues: { ban_command: server.ban_command ?? '', unban_command: server.unban_command ?? '' },
  });
  async function save(body: BanCommandsBody) {
    await saveBanCommands(server.server_id, body);
    notify('success', `Команды сервера «${server.server_name}» сохранены`);
    await Promise.all([client.invalidateQueries({ queryKey: BAN_COMMANDS_KEY }), client.invalidateQueries({ queryKey: AUDIT_KEY })]);
  }
  return (
    <fieldset className="field-group">
      <legend>
        {server.server_name}
        {!server.rcon && <span className="muted"> — RCON не настроен, команды не отправятся</span>}
      </legend>
      <Form form={form} onSubmit={save}>
        <TextField
          name="ban_command"
          label={`Команда бана (${server.server_name})`}
          placeholder="ban {player} {reason}"
          autoComplete="off"
          hint={HINT}
        />
        <TextField
          name="unban_command"
          label={`Команда разбана (${server.server_name})`}
          placeholder="pardon {player}"
          autoComplete="off"
        />
        <FormErrors />
        <FormActions />
      </Form>
    </fieldset>
  );
}
