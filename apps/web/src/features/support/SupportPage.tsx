import {
  SUPPORT_LIMITS,
  SUPPORT_TEXTS,
  SupportMessageBody,
  type SupportAttachment,
  type SupportCategory,
  type SupportField,
  type SupportLink,
} from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { useWatch } from 'react-hook-form';
import { Link, Redirect, useLocation, useRoute, useSearchParams } from 'wouter';
import { z } from 'zod';
import { Form, FormErrors, SubmitButton, useSchemaForm } from '../../components/form/Form.tsx';
import { CheckboxField, RadioGroupField, SelectField, TextAreaField, TextField } from '../../components/form/fields.tsx';
import { Pager } from '../../components/Pager.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { Loading } from '../../components/States.tsx';
import { useConfirm } from '../../components/useConfirm.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import {
  categoriesKey,
  closeTicket,
  createTicket,
  fetchCategories,
  fetchLinks,
  fetchTicket,
  fetchTickets,
  linksKey,
  replyToTicket,
  SUPPORT_KEY,
  ticketKey,
  ticketsKey,
} from './api.ts';
import AppealPage from './AppealPage.tsx';
import { AttachmentPicker, CategoryIcon, StateBadge, Thread, TicketFacts } from './parts.tsx';
import { answersFor, linkRef, newTicketSchema, type NewTicketValues } from './ticket-form.ts';
import './support.css';

/**
 * /support, /support/new and /support/<номер> for a signed-in player, and /support/appeal for a
 * banned one (no account needed): one chunk, so the router gains one entry. Each opens at the top.
 */
export default function SupportPage() {
  const [path] = useLocation();
  const [isTicket, params] = useRoute<{ id: string }>('/support/:id');
  const { user } = useAuth();
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [path]);
  if (path === '/support/appeal') return <AppealPage />;
  if (user === undefined) return <Loading />;
  if (!user) return <Redirect to="/login" replace state={{ from: path }} />;
  if (path === '/support/new') return <NewTicket />;
  if (isTicket && /^[1-9][0-9]{0,9}$/.test(params.id)) return <TicketPage id={Number(params.id)} />;
  return <TicketList />;
}

function TicketList() {
  useTitle('Поддержка');
  const [page, setPage] = useState(1);
  const list = useQuery({ queryKey: ticketsKey(page), queryFn: () => fetchTickets(page) });
  return (
    <div className="stack support-page">
      <div className="support-head">
        <h1>Поддержка</h1>
        <Link to="/support/new" className="btn btn-primary">
          Новое обращение
        </Link>
      </div>
      <p className="muted">
        Напишите, если не пришла покупка, не работает вход или есть другой вопрос. Ответ придёт сюда, в уведомления и на почту.
      </p>
      <QueryState query={list} error="Не удалось загрузить обращения" empty="Обращений пока нет" isEmpty={(d) => d.items.length === 0}>
        {(data) => (
          <>
            <ul className="support-list" aria-label="Мои обращения">
              {data.items.map((t) => (
                <li key={t.id} className="card support-item">
                  <Link to={`/support/${t.id}`} className="support-item-link">
                    <span className="support-item-title">
                      {t.category && <CategoryIcon icon={t.category.icon} />} {t.subject}
                    </span>
                  </Link>
                  <span className="support-item-meta muted">
                    №{t.id} · {t.kind === 'appeal' ? 'Обжалование блокировки' : (t.category?.name ?? 'Без категории')} · обновлено{' '}
                    {formatDateTime(t.updated_at)}
                  </span>
                  <StateBadge state={t.state} />
                </li>
              ))}
            </ul>
            <Pager label="Страницы обращений" page={data.page} pages={data.pages} onPage={setPage} />
          </>
        )}
      </QueryState>
    </div>
  );
}

// ---- A new ticket

function NewTicket() {
  useTitle('Новое обращение');
  const categories = useQuery({ queryKey: categoriesKey, queryFn: fetchCategories });
  const links = useQuery({ queryKey: linksKey, queryFn: fetchLinks });
  return (
    <div className="stack support-page">
      <p>
        <Link to="/support">← Все обращения</Link>
      </p>
      <h1>Новое обращение</h1>
      <QueryState
        query={categories}
        error="Не удалось загрузить категории"
        empty="Администрация ещё не настроила поддержку: напишите в группу сервера."
      >
        {(list) => <NewTicketForm categories={list} links={links.data?.items ?? []} />}
      </QueryState>
    </div>
  );
}

