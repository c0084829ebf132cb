import { PROMO_KIND_TEXT, PROMO_KINDS, PROMO_SCOPE_TEXT, PROMO_SCOPES, PromoCodeBody, type PromoCodeAdmin } from '@kubik/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useWatch } from 'react-hook-form';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { useCrud, type Crud } from '../../components/admin/useCrud.ts';
import { Badge } from '../../components/Badge.tsx';
import { DateTimeField } from '../../components/form/DateTimeField.tsx';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { MoneyField, NumberField, SelectField, TextField } from '../../components/form/fields.tsx';
import { Modal } from '../../components/Modal.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime, formatRub } from '../../lib/format.ts';
import { OWNER_ONLY_HINT } from '../../lib/owner-only.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import { createPromo, disablePromo, fetchPromos, PROMO_KEY, updatePromo } from './promo-api.ts';
import { promoStatus } from './promo-status.ts';

const valueText = (p: Pick<PromoCodeAdmin, 'kind' | 'value'>) =>
  p.kind === 'fixed' ? `−${formatRub(p.value)}` : p.kind === 'percent' ? `−${p.value} %` : `+${p.value} % к пополнению`;

function periodText(p: PromoCodeAdmin): string {
  if (p.starts_at === null && p.ends_at === null) return 'Бессрочно';
  return [p.starts_at !== null && `с ${formatDateTime(p.starts_at)}`, p.ends_at !== null && `до ${formatDateTime(p.ends_at)}`]
    .filter(Boolean)
    .join(' ');
}

/** Админ-панель → Промокоды: codes with their uses and revenue; add, edit, switch off. */
export function AdminPromoPage() {
  useTitle('Админ-панель: промокоды');
  // A top-up bonus code credits balance nobody paid for: staff may switch one off, not make,
  // change or switch one on (the server refuses: 403 owner_only).
  const owner = useAuth().user?.is_admin ?? false;
  const ownersOnly = (p: PromoCodeAdmin) => !owner && p.kind === 'topup_bonus';
  const notify = useNotify();
  const queryClient = useQueryClient();
  const crud = useCrud<PromoCodeAdmin, PromoCodeBody>({
    queryKey: PROMO_KEY,
    list: fetchPromos,
    create: createPromo,
    update: (item, body) => updatePromo(item.id, body),
    texts: {
      created: 'Промокод добавлен',
      updated: 'Промокод изменён',
      removed: 'Промокод удалён',
      saveFailed: 'Ошибка при сохранении промокода',
      removeFailed: 'Ошибка при удалении',
      confirmRemove: (p) => `Удалить промокод «${p.code}»?`,
    },
  });
  const toggle = useMutation({
    mutationFn: (p: PromoCodeAdmin) => disablePromo(p.id, !p.disabled),
    onSuccess: (p) => {
      notify('success', p.disabled ? 'Промокод выключен' : 'Промокод включён');
      void queryClient.invalidateQueries({ queryKey: PROMO_KEY });
    },
    onError: (err) => notify('danger', err instanceof ApiError && err.message ? err.message : 'Произошла ошибка'),
  });

  const now = Date.now();
  const columns: Column<PromoCodeAdmin>[] = [
    { header: 'Код', cell: (p) => <code className="promo-code">{p.code}</code>, kind: 'main' },
    { header: 'Скидка', cell: (p) => valueText(p) },
    { header: 'Где', cell: (p) => (p.kind === 'topup_bonus' ? 'Пополнение' : PROMO_SCOPE_TEXT[p.applies_to]) },
    { header: 'Использования', cell: (p) => `${p.uses}${p.max_uses === null ? '' : ` из ${p.max_uses}`}`, kind: 'num' },
    { header: 'Выручка', cell: (p) => formatRub(p.revenue), kind: 'num' },
    { header: 'Срок', cell: (p) => periodText(p) },
    {
      header: 'Статус',
      cell: (p) => {
        const status = promoStatus(p, now);
        return <Badge tone={status.tone}>{status.text}</Badge>;
      },
    },
    {
      header: 'Действия',
      kind: 'actions',
      cell: (p) => (
        <div className="admin-actions">
          {ownersOnly(p) ? (
            <span className="muted">{OWNER_ONLY_HINT}</span>
          ) : (
            <button type="button" className="btn btn-small" aria-label={`Изменить промокод «${p.code}»`} onClick={() => crud.openEdit(p)}>
              Изменить
            </button>
          )}
          {!(ownersOnly(p) && p.disabled) && (
            <button
              type="button"
              className="btn btn-small"
              aria-label={`${p.disabled ? 'Включить' : 'Выключить'} промокод «${p.code}»`}
              disabled={toggle.isPending}
              onClick={() => toggle.mutate(p)}
            >
              {p.disabled ? 'Включить' : 'Выключить'}
            </button>
          )}
        </div>
      ),
    },
  ];

  return (
    <AdminSection
      title="Промокоды"
      actions={
        <button type="button" className="btn btn-primary" onClick={crud.openNew}>
          Добавить промокод
        </button>
      }
    >
      <QueryState query={crud.list} error="Не удалось загрузить промокоды" empty="Промокодов пока нет">
        {(codes) => <DataTable label="Промокоды" rows={codes} columns={columns} rowKey={(p) => p.id} />}
      </QueryState>
      <Modal open={crud.editing !== undefined} title={crud.editing ? 'Изменить промокод' : 'Новый промокод'} onClose={crud.close} wide>
        {crud.editing !== undefined && <PromoForm key={crud.editing?.id ?? 'new'} crud={crud} />}
      </Modal>
    </AdminSection>
  );
}

