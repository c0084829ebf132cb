import {
  DEFAULT_KIT_PERIOD_DAYS,
  DonateBody,
  KIT_COMMAND_PLACEHOLDERS,
  MAX_TIER_COMMANDS,
  PRIVILEGE_COMMAND_PLACEHOLDERS,
  type DonateTier,
} from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useFieldArray, useFormContext, useWatch } from 'react-hook-form';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import {
  CheckboxField,
  FieldGroup,
  ImageUrlField,
  MoneyField,
  NumberField,
  TextAreaField,
  SelectField,
  TextField,
} from '../../components/form/fields.tsx';
import { DateTimeField } from '../../components/form/DateTimeField.tsx';
import { Tabs } from '../../components/Tabs.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { fetchTierServers, TIER_SERVERS_KEY } from './privileges-api.ts';

type Section = 'main' | 'game' | 'kits' | 'features';
const GAME_FIELDS = ['server_ids', 'grant_commands', 'revoke_commands', 'periods'];
/** The tab a field stands on, so a failed submit can show it. */
const sectionOf = (name: string): Section =>
  name.startsWith('kits')
    ? 'kits'
    : name.startsWith('features')
      ? 'features'
      : GAME_FIELDS.some((f) => name.startsWith(f))
        ? 'game'
        : 'main';

const newKit = () => ({
  name: '',
  description: '',
  command: '',
  period: DEFAULT_KIT_PERIOD_DAYS,
  kitImg: '',
  give_commands: [] as string[],
});
const DEFAULT_PERIODS = [1, 3, 6, 12].map((months) => ({ months, discount: 0 }));
const newFeature = () => ({ title: '', value: '', description: '', check: true });

function defaults(t: DonateTier | null): DonateBody {
  if (!t)
    return {
      title: '',
      content: '',
      amount: Number.NaN,
      currency: '₽',
      image_url: '',
      is_best: false,
      kits: [],
      features: [],
      server_ids: [],
      grant_commands: [],
      revoke_commands: [],
      periods: DEFAULT_PERIODS,
      sale_amount: null,
      sale_ends_at: null,
      subscription: false,
      subscription_months: 1,
    };
  return {
    title: t.title,
    content: t.content,
    amount: t.amount,
    currency: t.currency,
    image_url: t.image_url ?? '',
    is_best: t.is_best,
    position: t.position,
    kits: t.kits.map((k) => ({ ...k, kitImg: k.kitImg ?? '' })),
    features: t.features.map((f) => ({ ...f, value: f.value ?? '', description: f.description ?? '' })),
    server_ids: t.server_ids,
    grant_commands: t.grant_commands,
    revoke_commands: t.revoke_commands,
    periods: t.periods.map((p) => ({ months: p.months, discount: p.discount })),
    sale_amount: t.sale_amount,
    sale_ends_at: t.sale_ends_at,
    subscription: t.subscription,
    subscription_months: t.subscription_months,
  };
}

interface TierFormProps {
  tier: DonateTier | null;
  onSave: (body: DonateBody) => Promise<void>;
  onCancel: () => void;
}

/** Spec §2: the tier's modal with the tabs main, kits and features (all three stay mounted, so one submit checks all). */
export function TierForm({ tier, onSave, onCancel }: TierFormProps) {
  const notify = useNotify();
  const [section, setSection] = useState<Section>('main');
  const form = useSchemaForm(DonateBody, { defaultValues: defaults(tier) });
  return (
    <Form
      form={form}
      onSubmit={onSave}
      onInvalid={() => notify('danger', 'Заполните все поля!')}
      reveal={(name) => setSection(sectionOf(name))}
    >
      <TierTabs section={section} onChange={setSection} />
      <FormErrors />
      <FormActions onCancel={onCancel} />
    </Form>
  );
}