function NewTicketForm({ categories, links }: { categories: SupportCategory[]; links: SupportLink[] }) {
  const schema = useMemo(() => newTicketSchema(categories), [categories]);
  // «Обжаловать» on /bans opens this form with the punishment named in the subject.
  const [params] = useSearchParams();
  const form = useSchemaForm(schema, {
    defaultValues: {
      category_id: categories.length === 1 ? String(categories[0]!.id) : '',
      subject: (params.get('subject') ?? '').slice(0, SUPPORT_LIMITS.subjectMax),
      message: '',
      link: '',
      fields: {},
    },
  });
  const [pictures, setPictures] = useState<SupportAttachment[]>([]);
  const [, navigate] = useLocation();
  const notify = useNotify();
  const client = useQueryClient();
  const chosen = useWatch({ control: form.control, name: 'category_id' });
  const category = categories.find((c) => String(c.id) === chosen);

  const submit = async (v: NewTicketValues) => {
    const { id } = await createTicket({
      category_id: Number(v.category_id),
      subject: v.subject,
      message: v.message,
      fields: answersFor(category, v.fields),
      link: linkRef(v.link),
      attachment_ids: pictures.map((p) => p.id),
    });
    await client.invalidateQueries({ queryKey: SUPPORT_KEY });
    notify('success', 'Обращение отправлено');
    navigate(`/support/${id}`);
  };

  return (
    <Form form={form} onSubmit={submit} className="form card">
      <RadioGroupField
        name="category_id"
        label="Категория"
        className="support-categories"
        options={categories.map((c) => ({
          value: String(c.id),
          className: 'support-category',
          label: (
            <span className="support-category-text">
              <span className="support-category-name">
                <CategoryIcon icon={c.icon} /> {c.name}
              </span>
              {c.description && <span className="muted support-category-description">{c.description}</span>}
            </span>
          ),
        }))}
      />
      <TextField name="subject" label="Тема" maxLength={SUPPORT_LIMITS.subjectMax} autoComplete="off" />
      {category?.fields.map((f) => (
        <AnswerField key={`${category.id}-${f.key}`} field={f} />
      ))}
      {links.length > 0 && (
        <SelectField
          name="link"
          label="О чём обращение"
          hint="Если вопрос о покупке, выдаче или пополнении — выберите её, так ответят быстрее."
          options={[{ value: '', label: 'Ни о чём из списка' }, ...links.map((l) => ({ value: `${l.kind}:${l.id}`, label: l.label }))]}
        />
      )}
      <TextAreaField name="message" label="Сообщение" rows={6} maxLength={SUPPORT_LIMITS.messageMax} />
      <AttachmentPicker value={pictures} onChange={setPictures} />
      <FormErrors />
      <div className="form-actions">
        <SubmitButton label="Отправить" pendingLabel="Отправляем…" />
      </div>
    </Form>
  );
}

function AnswerField({ field }: { field: SupportField }) {
  const name = `fields.${field.key}`;
  const label = field.required || field.type === 'checkbox' ? field.label : `${field.label} (необязательно)`;
  switch (field.type) {
    case 'checkbox':
      return <CheckboxField name={name} label={label} />;
    case 'select':
      return (
        <SelectField
          name={name}
          label={label}
          options={[{ value: '', label: 'Выберите…' }, ...field.options.map((o) => ({ value: o, label: o }))]}
        />
      );
    case 'textarea':
      return <TextAreaField name={name} label={label} rows={3} maxLength={SUPPORT_LIMITS.textareaAnswerMax} />;
    case 'number':
      return <TextField name={name} label={label} inputMode="decimal" autoComplete="off" />;
    default:
      return <TextField name={name} label={label} maxLength={SUPPORT_LIMITS.textAnswerMax} autoComplete="off" />;
  }
}

// ---- One ticket

function TicketPage({ id }: { id: number }) {
  const ticket = useQuery({ queryKey: ticketKey(id), queryFn: () => fetchTicket(id) });
  useTitle(ticket.data ? `Обращение №${id}` : 'Обращение');
  const client = useQueryClient();
  const notify = useNotify();
  const { confirm, dialog } = useConfirm();
  const close = useMutation({
    mutationFn: () => closeTicket(id),
    onSuccess: async (t) => {
      client.setQueryData(ticketKey(id), t);
      await client.invalidateQueries({ queryKey: SUPPORT_KEY });
      notify('success', 'Обращение закрыто');
    },
    onError: (err) => notify('danger', err instanceof ApiError && err.message ? err.message : 'Не удалось закрыть обращение'),
  });
  return (
    <div className="stack support-page">
      {dialog}
      <p>
        <Link to="/support">← Все обращения</Link>
      </p>
      <QueryState query={ticket} error="Не удалось загрузить обращение">
        {(t) => (
          <>
            <div className="support-head">
              <h1 className="support-subject">{t.subject}</h1>
              <StateBadge state={t.state} />
            </div>
            <p className="muted">
              Обращение №{t.id} от {formatDateTime(t.created_at)}
              {t.kind === 'appeal' && ' · обжалование блокировки'}
            </p>
            <TicketFacts ticket={t} />
            <Thread ticket={t} />
            {t.state === 'closed' ? (
              <div className="notice" role="status">
                <p>{SUPPORT_TEXTS.closed}</p>
                <Link to="/support/new" className="btn btn-small">
                  Новое обращение
                </Link>
              </div>
            ) : (
              <>
                <ReplyForm id={id} />
                <div className="row">
                  <button
                    type="button"
                    className="btn btn-small"
                    disabled={close.isPending}
                    onClick={async () => {
                      if (await confirm('Вопрос решён? Закрытое обращение не принимает ответов.', { confirmLabel: 'Закрыть обращение' }))
                        close.mutate();
                    }}
                  >
                    Закрыть обращение
                  </button>
                </div>
              </>
            )}
          </>
        )}
      </QueryState>
    </div>
  );
}

const ReplySchema = z.object({ message: SupportMessageBody.shape.message });

function ReplyForm({ id }: { id: number }) {
  const form = useSchemaForm(ReplySchema, { defaultValues: { message: '' } });
  const [pictures, setPictures] = useState<SupportAttachment[]>([]);
  const client = useQueryClient();
  const submit = async ({ message }: { message: string }) => {
    const t = await replyToTicket(id, { message, attachment_ids: pictures.map((p) => p.id) });
    client.setQueryData(ticketKey(id), t);
    await client.invalidateQueries({ queryKey: SUPPORT_KEY });
    form.reset({ message: '' });
    setPictures([]);
  };
  return (
    <Form form={form} onSubmit={submit} className="form card support-reply">
      <TextAreaField name="message" label="Ваш ответ" rows={4} maxLength={SUPPORT_LIMITS.messageMax} />
      <AttachmentPicker value={pictures} onChange={setPictures} />
      <FormErrors fields={false} />
      <div className="form-actions">
        <SubmitButton label="Отправить ответ" pendingLabel="Отправляем…" />
      </div>
    </Form>
  );
}
