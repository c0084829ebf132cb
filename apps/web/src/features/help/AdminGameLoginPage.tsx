import { GameLoginSettingsBody } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { TextAreaField, TextField } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import { GAME_LOGIN_KEY, fetchGameLogin, saveGameLogin } from './api.ts';
import { ServerSetup } from './ServerSetup.tsx';
import './help.css';

/**
 * Админ-панель → Вход в игру: the name launchers show for the site, the words on /help, and how
 * to set up the game servers (and GravitLauncher) for the site's accounts.
 */
export default function AdminGameLoginPage() {
  useTitle('Админ-панель: вход в игру');
  const query = useQuery({ queryKey: GAME_LOGIN_KEY, queryFn: fetchGameLogin });
  return (
    <AdminSection title="Вход в игру">
      <QueryState query={query} error="Не удалось загрузить настройки" isEmpty={() => false}>
        {(info) => (
          <div className="stack">
            <SettingsForm
              key={`${info.server_name}\n${info.help_text}`}
              serverName={info.server_name}
              helpText={info.help_text}
              yggdrasilUrl={info.yggdrasil_url}
            />
            <ServerSetup info={info} />
          </div>
        )}
      </QueryState>
    </AdminSection>
  );
}

function SettingsForm({ serverName, helpText, yggdrasilUrl }: { serverName: string; helpText: string; yggdrasilUrl: string }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const form = useSchemaForm(GameLoginSettingsBody, { defaultValues: { server_name: serverName, help_text: helpText } });
  return (
    <Form
      form={form}
      onSubmit={async (body) => {
        const saved = await saveGameLogin(body);
        queryClient.setQueryData(GAME_LOGIN_KEY, saved);
        void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
        notify('success', 'Настройки входа в игру сохранены');
      }}
    >
      <p className="muted">
        Адрес для лаунчеров: <code>{yggdrasilUrl}</code>
      </p>
      <TextField
        name="server_name"
        label="Название в лаунчере"
        maxLength={64}
        hint="Так лаунчеры с authlib-injector подписывают сервер авторизации."
      />
      <TextAreaField
        name="help_text"
        label="Текст на странице помощи"
        rows={5}
        maxLength={5000}
        hint="Показывается в разделе «Вход в лаунчере» на странице помощи, над инструкцией. Можно оставить пустым."
      />
      <FormErrors />
      <FormActions />
    </Form>
  );
}