function PromoForm({ crud }: { crud: Crud<PromoCodeAdmin, PromoCodeBody> }) {
  const p = crud.editing;
  const owner = useAuth().user?.is_admin ?? false;
  const kinds = owner ? PROMO_KINDS : PROMO_KINDS.filter((k) => k !== 'topup_bonus');
  const form = useSchemaForm(PromoCodeBody, {
    defaultValues: {
      code: p?.code ?? '',
      kind: p?.kind ?? 'percent',
      value: p?.value ?? Number.NaN,
      applies_to: p?.applies_to ?? 'all',
      item_ids: p?.item_ids ?? null,
      category: p?.category ?? null,
      max_uses: p?.max_uses ?? null,
      per_player: p?.per_player ?? 1,
      min_total: p?.min_total ?? null,
      starts_at: p?.starts_at ?? null,
      ends_at: p?.ends_at ?? null,
    },
  });
  const kind = useWatch({ control: form.control, name: 'kind' });
  return (
    <Form form={form} onSubmit={crud.save}>
      <div className="form-grid">
        <TextField
          name="code"
          label="Код"
          maxLength={32}
          autoComplete="off"
          spellCheck={false}
          hint="Регистр букв не важен: START и start — один код"
        />
        <SelectField
          name="kind"
          label="Вид"
          options={kinds.map((k) => ({ value: k, label: PROMO_KIND_TEXT[k] }))}
          hint={owner ? undefined : 'Промокоды на бонус к пополнению создаёт только владелец сайта'}
        />
        {kind === 'fixed' ? (
          <MoneyField name="value" label="Скидка, ₽" />
        ) : (
          <NumberField name="value" label={kind === 'topup_bonus' ? 'Бонус, %' : 'Скидка, %'} />
        )}
        {kind !== 'topup_bonus' && (
          <SelectField
            name="applies_to"
            label="Применяется к"
            options={PROMO_SCOPES.map((s) => ({ value: s, label: PROMO_SCOPE_TEXT[s] }))}
          />
        )}
        <NumberField name="max_uses" label="Всего использований" empty={null} hint="Пусто — без ограничения" />
        <NumberField name="per_player" label="Раз на игрока" />
        {kind !== 'topup_bonus' && <MoneyField name="min_total" label="Минимальная сумма, ₽" empty={null} hint="Пусто — любая" />}
        <DateTimeField name="starts_at" label="Действует с" hint="Пусто — сразу" />
        <DateTimeField name="ends_at" label="Действует до" hint="Пусто — бессрочно" />
      </div>
      <FormErrors />
      <FormActions onCancel={crud.close} />
    </Form>
  );
}