function TierTabs({ section, onChange }: { section: Section; onChange: (s: Section) => void }) {
  const { control } = useFormContext<DonateBody>();
  const kits = useFieldArray({ control, name: 'kits' });
  const features = useFieldArray({ control, name: 'features' });
  const periods = useFieldArray({ control, name: 'periods' });
  return (
    <Tabs
      label="Разделы доната"
      active={section}
      onChange={(id) => onChange(id as Section)}
      tabs={[
        { id: 'main', label: 'Основное' },
        { id: 'game', label: 'Покупка и команды' },
        { id: 'kits', label: `Киты (${kits.fields.length})` },
        { id: 'features', label: `Привилегии (${features.fields.length})` },
      ]}
    >
      <div className="form" hidden={section !== 'main'}>
        <TextField name="title" label="Название" maxLength={100} />
        <TextAreaField name="content" label="Описание" rows={5} maxLength={5000} />
        <div className="form-grid">
          <MoneyField name="amount" label="Цена в месяц" />
          <CurrencyField />
          <NumberField name="position" label="Порядок (необязательно)" hint="Меньше — левее; пусто — в конец." />
        </div>
        <div className="form-grid">
          <MoneyField name="sale_amount" label="Цена в месяц по акции" empty={null} hint="Пусто — без акции" />
          <DateTimeField name="sale_ends_at" label="Акция до" hint="Пусто — пока не уберёте цену по акции" />
        </div>
        <ImageUrlField name="image_url" label="Ссылка на изображение (необязательно)" />
        <CheckboxField name="is_best" label="Отметить как «Лучший выбор»" />
        <CheckboxField
          name="subscription"
          label="Продавать по подписке"
          hint="Игрок платит картой через ЮKassa или Т-Банк, дальше привилегия продлевается сама, пока он не отменит подписку."
        />
        <NumberField
          name="subscription_months"
          label="Подписка: списывать раз в, месяцев"
          hint="От 1 до 12; цена — цена за месяц × срок."
        />
      </div>

      <div className="stack" hidden={section !== 'game'}>
        <FieldGroup legend="Сроки покупки">
          <p className="muted">Цена срока — цена в месяц × месяцев − скидка. Продаются только донаты в рублях; месяц — 30 дней.</p>
          {periods.fields.map((period, i) => (
            <div className="form-grid" key={period.id}>
              <NumberField name={`periods.${i}.months`} label={`Срок ${i + 1}, месяцев`} />
              <NumberField name={`periods.${i}.discount`} label="Скидка, %" />
              <div className="admin-actions">
                <button
                  type="button"
                  className="btn btn-small btn-danger"
                  onClick={() => periods.remove(i)}
                  disabled={periods.fields.length <= 1}
                >
                  Удалить срок {i + 1}
                </button>
              </div>
            </div>
          ))}
          {periods.fields.length < 12 && (
            <div>
              <button type="button" className="btn btn-small" onClick={() => periods.append({ months: Number.NaN, discount: 0 })}>
                Добавить срок
              </button>
            </div>
          )}
        </FieldGroup>
        <ServersField />
        <CommandList
          name="grant_commands"
          legend="Команды выдачи"
          hint="Выполняются при каждой покупке (начало и продление)."
          example="lp user {player} parent add vip"
          placeholders={PRIVILEGE_COMMAND_PLACEHOLDERS}
        />
        <CommandList
          name="revoke_commands"
          legend="Команды снятия"
          hint="Выполняются, когда привилегия заканчивается или заменяется более высокой."
          example="lp user {player} parent remove vip"
          placeholders={PRIVILEGE_COMMAND_PLACEHOLDERS}
        />
      </div>

      <div className="stack" hidden={section !== 'kits'}>
        {kits.fields.length === 0 && <p className="muted">Китов пока нет.</p>}
        {kits.fields.map((kit, i) => (
          <FieldGroup key={kit.id} legend={`Кит ${i + 1}`}>
            <div className="form-grid">
              <TextField name={`kits.${i}.name`} label="Название кита" maxLength={100} />
              <TextField name={`kits.${i}.command`} label="Команда" maxLength={300} placeholder="/kit vip" />
              <NumberField name={`kits.${i}.period`} label="Период, дней" />
            </div>
            <TextAreaField name={`kits.${i}.description`} label="Описание кита" rows={2} maxLength={1000} />
            <ImageUrlField name={`kits.${i}.kitImg`} label="Картинка кита (необязательно)" />
            <CommandList
              name={`kits.${i}.give_commands`}
              legend="Команды выдачи кита"
              hint="Выполняются, когда игрок получает набор в личном кабинете."
              example="give {player} minecraft:bread 16"
              placeholders={KIT_COMMAND_PLACEHOLDERS}
            />
            <div className="admin-actions">
              <button type="button" className="btn btn-small btn-danger" onClick={() => kits.remove(i)}>
                Удалить кит {i + 1}
              </button>
            </div>
          </FieldGroup>
        ))}
        <div>
          <button type="button" className="btn" onClick={() => kits.append(newKit())}>
            Добавить кит
          </button>
        </div>
      </div>

      <div className="stack" hidden={section !== 'features'}>
        {features.fields.length === 0 && <p className="muted">Привилегий пока нет.</p>}
        {features.fields.map((feature, i) => (
          <FieldGroup key={feature.id} legend={`Привилегия ${i + 1}`}>
            <div className="form-grid">
              <TextField name={`features.${i}.title`} label="Название привилегии" maxLength={200} />
              <TextField name={`features.${i}.value`} label="Значение (необязательно)" maxLength={100} placeholder="/fly, 5 регионов…" />
            </div>
            <TextAreaField name={`features.${i}.description`} label="Описание привилегии (необязательно)" rows={2} maxLength={1000} />
            <CheckboxField name={`features.${i}.check`} label="Показывать галочку" />
            <div className="admin-actions">
              <button type="button" className="btn btn-small btn-danger" onClick={() => features.remove(i)}>
                Удалить привилегию {i + 1}
              </button>
            </div>
          </FieldGroup>
        ))}
        <div>
          <button type="button" className="btn" onClick={() => features.append(newFeature())}>
            Добавить привилегию
          </button>
        </div>
      </div>
    </Tabs>
  );
}

