import { PaymentSettingsBody, VAT_CODE_TEXT, type AdminPaymentSettings } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useFieldArray, useFormContext } from 'react-hook-form';
import { z } from 'zod';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { FieldGroup, MoneyField, SelectField } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { formatNumber, formatRub } from '../../lib/format.ts';
import { OWNER_ONLY_HINT } from '../../lib/owner-only.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { ADMIN_PAYMENT_SETTINGS_KEY, fetchPaymentSettings, savePaymentSettings } from './api.ts';

const MAX_RULES = 20;

// The select gives the VAT code as text; the contract's own rule checks the number.
const SettingsForm = PaymentSettingsBody.extend({ vat_code: z.coerce.number().pipe(PaymentSettingsBody.shape.vat_code) });
type FormInput = z.input<typeof SettingsForm>;

const VAT_OPTIONS = Object.entries(VAT_CODE_TEXT).map(([value, label]) => ({ value, label }));

/** «Бонусы и чек»: the owner's top-up bonus rules and the receipt's VAT code. */
export function BonusSettings({ onDone }: { onDone: () => void }) {
  const query = useQuery({ queryKey: ADMIN_PAYMENT_SETTINGS_KEY, queryFn: fetchPaymentSettings });
  return (
    <QueryState query={query} error="Не удалось загрузить настройки платежей" isEmpty={() => false}>
      {(data) => <SettingsEditor key={JSON.stringify(data.value)} data={data} onDone={onDone} />}
    </QueryState>
  );
}

function SettingsEditor({ data, onDone }: { data: AdminPaymentSettings; onDone: () => void }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  // A bonus credits balance nobody paid for: the rules are the owner's (staff send them back as they stand).
  const owner = useAuth().user?.is_admin ?? false;
  const form = useSchemaForm<FormInput, PaymentSettingsBody>(SettingsForm, {
    defaultValues: { vat_code: String(data.value.vat_code), bonus_rules: data.value.bonus_rules },
  });
  return (
    <Form
      form={form}
      onSubmit={async (body) => {
        const rules = owner ? [...body.bonus_rules].sort((a, b) => a.from - b.from) : data.value.bonus_rules;
        const saved = await savePaymentSettings({ ...body, bonus_rules: rules });
        queryClient.setQueryData(ADMIN_PAYMENT_SETTINGS_KEY, saved);
        void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
        notify('success', 'Настройки платежей сохранены');
        onDone();
      }}
    >
      {owner ? <Rules /> : <RulesReadOnly rules={data.value.bonus_rules} />}
      <SelectField
        name="vat_code"
        label="Ставка НДС в чеке"
        options={VAT_OPTIONS}
        hint="Для чеков ЮKassa (54-ФЗ), когда они включены в «Подключениях»."
      />
      <FormErrors />
      <FormActions onCancel={onDone} />
    </Form>
  );
}

function Rules() {
  const { control } = useFormContext<FormInput>();
  const rules = useFieldArray({ control, name: 'bonus_rules' });
  return (
    <FieldGroup legend="Бонусы к пополнению">
      <p className="muted">
        Бонус зачисляется вместе с платежом отдельной записью «бонус»; из подходящих правил берётся самое выгодное. При возврате платежа
        бонус списывается тоже.
      </p>
      {rules.fields.length === 0 && <p className="muted">Бонусов нет.</p>}
      {rules.fields.map((rule, i) => (
        <div className="form-grid" key={rule.id}>
          <MoneyField name={`bonus_rules.${i}.from`} label={`Правило ${i + 1}: от суммы, ₽`} />
          <MoneyField name={`bonus_rules.${i}.percent`} label="Бонус, %" />
          <div className="admin-actions">
            <button type="button" className="btn btn-small btn-danger" onClick={() => rules.remove(i)}>
              Удалить правило {i + 1}
            </button>
          </div>
        </div>
      ))}
      {rules.fields.length < MAX_RULES && (
        <div>
          <button type="button" className="btn btn-small" onClick={() => rules.append({ from: Number.NaN, percent: Number.NaN })}>
            Добавить правило
          </button>
        </div>
      )}
      <RulesExample />
    </FieldGroup>
  );
}

/** The rules as staff see them: a list, with who may change it. */
function RulesReadOnly({ rules }: { rules: PaymentSettingsBody['bonus_rules'] }) {
  return (
    <FieldGroup legend="Бонусы к пополнению">
      {rules.length === 0 ? (
        <p className="muted">Бонусов нет.</p>
      ) : (
        <ul>
          {[...rules]
            .sort((a, b) => a.from - b.from)
            .map((r) => (
              <li key={`${r.from}:${r.percent}`}>
                От {formatRub(r.from)} — +{formatNumber(r.percent)} %
              </li>
            ))}
        </ul>
      )}
      <p className="hint">{OWNER_ONLY_HINT}: бонус зачисляется на баланс сверх оплаченного.</p>
    </FieldGroup>
  );
}

/** «Например: от 1 000 ₽ — +10 %, за 1 500 ₽ придёт 1 650 ₽». */
function RulesExample() {
  const { watch } = useFormContext<FormInput>();
  const valid = (watch('bonus_rules') ?? []).filter(
    (r) => Number.isFinite(r.from) && Number.isFinite(r.percent) && r.from > 0 && r.percent > 0,
  );
  if (valid.length === 0) return null;
  const best = [...valid].sort((a, b) => a.from - b.from)[0]!;
  const sum = best.from;
  const bonus = Math.floor(sum * best.percent) / 100;
  return (
    <p className="hint">
      Например, за {formatRub(sum)} игрок получит {formatRub(sum + bonus)} (+{formatNumber(best.percent)} %).
    </p>
  );
}
