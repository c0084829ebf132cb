import { ReferralSettingsBody } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { MoneyField, NumberField } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { ADMIN_REFERRAL_SETTINGS_KEY, fetchReferralSettings, saveReferralSettings } from './admin-api.ts';

/** Админ-панель → Голосование → Рефералы: what an inviter earns from the players they bring. */
export function AdminReferrals() {
  const query = useQuery({ queryKey: ADMIN_REFERRAL_SETTINGS_KEY, queryFn: fetchReferralSettings });
  return (
    <AdminSection title="Рефералы">
      <p className="muted">
        Игрок делится ссылкой из личного кабинета; пригласивший получает долю пополнений друга и/или бонус за его первое пополнение. При
        возврате платежа награда списывается в той же доле. Регистрации с устройства или адреса пригласившего не засчитываются.
      </p>
      <QueryState query={query} error="Не удалось загрузить правила" isEmpty={() => false}>
        {(data) => <RulesEditor key={JSON.stringify(data)} value={data} />}
      </QueryState>
    </AdminSection>
  );
}

function RulesEditor({ value }: { value: ReferralSettingsBody }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const form = useSchemaForm(ReferralSettingsBody, { defaultValues: value });
  return (
    <Form
      form={form}
      onSubmit={async (body) => {
        const saved = await saveReferralSettings(body);
        queryClient.setQueryData(ADMIN_REFERRAL_SETTINGS_KEY, saved);
        void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
        notify('success', 'Правила сохранены');
      }}
    >
      <div className="form-grid">
        <MoneyField name="share_percent" label="Доля от пополнений, %" hint="0 — без доли." />
        <NumberField name="share_days" label="Сколько дней после регистрации платить долю" />
        <MoneyField name="bonus_amount" label="Бонус за первое пополнение, ₽" hint="0 — без бонуса." />
        <MoneyField name="bonus_min_topup" label="Первое пополнение от, ₽" />
      </div>
      <FormErrors />
      <FormActions />
    </Form>
  );
}
