import { SecuritySettingsBody } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { CheckboxField } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import { fetchSecuritySettings, saveSecuritySettings, SECURITY_SETTINGS_KEY, TWO_FACTOR_KEY } from './api.ts';

/** Админ-панель → Безопасность: whether administrators must use two-factor login. */
export default function AdminSecurityPage() {
  useTitle('Админ-панель: безопасность');
  const query = useQuery({ queryKey: SECURITY_SETTINGS_KEY, queryFn: fetchSecuritySettings });
  return (
    <AdminSection title="Безопасность">
      <QueryState query={query} error="Не удалось загрузить настройки" isEmpty={() => false}>
        {(s) => <SettingsForm key={String(s.require_admin_two_factor)} required={s.require_admin_two_factor} />}
      </QueryState>
    </AdminSection>
  );
}

function SettingsForm({ required }: { required: boolean }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const form = useSchemaForm(SecuritySettingsBody, { defaultValues: { require_admin_two_factor: required } });
  return (
    <Form
      form={form}
      onSubmit={async (body) => {
        const saved = await saveSecuritySettings(body);
        queryClient.setQueryData(SECURITY_SETTINGS_KEY, saved);
        void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
        void queryClient.invalidateQueries({ queryKey: TWO_FACTOR_KEY });
        notify('success', 'Настройки безопасности сохранены');
      }}
    >
      <CheckboxField
        name="require_admin_two_factor"
        label="Администраторам обязательна двухфакторная защита"
        hint="Администратор без неё не сможет пользоваться админ-панелью, пока не включит защиту в личном кабинете. Включить требование можно, только включив защиту у себя."
      />
      <FormErrors />
      <FormActions />
    </Form>
  );
}