type CommandListName = 'grant_commands' | 'revoke_commands' | `kits.${number}.give_commands`;

/** Console commands, one field each (so a refusal stands next to its command). */
function CommandList({
  name,
  legend,
  hint,
  example,
  placeholders,
}: {
  name: CommandListName;
  legend: string;
  hint: string;
  example: string;
  placeholders: readonly string[];
}) {
  const { control, getValues, setValue } = useFormContext<DonateBody>();
  const commands = (useWatch({ control, name }) as string[] | undefined) ?? [];
  const current = () => (getValues(name) as string[] | undefined) ?? [];
  const set = (list: string[]) => setValue(name, list, { shouldDirty: true });
  return (
    <FieldGroup legend={legend}>
      <p className="muted">
        {hint} Подстановки: {placeholders.map((p) => `{${p}}`).join(', ')}.
      </p>
      {commands.map((_, i) => (
        <div className="tier-command" key={i}>
          <TextField name={`${name}.${i}`} label={`Команда ${i + 1}`} autoComplete="off" spellCheck={false} placeholder={example} />
          <button
            type="button"
            className="btn btn-small"
            aria-label={`${legend}: удалить команду ${i + 1}`}
            onClick={() => set(current().filter((__, j) => j !== i))}
          >
            Удалить
          </button>
        </div>
      ))}
      {commands.length < MAX_TIER_COMMANDS && (
        <div>
          <button type="button" className="btn btn-small" onClick={() => set([...current(), ''])}>
            Добавить команду
          </button>
        </div>
      )}
    </FieldGroup>
  );
}

/** The game servers the tier applies to; none ticked: every server with RCON. */
function ServersField() {
  const { control, getValues, setValue } = useFormContext<DonateBody>();
  const chosen = (useWatch({ control, name: 'server_ids' }) as number[] | undefined) ?? [];
  const servers = useQuery({ queryKey: TIER_SERVERS_KEY, queryFn: fetchTierServers });
  const hintId = useId();
  const toggle = (id: number, on: boolean) => {
    const now = (getValues('server_ids') as number[] | undefined) ?? [];
    setValue('server_ids', on ? [...now, id] : now.filter((x) => x !== id), { shouldDirty: true });
  };
  return (
    <FieldGroup legend="Серверы">
      <p className="muted" id={hintId}>
        Где выполнять команды. Ничего не отмечено — на всех серверах с настроенным RCON.
      </p>
      {servers.isPending && <p className="muted">Загрузка серверов…</p>}
      {servers.isError && <p className="muted">Не удалось загрузить серверы.</p>}
      {servers.data?.servers.map((s) => (
        <label key={s.id} className="checkbox">
          <input
            type="checkbox"
            checked={chosen.includes(s.id)}
            onChange={(e) => toggle(s.id, e.target.checked)}
            aria-describedby={hintId}
          />
          {s.name}
          {!s.rcon && <span className="muted"> (RCON не настроен)</span>}
        </label>
      ))}
    </FieldGroup>
  );
}

/** The currency is a choice: roubles (sold on the site) or game coins (shown only); a tier saved earlier with another text keeps it as a third option. */
function CurrencyField() {
  const { getValues } = useFormContext<DonateBody>();
  const current = getValues('currency');
  const options = [
    { value: '₽', label: '₽ — рубли (продаётся на сайте)' },
    { value: 'монет', label: 'Монеты (только показывается)' },
  ];
  if (current && !options.some((o) => o.value === current)) options.push({ value: current, label: `${current} (как было)` });
  return <SelectField name="currency" label="Валюта" options={options} />;
}
