import { DEFAULT_KIT_PERIOD_DAYS, DonateBody, type DonateTier } from '@kubik/contract';
import { useState } from 'react';
import { useFieldArray, useFormContext } from 'react-hook-form';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { CheckboxField, FieldGroup, ImageUrlField, MoneyField, NumberField, TextAreaField, TextField } from '../../components/form/fields.tsx';
import { Tabs } from '../../components/Tabs.tsx';
import { useNotify } from '../../providers/notifications.tsx';

type Section = 'main' | 'kits' | 'features';
/** The tab a field stands on, so a failed submit can show it. */
const sectionOf = (name: string): Section => (name.startsWith('kits') ? 'kits' : name.startsWith('features') ? 'features' : 'main');

const newKit = () => ({ name: '', description: '', command: '', period: DEFAULT_KIT_PERIOD_DAYS, kitImg: '' });
const newFeature = () => ({ title: '', value: '', description: '', check: true });

function defaults(t: DonateTier | null): DonateBody {
  if (!t) return { title: '', content: '', amount: Number.NaN, currency: '₽', image_url: '', is_best: false, kits: [], features: [] };
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
    <Form form={form} onSubmit={onSave} onInvalid={() => notify('danger', 'Заполните все поля!')} reveal={(name) => setSection(sectionOf(name))}>
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
  return (
    <Tabs
      label="Разделы доната"
      active={section}
      onChange={(id) => onChange(id as Section)}
      tabs={[
        { id: 'main', label: 'Основное' },
        { id: 'kits', label: `Киты (${kits.fields.length})` },
        { id: 'features', label: `Привилегии (${features.fields.length})` },
      ]}
    >
      <div className="form" hidden={section !== 'main'}>
        <TextField name="title" label="Название" maxLength={100} />
        <TextAreaField name="content" label="Описание" rows={5} maxLength={5000} />
        <div className="form-grid">
          <MoneyField name="amount" label="Цена в месяц" />
          <TextField name="currency" label="Валюта" maxLength={16} hint="Например, ₽" />
          <NumberField name="position" label="Порядок (необязательно)" hint="Меньше — левее; пусто — в конец." />
        </div>
        <ImageUrlField name="image_url" label="Ссылка на изображение (необязательно)" />
        <CheckboxField name="is_best" label="Отметить как «Лучший выбор»" />
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
