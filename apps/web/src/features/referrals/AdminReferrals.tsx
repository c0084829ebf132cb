import {
  REFERRAL_REWARD_KIND_TEXT,
  REFERRAL_REWARD_REASON_TEXT,
  REFERRAL_REWARD_STATUS_TEXT,
  ReferralSettingsBody,
  type AdminReferralRewards,
} from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable } from '../../components/admin/DataTable.tsx';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { MoneyField, NumberField } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { formatDate, formatDateTime, formatRub } from '../../lib/format.ts';
import { OWNER_ONLY_HINT } from '../../lib/owner-only.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import {
  ADMIN_REFERRAL_REWARDS_KEY,
  ADMIN_REFERRAL_SETTINGS_KEY,
  fetchReferralRewards,
  fetchReferralSettings,
  saveReferralSettings,
} from './admin-api.ts';

/** Админ-панель → Голосование → Рефералы: what an inviter earns from the players they bring. */
export function AdminReferrals() {
  const query = useQuery({ queryKey: ADMIN_REFERRAL_SETTINGS_KEY, queryFn: fetchReferralSettings });
  return (
    <AdminSection title="Рефералы">
      <p className="muted">
        Игрок делится ссылкой из личного кабинета; пригласивший получает долю пополнений друга и/или бонус за его первое пополнение. Награда
        сначала ждёт выдержку: возврат платежа в эти дни её отменяет, после — списывает в той же доле. Регистрации и пополнения из браузера
        или с адреса пригласившего не вознаграждаются.
      </p>
      <QueryState query={query} error="Не удалось загрузить правила" isEmpty={() => false}>
        {(data) => <RulesEditor key={JSON.stringify(data)} value={data} />}
      </QueryState>
      <LatestRewards />
    </AdminSection>
  );
}

/** Every rule decides how much balance is paid on top of what players paid: the owner's; staff see them. */
function RulesEditor({ value }: { value: ReferralSettingsBody }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const locked = !(useAuth().user?.is_admin ?? false);
  const form = useSchemaForm(ReferralSettingsBody, { defaultValues: value });
  return (
    <Form
      form={form}
      onSubmit={async (body) => {
        const saved = await saveReferralSettings(body);
        queryClient.setQueryData(ADMIN_REFERRAL_SETTINGS_KEY, saved);
        void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
        void queryClient.invalidateQueries({ queryKey: ADMIN_REFERRAL_REWARDS_KEY });
        notify('success', 'Правила сохранены');
      }}
    >
      {locked && <p className="hint">{OWNER_ONLY_HINT}: правила решают, сколько начисляется на баланс сверх оплаченного.</p>}
      <div className="form-grid">
        <MoneyField name="share_percent" label="Доля от пополнений, %" hint="0 — без доли." readOnly={locked} />
        <NumberField name="share_days" label="Сколько дней после регистрации платить долю" readOnly={locked} />
        <MoneyField
          name="bonus_amount"
          label="Бонус за первое пополнение, ₽"
          hint="0 — без бонуса. Не больше суммы первого пополнения."
          readOnly={locked}
        />
        <MoneyField name="bonus_min_topup" label="Первое пополнение от, ₽" readOnly={locked} />
        <NumberField
          name="hold_days"
          label="Выдержка награды, дней"
          hint="Столько дней награда ждёт, прежде чем поступить на баланс; возврат платежа в эти дни её отменяет. 0 — сразу."
          readOnly={locked}
        />
      </div>
      <FormErrors />
      {!locked && <FormActions />}
    </Form>
  );
}

function rewardState(r: AdminReferralRewards['rewards'][number]): string {
  const reason = r.reason ? `: ${REFERRAL_REWARD_REASON_TEXT[r.reason]}` : '';
  if (r.status === 'held' && r.release_at !== null) return `Ждёт до ${formatDate(r.release_at)}`;
  if (r.status === 'paid' && r.reversed > 0) return `Зачислена, списано ${formatRub(r.reversed)} после возврата`;
  return `${REFERRAL_REWARD_STATUS_TEXT[r.status]}${reason}`;
}

/** The latest rewards and what became of each: the owner sees what was held, credited, canceled or refused, and why. */
function LatestRewards() {
  const query = useQuery({ queryKey: ADMIN_REFERRAL_REWARDS_KEY, queryFn: fetchReferralRewards });
  return (
    <section className="stack" aria-labelledby="referral-rewards-heading">
      <h3 id="referral-rewards-heading">Последние награды</h3>
      <QueryState
        query={query}
        error="Не удалось загрузить награды"
        isEmpty={(d) => d.rewards.length === 0}
        empty="Наград ещё не было: они появятся после пополнений приглашённых игроков."
      >
        {(data) => (
          <DataTable
            labelledBy="referral-rewards-heading"
            rows={data.rewards}
            rowKey={(r) => r.id}
            columns={[
              { header: 'Пригласивший', kind: 'main', cell: (r) => r.inviter },
              { header: 'Приглашённый', cell: (r) => r.invited },
              { header: 'Награда', kind: 'num', cell: (r) => `${formatRub(r.amount)} (${REFERRAL_REWARD_KIND_TEXT[r.kind]})` },
              { header: 'Когда', cell: (r) => formatDateTime(r.created_at) },
              { header: 'Состояние', cell: rewardState },
            ]}
          />
        )}
      </QueryState>
    </section>
  );
}
