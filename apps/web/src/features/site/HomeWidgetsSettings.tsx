import { HomeSettings } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { CheckboxField, FieldGroup } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { api } from '../../lib/api.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useNotify } from '../../providers/notifications.tsx';

const KEY = ['admin', 'home-settings'] as const;
const fetchHomeSettings = () => api<HomeSettings>('/api/admin/home-settings');
const saveHomeSettings = (body: HomeSettings) => api<HomeSettings>('/api/admin/home-settings', { method: 'PUT', body });

/** Админ-панель → Настройки → «Виджеты на главной»: which widgets the home page shows (a document and a form of their own). */
export function HomeWidgetsSettings() {
  const query = useQuery({ queryKey: KEY, queryFn: fetchHomeSettings });
  return (
    <section className="card stack" aria-labelledby="home-widgets-h">
      <h2 id="home-widgets-h">Виджеты на главной</h2>
      <QueryState query={query} error="Не удалось загрузить настройки главной" isEmpty={() => false}>
        {(data) => <WidgetsForm key={JSON.stringify(data)} value={data} />}
      </QueryState>
    </section>
  );
}

function WidgetsForm({ value }: { value: HomeSettings }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const form = useSchemaForm(HomeSettings, { defaultValues: value });
  return (
    <Form
      form={form}
      className="form settings-form"
      onSubmit={async (body) => {
        queryClient.setQueryData(KEY, await saveHomeSettings(body));
        void queryClient.invalidateQueries({ queryKey: ['home'] });
        void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
        notify('success', 'Настройки главной сохранены');
      }}
    >
      <FieldGroup legend="Что показывать на главной">
        <CheckboxField
          name="recent_purchases"
          label="Последние покупки"
          hint="Имя игрока и что он купил, без сумм; игрок может скрыть имя."
        />
        <CheckboxField name="top_donors" label="Лучшие игроки месяца" hint="Места по пополнениям за месяц, только имена." />
      </FieldGroup>
      <FormErrors />
      <FormActions submitLabel="Сохранить виджеты" />
    </Form>
  );
}
