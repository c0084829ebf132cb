import {
  CannedAnswerBody,
  SUPPORT_FIELD_TYPE_TEXT,
  SUPPORT_FIELD_TYPES,
  SUPPORT_ICON_HINT,
  SUPPORT_KIND_TEXT,
  SUPPORT_LIMITS,
  SUPPORT_STATE_TEXT,
  SUPPORT_STATES,
  SupportCategoryBody,
  SupportFieldDef,
  SupportStaffMessageBody,
  type AdminSupportTicket,
  type CannedAnswer,
  type SupportAttachment,
  type SupportCategory,
} from '@kubik/contract';
import { useMutation, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { Fragment, useEffect, useState, type ReactNode } from 'react';
import { useFieldArray, useFormContext, useWatch } from 'react-hook-form';
import { Link, useSearchParams } from 'wouter';
import { z } from 'zod';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { Form, FormActions, FormErrors, SubmitButton, useSchemaForm } from '../../components/form/Form.tsx';
import { CheckboxField, FieldGroup, NumberField, SelectField, TextAreaField, TextField } from '../../components/form/fields.tsx';
import { Modal } from '../../components/Modal.tsx';
import { Pager } from '../../components/Pager.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { Tabs } from '../../components/Tabs.tsx';
import { useConfirm } from '../../components/useConfirm.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import {
  adminCategoriesKey,
  adminTicketKey,
  adminTicketsKey,
  answerTicket,
  assignTicket,
  cannedKey,
  deleteCanned,
  deleteCategory,
  fetchAdminCategories,
  fetchAdminTicket,
  fetchAdminTickets,
  fetchCanned,
  fetchStaff,
  reopenTicket,
  saveCanned,
  saveCategory,
  staffCloseTicket,
  staffKey,
  SUPPORT_KEY,
  type AdminFilter,
} from './api.ts';
import { AttachmentPicker, CategoryIcon, StateBadge, Thread, TicketFacts } from './parts.tsx';
import './support.css';

const reason = (err: unknown, fallback: string) => (err instanceof ApiError && err.message ? err.message : fallback);

/** Админ-панель → Обращения: the tickets (a ticket opens by ?ticket=<номер>), the categories, the canned answers. */
export default function AdminSupportPage() {
  useTitle('Админ-панель: обращения');
  const [params] = useSearchParams();
  const [tab, setTab] = useState('tickets');
  const ticket = params.get('ticket');
  const id = ticket && /^[1-9][0-9]{0,9}$/.test(ticket) ? Number(ticket) : null;
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [id]);
  if (id !== null) return <AdminTicketView id={id} />;
  return (
    <AdminSection title="Обращения">
      <Tabs
        label="Разделы обращений"
        active={tab}
        onChange={setTab}
        tabs={[
          { id: 'tickets', label: 'Обращения' },
          { id: 'categories', label: 'Категории' },
          { id: 'canned', label: 'Шаблоны ответов' },
        ]}
      >
        {tab === 'tickets' && <TicketsTab />}
        {tab === 'categories' && <CategoriesTab />}
        {tab === 'canned' && <CannedTab />}
      </Tabs>
    </AdminSection>
  );
}

// ---- The list

const FIRST_PAGE: AdminFilter = { state: 'active', kind: '', category: '', assignee: '', q: '', page: 1 };

