import type { BanSourceBody, BanSourceView } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { Badge } from '../../components/Badge.tsx';
import { ConnectionCheckPanel, DatabaseUrlField } from '../../components/DatabaseConnection.tsx';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { CheckboxField, SelectField, TextField } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import { BAN_SOURCE_KEY, checkBanSource, fetchBanSource, saveBanSource } from './api.ts';

const KIND = { mysql: 'MySQL / MariaDB', postgres: 'PostgreSQL' } as const;

/** Админ-панель → Баны на сайте: LiteBans or AdvancedBan on /bans (docs/bans.md). */
export default function AdminBanSourcePage() {
  useTitle('Админ-панель: баны на сайте');
  const query = useQuery({ queryKey: BAN_SOURCE_KEY, queryFn: fetchBanSource });
  return (
    <AdminSection title="Баны на сайте">
      <p className="muted">
        Страница <a href="/bans">/bans</a> показывает баны сайта и, если подключить базу плагина, баны, муты, кики и предупреждения LiteBans
        или AdvancedBan. IP-адреса и тихие наказания не показываются никогда.
      </p>
      <QueryState query={query} error="Не удалось загрузить настройки" isEmpty={() => false}>
        {(view) => (
          <div className="stack">
            <SourceForm key={JSON.stringify(view)} view={view} />
            <ConnectionCheckPanel headingId="ban-source-check-h" check={checkBanSource} />
          </div>
        )}
      </QueryState>
    </AdminSection>
  );
}

const Fields = z.object({
  plugin: z.enum(['litebans', 'advancedban']),
  database_url: z.string().max(1000, 'Слишком длинный адрес'),
  disconnect: z.boolean(),
  table_prefix: z.string().max(32, 'До 32 символов'),
});
type Fields = z.infer<typeof Fields>;

function SourceForm({ view }: { view: BanSourceView }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const owner = useAuth().user?.is_admin ?? false;
  const form = useSchemaForm(Fields, {
    defaultValues: { plugin: view.plugin, database_url: '', disconnect: false, table_prefix: view.table_prefix },
  });
  async function save(v: Fields) {
    const body: BanSourceBody = { plugin: v.plugin, table_prefix: v.table_prefix.trim() };
    // The address is the owner's, and write-only: left empty it stays as it is.
    if (owner && v.disconnect) body.database_url = null;
    else if (owner && v.database_url.trim() !== '') body.database_url = v.database_url.trim();
    const saved = await saveBanSource(body);
    queryClient.setQueryData(BAN_SOURCE_KEY, saved);
    void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
    void queryClient.invalidateQueries({ queryKey: ['bans', 'public'] });
    notify('success', 'Настройки сохранены');
  }
  const now = view.connected ? `${view.kind ? KIND[view.kind] : ''}${view.display ? `: ${view.display}` : ''}` : 'не подключена';
  return (
    <section className="card stack" aria-labelledby="ban-source-h">
      <div className="row">
        <h3 id="ban-source-h">Плагин наказаний</h3>
        {view.connected ? <Badge tone="success">Подключён</Badge> : <Badge>Не подключён</Badge>}
      </div>
      <Form form={form} onSubmit={save}>
        <SelectField
          name="plugin"
          label="Плагин"
          options={[
            { value: 'litebans', label: 'LiteBans' },
            { value: 'advancedban', label: 'AdvancedBan (только MySQL/MariaDB)' },
          ]}
        />
        <DatabaseUrlField
          owner={owner}
          label="Адрес базы данных плагина"
          placeholder="mysql://пользователь:пароль@хост:3306/litebans"
          hint={`Сейчас: ${now}. Пустое поле — оставить как есть. Также postgres://… Дайте сайту пользователя только с правом SELECT.`}
          readOnly={`База данных: ${now}. Адрес меняет только владелец сайта: в нём пароль от базы.`}
        >
          {view.connected && <CheckboxField name="disconnect" label="Отключить базу плагина" />}
        </DatabaseUrlField>
        <TextField
          name="table_prefix"
          label="Префикс таблиц"
          hint="table_prefix в config.yml LiteBans (litebans_); у AdvancedBan обычно пусто."
        />
        <FormErrors />
        <FormActions />
      </Form>
    </section>
  );
}
