import type { DonateBody, DonateTier } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { useNotify } from '../../providers/notifications.tsx';
import { Badge } from '../../components/Badge.tsx';
import { Field } from '../../components/Field.tsx';
import { Modal } from '../../components/Modal.tsx';
import { Empty, Loading } from '../../components/States.tsx';
import { Tabs } from '../../components/Tabs.tsx';
import { ApiError } from '../../lib/api.ts';
import { useTitle } from '../../providers/title.ts';
import { TextAreaField } from '../../components/TextAreaField.tsx';
import { createTier, DEFAULT_KIT_PERIOD_DAYS, deleteTier, DONATE_KEY, fetchTiers, updateTier } from './api.ts';
import './donate.css';

interface KitDraft {
  key: number;
  name: string;
  description: string;
  command: string;
  period: string;
  kitImg: string;
}

interface FeatureDraft {
  key: number;
  title: string;
  value: string;
  description: string;
  check: boolean;
}

interface TierDraft {
  id: number | null;
  title: string;
  content: string;
  amount: string;
  currency: string;
  image_url: string;
  is_best: boolean;
  position: string;
  kits: KitDraft[];
  features: FeatureDraft[];
}

type Section = 'main' | 'kits' | 'features';
const SECTIONS: { id: Section; label: string }[] = [
  { id: 'main', label: 'Основное' },
  { id: 'kits', label: 'Киты' },
  { id: 'features', label: 'Привилегии' },
];

let nextKey = 1;
const newKit = (): KitDraft => ({ key: nextKey++, name: '', description: '', command: '', period: String(DEFAULT_KIT_PERIOD_DAYS), kitImg: '' });
const newFeature = (): FeatureDraft => ({ key: nextKey++, title: '', value: '', description: '', check: true });

const EMPTY: TierDraft = { id: null, title: '', content: '', amount: '', currency: '₽', image_url: '', is_best: false, position: '', kits: [], features: [] };

function draftOf(t: DonateTier): TierDraft {
  return {
    id: t.id,
    title: t.title,
    content: t.content,
    amount: String(t.amount),
    currency: t.currency,
    image_url: t.image_url ?? '',
    is_best: t.is_best,
    position: String(t.position),
    kits: t.kits.map((k) => ({ key: nextKey++, name: k.name, description: k.description, command: k.command, period: String(k.period), kitImg: k.kitImg ?? '' })),
    features: t.features.map((f) => ({ key: nextKey++, title: f.title, value: f.value ?? '', description: f.description ?? '', check: f.check })),
  };
}

const toNumber = (s: string) => Number(s.trim().replace(',', '.'));

function bodyOf(d: TierDraft): DonateBody {
  return {
    title: d.title.trim(),
    content: d.content.trim(),
    amount: toNumber(d.amount),
    currency: d.currency.trim(),
    image_url: d.image_url.trim(),
    is_best: d.is_best,
    ...(d.position.trim() === '' ? {} : { position: toNumber(d.position) }),
    kits: d.kits.map((k) => ({ name: k.name.trim(), description: k.description.trim(), command: k.command.trim(), period: toNumber(k.period), kitImg: k.kitImg.trim() })),
    features: d.features.map((f) => ({ title: f.title.trim(), value: f.value.trim(), description: f.description.trim(), check: f.check })),
  };
}

/** The section with the first empty required field, or null when everything needed is there. */
function missing(d: TierDraft): Section | null {
  if (!d.title.trim() || !d.content.trim() || !d.amount.trim() || !d.currency.trim()) return 'main';
  if (d.kits.some((k) => !k.name.trim() || !k.period.trim())) return 'kits';
  if (d.features.some((f) => !f.title.trim())) return 'features';
  return null;
}