function TicketsTab() {
  const [filter, setFilter] = useState<AdminFilter>(FIRST_PAGE);
  const set = (patch: Partial<AdminFilter>) => setFilter((f) => ({ ...f, page: 1, ...patch }));
  const list = useQuery({ queryKey: adminTicketsKey(filter), queryFn: () => fetchAdminTickets(filter), placeholderData: (d) => d });
  const categories = useQuery({ queryKey: adminCategoriesKey, queryFn: fetchAdminCategories });
  const staff = useQuery({ queryKey: staffKey, queryFn: fetchStaff });
  const columns: Column<NonNullable<typeof list.data>['items'][number]>[] = [
    {
      header: 'Тема',
      kind: 'main',
      cell: (t) => (
        <Link to={`/admin/support?ticket=${t.id}`}>
          №{t.id} {t.subject}
        </Link>
      ),
    },
    { header: 'Игрок', cell: (t) => t.player.username },
    {
      header: 'Категория',
      cell: (t) => (t.kind === 'appeal' ? SUPPORT_KIND_TEXT.appeal : (t.category?.name ?? '—')),
    },
    { header: 'Состояние', cell: (t) => <StateBadge state={t.state} /> },
    { header: 'Ответственный', cell: (t) => t.assignee?.username ?? <span className="muted">нет</span> },
    { header: 'Обновлено', cell: (t) => formatDateTime(t.updated_at) },
  ];
  return (
    <div className="stack">
      <div className="support-filters" role="search" aria-label="Отбор обращений">
        <label className="field">
          <span>Состояние</span>
          <select value={filter.state} onChange={(e) => set({ state: e.target.value })}>
            <option value="active">Открытые и ждущие игрока</option>
            {SUPPORT_STATES.map((s) => (
              <option key={s} value={s}>
                {SUPPORT_STATE_TEXT[s]}
              </option>
            ))}
            <option value="">Все</option>
          </select>
        </label>
        <label className="field">
          <span>Категория</span>
          <select
            value={filter.kind === 'appeal' ? 'appeal' : filter.category}
            onChange={(e) =>
              e.target.value === 'appeal' ? set({ kind: 'appeal', category: '' }) : set({ kind: '', category: e.target.value })
            }
          >
            <option value="">Все</option>
            <option value="appeal">{SUPPORT_KIND_TEXT.appeal}</option>
            {(categories.data ?? []).map((c) => (
              <option key={c.id} value={String(c.id)}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Ответственный</span>
          <select value={filter.assignee} onChange={(e) => set({ assignee: e.target.value })}>
            <option value="">Любой</option>
            <option value="me">Я</option>
            <option value="none">Не назначен</option>
            {(staff.data?.staff ?? []).map((s) => (
              <option key={s.id} value={String(s.id)}>
                {s.username}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Поиск</span>
          <input type="search" value={filter.q} maxLength={60} placeholder="Ник или тема" onChange={(e) => set({ q: e.target.value })} />
        </label>
      </div>
      <QueryState query={list} error="Не удалось загрузить обращения" empty="Обращений нет" isEmpty={(d) => d.items.length === 0}>
        {(data) => (
          <>
            <p className="muted" role="status">
              Найдено: {data.total}. Ждут ответа сотрудников: {data.open}.
            </p>
            <DataTable label="Обращения" rows={data.items} columns={columns} rowKey={(t) => t.id} />
            <Pager label="Страницы обращений" page={data.page} pages={data.pages} onPage={(page) => setFilter((f) => ({ ...f, page }))} />
          </>
        )}
      </QueryState>
    </div>
  );
}

// ---- One ticket

function AdminTicketView({ id }: { id: number }) {
  const ticket = useQuery({ queryKey: adminTicketKey(id), queryFn: () => fetchAdminTicket(id) });
  const client = useQueryClient();
  const notify = useNotify();
  const { confirm, dialog } = useConfirm();
  const staff = useQuery({ queryKey: staffKey, queryFn: fetchStaff });
  const done = async (t: AdminSupportTicket, text: string) => {
    client.setQueryData(adminTicketKey(id), t);
    await client.invalidateQueries({ queryKey: SUPPORT_KEY });
    notify('success', text);
  };
  const action = useMutation({
    mutationFn: (what: 'close' | 'reopen') => (what === 'close' ? staffCloseTicket(id) : reopenTicket(id)),
    onSuccess: (t, what) => done(t, what === 'close' ? 'Обращение закрыто' : 'Обращение открыто снова'),
    onError: (err) => notify('danger', reason(err, 'Не удалось изменить обращение')),
  });
  const assign = useMutation({
    mutationFn: (assignee: number | null) => assignTicket(id, assignee),
    onSuccess: (t) => done(t, t.assignee ? `Ответственный: ${t.assignee.username}` : 'Ответственный снят'),
    onError: (err) => notify('danger', reason(err, 'Не удалось назначить ответственного')),
  });
  return (
    <section className="stack support-page" aria-labelledby="support-ticket-title">
      {dialog}
      <p>
        <Link to="/admin/support">← Все обращения</Link>
      </p>
      <QueryState query={ticket} error="Не удалось загрузить обращение">
        {(t) => (
          <>
            <div className="support-head">
              <h2 id="support-ticket-title" className="support-subject">
                №{t.id} {t.subject}
              </h2>
              <StateBadge state={t.state} />
            </div>
            <dl className="support-facts">
              <div className="support-fact">
                <dt>Игрок</dt>
                <dd>
                  {t.player.username} ({t.player.email})
                </dd>
              </div>
              <div className="support-fact">
                <dt>Создано</dt>
                <dd>{formatDateTime(t.created_at)}</dd>
              </div>
              {t.ban && (
                <div className="support-fact">
                  <dt>Блокировка</dt>
                  <dd>
                    «{t.ban.reason}», с {formatDateTime(t.ban.since)}{' '}
                    {t.ban.until === null ? 'навсегда' : `до ${formatDateTime(t.ban.until)}`}
                    {t.ban.lifted ? ' — уже снята' : ' — действует'}. Снять её можно в карточке игрока (Пользователи).
                  </dd>
                </div>
              )}
            </dl>
            <TicketFacts ticket={t} />
            <div className="support-controls">
              <label className="field">
                <span>Ответственный</span>
                <select
                  value={t.assignee ? String(t.assignee.id) : ''}
                  disabled={assign.isPending}
                  onChange={(e) => assign.mutate(e.target.value ? Number(e.target.value) : null)}
                >
                  <option value="">Не назначен</option>
                  {(staff.data?.staff ?? []).map((s) => (
                    <option key={s.id} value={String(s.id)}>
                      {s.username}
                    </option>
                  ))}
                </select>
              </label>
              {t.state === 'closed' ? (
                <button type="button" className="btn btn-small" disabled={action.isPending} onClick={() => action.mutate('reopen')}>
                  Открыть снова
                </button>
              ) : (
                <button
                  type="button"
                  className="btn btn-small"
                  disabled={action.isPending}
                  onClick={async () => {
                    if (await confirm(`Закрыть обращение №${t.id}?`, { confirmLabel: 'Закрыть' })) action.mutate('close');
                  }}
                >
                  Закрыть
                </button>
              )}
            </div>
            <Thread ticket={t} />
            <StaffReply ticket={t} />
          </>
        )}
      </QueryState>
    </section>
  );
}

const StaffReplySchema = z.object({ message: SupportStaffMessageBody.shape.message, internal: z.boolean(), close: z.boolean() });

function StaffReply({ ticket }: { ticket: AdminSupportTicket }) {
  const form = useSchemaForm(StaffReplySchema, { defaultValues: { message: '', internal: false, close: false } });
  const canned = useQuery({ queryKey: cannedKey, queryFn: fetchCanned });
  const [pictures, setPictures] = useState<SupportAttachment[]>([]);
  const client = useQueryClient();
  const notify = useNotify();
  const internal = useWatch({ control: form.control, name: 'internal' });
  const closed = ticket.state === 'closed';
  const submit = async (v: { message: string; internal: boolean; close: boolean }) => {
    const t = await answerTicket(ticket.id, { ...v, internal: v.internal || closed, attachment_ids: pictures.map((p) => p.id) });
    client.setQueryData(adminTicketKey(ticket.id), t);
    await client.invalidateQueries({ queryKey: SUPPORT_KEY });
    form.reset({ message: '', internal: false, close: false });
    setPictures([]);
    notify('success', v.internal || closed ? 'Заметка сохранена' : v.close ? 'Ответ отправлен, обращение закрыто' : 'Ответ отправлен');
  };
  return (
    <Form form={form} onSubmit={submit} className="form card support-reply">
      {(canned.data?.length ?? 0) > 0 && (
        <label className="field">
          <span>Шаблон ответа</span>
          <select
            value=""
            onChange={(e) => {
              const picked = canned.data?.find((c) => String(c.id) === e.target.value);
              if (!picked) return;
              const now = form.getValues('message');
              form.setValue('message', now.trim() ? `${now.trimEnd()}\n\n${picked.text}` : picked.text, { shouldDirty: true });
              form.setFocus('message');
            }}
          >
            <option value="">Вставить шаблон…</option>
            {canned.data!.map((c) => (
              <option key={c.id} value={String(c.id)}>
                {c.title}
              </option>
            ))}
          </select>
        </label>
      )}
      <TextAreaField
        name="message"
        label={internal || closed ? 'Внутренняя заметка' : 'Ответ игроку'}
        rows={5}
        maxLength={SUPPORT_LIMITS.messageMax}
      />
      {!closed && (
        <CheckboxField name="internal" label="Внутренняя заметка" hint="Её видят только сотрудники; игроку о ней не сообщается." />
      )}
      {!closed && !internal && <CheckboxField name="close" label="Закрыть обращение этим ответом" />}
      {ticket.kind !== 'appeal' && <AttachmentPicker value={pictures} onChange={setPictures} />}
      <FormErrors fields={false} />
      <div className="form-actions">
        <SubmitButton label={internal || closed ? 'Сохранить заметку' : 'Ответить'} pendingLabel="Отправляем…" />
      </div>
    </Form>
  );
}

// ---- Categories

/** The owner's form: a field's choices are typed one per line. */
const CategoryForm = SupportCategoryBody.extend({
  fields: z
    .array(
      SupportFieldDef.extend({
        options: z.string().transform((s) =>
          s
            .split('\n')
            .map((o) => o.trim())
            .filter(Boolean),
        ),
      }),
    )
    .max(SUPPORT_LIMITS.fieldsPerCategory, `Не больше ${SUPPORT_LIMITS.fieldsPerCategory} полей`),
});
type CategoryFormInput = z.input<typeof CategoryForm>;
type CategoryFormOutput = z.output<typeof CategoryForm>;

interface EditableListTexts<T> {
  /** The accusative noun in the row buttons' labels: «Изменить категорию …». */
  noun: string;
  add: string;
  removed: string;
  removeFailed: string;
  confirmRemove: (item: T) => string;
  loadFailed: string;
  empty: string;
  table: string;
  newTitle: string;
  editTitle: string;
}

/**
 * A tab of records the staff add, change and delete (categories, canned answers): the list with
 * «Изменить» and «Удалить» on each row, «Добавить» above it and the editor in a modal; after a
 * save or a deletion the list and the audit log are read again.
 */
function EditableList<T extends { id: number }>({
  queryKey,
  fetch,
  refreshKey,
  remove: removeItem,
  name,
  texts,
  columns,
  wide,
  editor,
}: {
  queryKey: QueryKey;
  fetch: () => Promise<T[]>;
  /** What a change makes stale besides the audit log. */
  refreshKey: QueryKey;
  remove: (item: T) => Promise<unknown>;
  name: (item: T) => string;
  texts: EditableListTexts<T>;
  /** The columns before «Действия». */
  columns: Column<T>[];
  wide?: boolean;
  editor: (item: T | null, onDone: () => Promise<void>) => ReactNode;
}) {
  const list = useQuery({ queryKey, queryFn: fetch });
  const [editing, setEditing] = useState<T | null | undefined>(undefined);
  const notify = useNotify();
  const client = useQueryClient();
  const { confirm, dialog } = useConfirm();
  const refresh = () =>
    Promise.all([client.invalidateQueries({ queryKey: refreshKey }), client.invalidateQueries({ queryKey: AUDIT_KEY })]);
  const remove = useMutation({
    mutationFn: removeItem,
    onSuccess: async () => {
      notify('success', texts.removed);
      await refresh();
    },
    onError: (err) => notify('danger', reason(err, texts.removeFailed)),
  });
  const withActions: Column<T>[] = [
    ...columns,
    {
      header: 'Действия',
      kind: 'actions',
      cell: (item) => (
        <div className="row">
          <button
            type="button"
            className="btn btn-small"
            onClick={() => setEditing(item)}
            aria-label={`Изменить ${texts.noun} ${name(item)}`}
          >
            Изменить
          </button>
          <button
            type="button"
            className="btn btn-small btn-danger"
            aria-label={`Удалить ${texts.noun} ${name(item)}`}
            onClick={async () => {
              if (await confirm(texts.confirmRemove(item), { confirmLabel: 'Удалить', danger: true })) remove.mutate(item);
            }}
          >
            Удалить
          </button>
        </div>
      ),
    },
  ];
  const done = async () => {
    setEditing(undefined);
    await refresh();
  };
  return (
    <div className="stack">
      {dialog}
      <div className="row">
        <button type="button" className="btn btn-primary" onClick={() => setEditing(null)}>
          {texts.add}
        </button>
      </div>
      <QueryState query={list} error={texts.loadFailed} empty={texts.empty}>
        {(items) => <DataTable label={texts.table} rows={items} columns={withActions} rowKey={(item) => item.id} />}
      </QueryState>
      <Modal
        open={editing !== undefined}
        title={editing ? texts.editTitle : texts.newTitle}
        onClose={() => setEditing(undefined)}
        wide={wide}
      >
        {editing !== undefined && <Fragment key={editing?.id ?? 'new'}>{editor(editing, done)}</Fragment>}
      </Modal>
    </div>
  );
}

function CategoriesTab() {
  return (
    <EditableList<SupportCategory>
      queryKey={adminCategoriesKey}
      fetch={fetchAdminCategories}
      refreshKey={SUPPORT_KEY}
      remove={(c) => deleteCategory(c.id)}
      name={(c) => c.name}
      texts={{
        noun: 'категорию',
        add: 'Добавить категорию',
        removed: 'Категория удалена',
        removeFailed: 'Не удалось удалить категорию',
        confirmRemove: (c) => `Удалить категорию «${c.name}»? Обращения в ней останутся.`,
        loadFailed: 'Не удалось загрузить категории',
        empty: 'Категорий пока нет: игроки не смогут написать, пока нет ни одной',
        table: 'Категории',
        newTitle: 'Новая категория',
        editTitle: 'Изменить категорию',
      }}
      columns={[
        {
          header: 'Категория',
          kind: 'main',
          cell: (c) => (
            <span>
              <CategoryIcon icon={c.icon} /> {c.name}
            </span>
          ),
        },
        { header: 'Поля', cell: (c) => (c.fields.length ? c.fields.map((f) => f.label).join(', ') : '—') },
        { header: 'Включена', cell: (c) => (c.enabled ? 'Да' : 'Нет') },
      ]}
      wide
      editor={(c, onDone) => <CategoryEditor category={c} onDone={onDone} />}
    />
  );
}

function CategoryEditor({ category, onDone }: { category: SupportCategory | null; onDone: () => Promise<void> }) {
  const notify = useNotify();
  const form = useSchemaForm<CategoryFormInput, CategoryFormOutput>(CategoryForm, {
    defaultValues: {
      name: category?.name ?? '',
      description: category?.description ?? '',
      icon: category?.icon ?? '',
      position: category?.position ?? 0,
      enabled: category?.enabled ?? true,
      fields: (category?.fields ?? []).map((f) => ({ ...f, options: f.options.join('\n') })),
    },
  });
  const submit = async (v: CategoryFormOutput) => {
    await saveCategory(category?.id ?? null, { ...v, icon: v.icon || null });
    notify('success', category ? 'Категория сохранена' : 'Категория добавлена');
    await onDone();
  };
  return (
    <Form form={form} onSubmit={submit}>
      <TextField name="name" label="Название" maxLength={60} />
      <TextAreaField name="description" label="Описание" rows={2} maxLength={500} />
      <TextField name="icon" label="Значок" hint={SUPPORT_ICON_HINT} maxLength={100} />
      <NumberField name="position" label="Порядок" hint="Меньше — выше в списке" />
      <CheckboxField name="enabled" label="Включена: игроки видят её и пишут в неё" />
      <FieldsEditor />
      <FormErrors />
      <FormActions onCancel={() => void onDone()} />
    </Form>
  );
}

function FieldsEditor() {
  const { control } = useFormContext<CategoryFormInput>();
  const fields = useFieldArray({ control, name: 'fields' });
  const types = useWatch({ control, name: 'fields' });
  return (
    <fieldset className="field-group support-fields-editor">
      <legend>Поля обращения</legend>
      <p className="hint">Что игрок заполнит, выбрав эту категорию (например ник, сервер, номер заказа).</p>
      {fields.fields.map((f, i) => (
        <FieldGroup key={f.id} legend={`Поле ${i + 1}`}>
          <TextField name={`fields.${i}.label`} label="Название" maxLength={60} />
          <SelectField
            name={`fields.${i}.type`}
            label="Тип"
            options={SUPPORT_FIELD_TYPES.map((t) => ({ value: t, label: SUPPORT_FIELD_TYPE_TEXT[t] }))}
          />
          <CheckboxField name={`fields.${i}.required`} label="Обязательное" />
          {types?.[i]?.type === 'select' && <TextAreaField name={`fields.${i}.options`} label="Варианты, по одному в строке" rows={3} />}
          <button type="button" className="btn btn-small btn-danger" onClick={() => fields.remove(i)}>
            Убрать поле
          </button>
        </FieldGroup>
      ))}
      {fields.fields.length < SUPPORT_LIMITS.fieldsPerCategory && (
        <button
          type="button"
          className="btn btn-small"
          onClick={() => fields.append({ label: '', type: 'text', required: false, options: '' })}
        >
          Добавить поле
        </button>
      )}
    </fieldset>
  );
}

// ---- Canned answers

function CannedTab() {
  return (
    <EditableList<CannedAnswer>
      queryKey={cannedKey}
      fetch={fetchCanned}
      refreshKey={cannedKey}
      remove={(c) => deleteCanned(c.id)}
      name={(c) => c.title}
      texts={{
        noun: 'шаблон',
        add: 'Добавить шаблон',
        removed: 'Шаблон удалён',
        removeFailed: 'Не удалось удалить шаблон',
        confirmRemove: (c) => `Удалить шаблон «${c.title}»?`,
        loadFailed: 'Не удалось загрузить шаблоны',
        empty: 'Шаблонов пока нет',
        table: 'Шаблоны ответов',
        newTitle: 'Новый шаблон',
        editTitle: 'Изменить шаблон',
      }}
      columns={[
        { header: 'Название', kind: 'main', cell: (c) => c.title },
        { header: 'Текст', kind: 'clip', cell: (c) => c.text },
      ]}
      editor={(c, onDone) => <CannedEditor canned={c} onDone={onDone} />}
    />
  );
}

function CannedEditor({ canned, onDone }: { canned: CannedAnswer | null; onDone: () => Promise<void> }) {
  const notify = useNotify();
  const form = useSchemaForm(CannedAnswerBody, { defaultValues: { title: canned?.title ?? '', text: canned?.text ?? '' } });
  const submit = async (v: { title: string; text: string }) => {
    await saveCanned(canned?.id ?? null, v);
    notify('success', canned ? 'Шаблон сохранён' : 'Шаблон добавлен');
    await onDone();
  };
  return (
    <Form form={form} onSubmit={submit}>
      <TextField name="title" label="Название" maxLength={80} />
      <TextAreaField name="text" label="Текст" rows={6} maxLength={SUPPORT_LIMITS.messageMax} />
      <FormErrors />
      <div className="form-actions">
        <button type="button" className="btn" onClick={() => void onDone()}>
          Отмена
        </button>
        <SubmitButton label="Сохранить" pendingLabel="Сохраняем…" />
      </div>
    </Form>
  );
}