export default function AdminDonatePage() {
  useTitle('Админ-панель: донат');
  const notify = useNotify();
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: DONATE_KEY, queryFn: fetchTiers });
  const [draft, setDraft] = useState<TierDraft | null>(null);
  const [section, setSection] = useState<Section>('main');
  const [serverError, setServerError] = useState('');

  const save = useMutation({
    mutationFn: (d: TierDraft) => (d.id === null ? createTier(bodyOf(d)) : updateTier(d.id, bodyOf(d))),
    onSuccess: (_tier, d) => {
      notify('success', d.id === null ? 'Донат добавлен!' : 'Донат обновлён!');
      setDraft(null);
      void queryClient.invalidateQueries({ queryKey: DONATE_KEY });
    },
    onError: (err) => {
      notify('danger', 'Ошибка при сохранении доната');
      setServerError(err instanceof ApiError ? err.message : '');
    },
  });

  const remove = useMutation({
    mutationFn: (tier: DonateTier) => deleteTier(tier.id),
    onSuccess: () => notify('success', 'Донат удалён!'),
    onError: () => notify('danger', 'Ошибка при удалении'),
    onSettled: () => queryClient.invalidateQueries({ queryKey: DONATE_KEY }),
  });

  const open = (d: TierDraft) => {
    setServerError('');
    setSection('main');
    setDraft(d);
  };

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!draft) return;
    const gap = missing(draft);
    if (gap) {
      setSection(gap);
      notify('danger', 'Заполните все поля!');
      return;
    }
    save.mutate(draft);
  }

  return (
    <section className="stack" aria-labelledby="admin-donate-heading">
      <div className="admin-section-head">
        <h2 id="admin-donate-heading">Донат</h2>
        <button type="button" className="btn btn-primary" onClick={() => open(EMPTY)}>
          Добавить донат
        </button>
      </div>

      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <Empty>Не удалось загрузить донаты. Обновите страницу.</Empty>
      ) : list.data.length === 0 ? (
        <Empty>Нет доступных донатов</Empty>
      ) : (
        <div className="table-wrap">
          <table className="table admin-table">
            <thead>
              <tr>
                <th className="num">ID</th>
                <th>Название</th>
                <th>Описание</th>
                <th className="num">Цена</th>
                <th>Валюта</th>
                <th>Действия</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((tier) => (
                <tr key={tier.id}>
                  <td className="num">{tier.id}</td>
                  <td>
                    <div className="row">
                      {tier.title}
                      {tier.is_best && <Badge tone="gold">Лучший выбор</Badge>}
                    </div>
                  </td>
                  <td className="clip">{tier.content.length > 80 ? `${tier.content.slice(0, 80)}…` : tier.content}</td>
                  <td className="num">{tier.amount}</td>
                  <td>{tier.currency}</td>
                  <td>
                    <div className="admin-actions">
                      <button type="button" className="btn btn-small" aria-label={`Изменить донат «${tier.title}»`} onClick={() => open(draftOf(tier))}>
                        Изменить
                      </button>
                      <button
                        type="button"
                        className="btn btn-small btn-danger"
                        aria-label={`Удалить донат «${tier.title}»`}
                        disabled={remove.isPending}
                        onClick={() => {
                          if (window.confirm(`Удалить донат «${tier.title}»?`)) remove.mutate(tier);
                        }}
                      >
                        Удалить
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <Modal open={draft !== null} title={draft?.id ? 'Изменить донат' : 'Новый донат'} onClose={() => setDraft(null)} wide>
        {draft && (
          <form className="form" onSubmit={submit} noValidate>
            <Tabs
              label="Разделы доната"
              active={section}
              onChange={(id) => setSection(id as Section)}
              tabs={SECTIONS.map((s) => ({
                id: s.id,
                label: s.id === 'kits' ? `${s.label} (${draft.kits.length})` : s.id === 'features' ? `${s.label} (${draft.features.length})` : s.label,
              }))}
            >
              {section === 'main' && <MainFields draft={draft} setDraft={setDraft} />}
              {section === 'kits' && <KitFields draft={draft} setDraft={setDraft} />}
              {section === 'features' && <FeatureFields draft={draft} setDraft={setDraft} />}
            </Tabs>
            {serverError && (
              <p className="notice notice-danger form-error" role="alert">
                {serverError}
              </p>
            )}
            <div className="form-actions">
              <button type="button" className="btn" onClick={() => setDraft(null)}>
                Отмена
              </button>
              <button type="submit" className="btn btn-primary" disabled={save.isPending}>
                {save.isPending ? 'Сохраняем…' : 'Сохранить'}
              </button>
            </div>
          </form>
        )}
      </Modal>
    </section>
  );
}

type SetDraft = (update: (d: TierDraft | null) => TierDraft | null) => void;

function MainFields({ draft, setDraft }: { draft: TierDraft; setDraft: SetDraft }) {
  const set = (key: 'title' | 'content' | 'amount' | 'currency' | 'image_url' | 'position') => (e: { target: { value: string } }) =>
    setDraft((d) => (d ? { ...d, [key]: e.target.value } : d));
  return (
    <div className="form">
      <Field label="Название" name="title" value={draft.title} onChange={set('title')} maxLength={100} required />
      <TextAreaField label="Описание" name="content" value={draft.content} onChange={set('content')} rows={5} maxLength={5000} required />
      <div className="form-grid">
        <Field label="Цена в месяц" name="amount" type="number" inputMode="decimal" min={0} step="0.01" value={draft.amount} onChange={set('amount')} required />
        <Field label="Валюта" name="currency" value={draft.currency} onChange={set('currency')} maxLength={16} required hint="Например, ₽" />
        <Field label="Порядок (необязательно)" name="position" type="number" inputMode="numeric" min={0} step={1} value={draft.position} onChange={set('position')} hint="Меньше — левее; пусто — в конец." />
      </div>
      <Field label="Ссылка на изображение (необязательно)" name="image_url" type="url" inputMode="url" value={draft.image_url} onChange={set('image_url')} placeholder="https://… или /images/…" />
      <label className="checkbox">
        <input type="checkbox" checked={draft.is_best} onChange={(e) => setDraft((d) => (d ? { ...d, is_best: e.target.checked } : d))} />
        Отметить как «Лучший выбор»
      </label>
    </div>
  );
}

function KitFields({ draft, setDraft }: { draft: TierDraft; setDraft: SetDraft }) {
  const added = useRef<number | null>(null);
  const change = (key: number, patch: Partial<KitDraft>) => setDraft((d) => (d ? { ...d, kits: d.kits.map((k) => (k.key === key ? { ...k, ...patch } : k)) } : d));
  const add = () => {
    const kit = newKit();
    added.current = kit.key;
    setDraft((d) => (d ? { ...d, kits: [...d.kits, kit] } : d));
  };
  return (
    <div className="stack">
      {draft.kits.length === 0 && <p className="muted">Китов пока нет.</p>}
      {draft.kits.map((kit, i) => (
        <fieldset key={kit.key} className="sub-item">
          <legend>Кит {i + 1}</legend>
          <div className="form-grid">
            <Field label="Название кита" value={kit.name} onChange={(e) => change(kit.key, { name: e.target.value })} maxLength={100} required autoFocus={added.current === kit.key} />
            <Field label="Команда" value={kit.command} onChange={(e) => change(kit.key, { command: e.target.value })} maxLength={300} placeholder="/kit vip" />
            <Field label="Период, дней" type="number" inputMode="numeric" min={1} step={1} value={kit.period} onChange={(e) => change(kit.key, { period: e.target.value })} required />
          </div>
          <TextAreaField label="Описание кита" value={kit.description} onChange={(e) => change(kit.key, { description: e.target.value })} rows={2} maxLength={1000} />
          <Field label="Картинка кита (необязательно)" type="url" inputMode="url" value={kit.kitImg} onChange={(e) => change(kit.key, { kitImg: e.target.value })} placeholder="https://… или /images/…" />
          <div className="admin-actions">
            <button type="button" className="btn btn-small btn-danger" onClick={() => setDraft((d) => (d ? { ...d, kits: d.kits.filter((k) => k.key !== kit.key) } : d))}>
              Удалить кит {i + 1}
            </button>
          </div>
        </fieldset>
      ))}
      <div>
        <button type="button" className="btn" onClick={add}>
          Добавить кит
        </button>
      </div>
    </div>
  );
}

function FeatureFields({ draft, setDraft }: { draft: TierDraft; setDraft: SetDraft }) {
  const added = useRef<number | null>(null);
  const change = (key: number, patch: Partial<FeatureDraft>) => setDraft((d) => (d ? { ...d, features: d.features.map((f) => (f.key === key ? { ...f, ...patch } : f)) } : d));
  const add = () => {
    const feature = newFeature();
    added.current = feature.key;
    setDraft((d) => (d ? { ...d, features: [...d.features, feature] } : d));
  };
  return (
    <div className="stack">
      {draft.features.length === 0 && <p className="muted">Привилегий пока нет.</p>}
      {draft.features.map((f, i) => (
        <fieldset key={f.key} className="sub-item">
          <legend>Привилегия {i + 1}</legend>
          <div className="form-grid">
            <Field label="Название привилегии" value={f.title} onChange={(e) => change(f.key, { title: e.target.value })} maxLength={200} required autoFocus={added.current === f.key} />
            <Field label="Значение (необязательно)" value={f.value} onChange={(e) => change(f.key, { value: e.target.value })} maxLength={100} placeholder="/fly, 5 регионов…" />
          </div>
          <TextAreaField label="Описание привилегии (необязательно)" value={f.description} onChange={(e) => change(f.key, { description: e.target.value })} rows={2} maxLength={1000} />
          <label className="checkbox">
            <input type="checkbox" checked={f.check} onChange={(e) => change(f.key, { check: e.target.checked })} />
            Показывать галочку
          </label>
          <div className="admin-actions">
            <button type="button" className="btn btn-small btn-danger" onClick={() => setDraft((d) => (d ? { ...d, features: d.features.filter((x) => x.key !== f.key) } : d))}>
              Удалить привилегию {i + 1}
            </button>
          </div>
        </fieldset>
      ))}
      <div>
        <button type="button" className="btn" onClick={add}>
          Добавить привилегию
        </button>
      </div>
    </div>
  );
}
