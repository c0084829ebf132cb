import { PAGE_PLACE_LABELS, PageBody, PageSlug, withLabels, type Page } from '@kubik/contract';
import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import { useWatch } from 'react-hook-form';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { useCrud, type Crud } from '../../components/admin/useCrud.ts';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { NumberField, SelectField, TextAreaField, TextField } from '../../components/form/fields.tsx';
import { Modal } from '../../components/Modal.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { Loading } from '../../components/States.tsx';
import { formatDate } from '../../lib/format.ts';
import { useTitle } from '../../providers/title.ts';
import { ADMIN_PAGES_KEY, deletePage, fetchAdminPages, PAGES_KEY, savePage } from './api.ts';
import './pages.css';

type Draft = PageBody & { slug?: string };

const NewPageBody = withLabels(PageBody.extend({ slug: PageSlug }), {
  slug: 'Адрес страницы',
  title: 'Заголовок',
  body: 'Текст (Markdown)',
  place: 'Где ссылка',
  position: 'Порядок',
});
const PLACES = (Object.keys(PAGE_PLACE_LABELS) as (keyof typeof PAGE_PLACE_LABELS)[]).map((value) => ({
  value,
  label: PAGE_PLACE_LABELS[value],
}));

/** Админ-панель → Страницы: rules, help, FAQ, оферта, privacy, contacts and the owner's own pages, in Markdown with a preview. */
export default function AdminPagesPage() {
  useTitle('Админ-панель: страницы');
  const crud = useCrud<Page, Draft>({
    queryKey: ADMIN_PAGES_KEY,
    list: fetchAdminPages,
    refresh: [PAGES_KEY],
    create: ({ slug = '', ...body }) => savePage(slug, body),
    update: (page, { slug: _ignored, ...body }) => savePage(page.slug, body),
    remove: (page) => deletePage(page.slug),
    texts: {
      created: 'Страница создана',
      updated: 'Страница сохранена',
      removed: 'Страница удалена',
      saveFailed: 'Не удалось сохранить страницу',
      removeFailed: (e) => e.message || 'Не удалось удалить страницу',
      confirmRemove: (page) => `Удалить страницу «${page.title}»?`,
    },
  });

  const columns: Column<Page>[] = [
    { header: 'Заголовок', cell: (p) => p.title, kind: 'main' },
    {
      header: 'Адрес',
      cell: (p) =>
        p.body.trim() ? (
          <a href={p.path} target="_blank" rel="noopener noreferrer">
            {p.path}
          </a>
        ) : (
          <span className="muted">{p.path} · не заполнена, на сайте не видна</span>
        ),
    },
    { header: 'Ссылка', cell: (p) => PAGE_PLACE_LABELS[p.place] },
    { header: 'Изменена', cell: (p) => formatDate(p.updated_at) },
    {
      header: 'Действия',
      kind: 'actions',
      cell: (p) => (
        <div className="admin-actions">
          <button type="button" className="btn btn-small" aria-label={`Изменить страницу «${p.title}»`} onClick={() => crud.openEdit(p)}>
            Изменить
          </button>
          {!p.builtin && (
            <button
              type="button"
              className="btn btn-small btn-danger"
              aria-label={`Удалить страницу «${p.title}»`}
              disabled={crud.removing}
              onClick={() => crud.remove(p)}
            >
              Удалить
            </button>
          )}
        </div>
      ),
    },
  ];

  return (
    <AdminSection
      title="Страницы"
      actions={
        <button type="button" className="btn btn-primary" onClick={crud.openNew}>
          Новая страница
        </button>
      }
    >
      <p className="muted">Тексты в Markdown. Пустая страница на сайте не показывается. Свои страницы открываются по адресу /p/адрес.</p>
      <QueryState query={crud.list} error="Не удалось загрузить страницы" empty="Страниц пока нет">
        {(pages) => <DataTable label="Страницы" rows={pages} columns={columns} rowKey={(p) => p.slug} />}
      </QueryState>
      {crud.dialog}
      <Modal
        open={crud.editing !== undefined}
        title={crud.editing ? `Страница «${crud.editing.title}»` : 'Новая страница'}
        onClose={crud.close}
        wide
      >
        {crud.editing !== undefined && <PageForm key={crud.editing?.slug ?? 'new'} crud={crud} />}
      </Modal>
    </AdminSection>
  );
}

function PageForm({ crud }: { crud: Crud<Page, Draft> }) {
  const page = crud.editing ?? null;
  const form = useSchemaForm<Draft, Draft>(page ? PageBody : NewPageBody, {
    // The schema is strict: an edited page's form has no address field, so no slug either.
    defaultValues: page
      ? { title: page.title, body: page.body, place: page.place, position: page.position }
      : { slug: '', title: '', body: '', place: 'footer', position: 0 },
  });
  const faq = page?.slug === 'faq';
  return (
    <Form form={form} onSubmit={crud.save} className="form page-form">
      {!page && (
        <TextField
          name="slug"
          label="Адрес страницы"
          placeholder="vip-rules"
          autoComplete="off"
          spellCheck={false}
          maxLength={64}
          hint="Латинские буквы, цифры и дефис: страница будет по адресу /p/адрес."
        />
      )}
      <TextField name="title" label="Заголовок" maxLength={120} />
      <div className="page-form-row">
        <SelectField
          name="place"
          label="Где ссылка"
          options={PLACES}
          hint={
            page?.builtin && (page.slug === 'rules' || page.slug === 'help' || page.slug === 'faq')
              ? 'Правила и помощь и так есть в меню.'
              : undefined
          }
        />
        <NumberField name="position" label="Порядок" hint="Меньше — раньше в подвале или меню." />
      </div>
      <div className="page-editor">
        <TextAreaField
          name="body"
          label="Текст (Markdown)"
          rows={18}
          spellCheck
          hint={
            faq
              ? 'Каждый вопрос — заголовок «## Вопрос?», ответ — текст под ним: на сайте вопрос раскрывается по нажатию.'
              : '## Заголовок, **жирный**, *курсив*, - список, 1. нумерованный, [ссылка](https://…), ![картинка](https://…). HTML не поддерживается.'
          }
        />
        <Preview faq={faq} />
      </div>
      <FormErrors />
      <FormActions onCancel={crud.close} />
    </Form>
  );
}

type Render = (source: string, options?: { faq?: boolean }) => string;

/** The text as visitors will see it, rendered by the server's own renderer (loaded with the editor only). */
function Preview({ faq }: { faq: boolean }) {
  const body = useWatch<Draft, 'body'>({ name: 'body' });
  const [render, setRender] = useState<Render | null>(null);
  useEffect(() => {
    let live = true;
    void import('@kubik/contract/markdown').then((m) => live && setRender(() => m.renderMarkdown));
    return () => {
      live = false;
    };
  }, []);
  const text = useDeferredValue(body ?? '');
  const html = useMemo(() => (render ? render(text, { faq }) : null), [render, text, faq]);
  return (
    <section className="page-preview" aria-label="Предпросмотр">
      <p className="page-preview-label">Предпросмотр</p>
      {html === null ? (
        <Loading text="Загрузка предпросмотра..." />
      ) : html ? (
        <div className="prose" data-testid="page-preview" dangerouslySetInnerHTML={{ __html: html }} />
      ) : (
        <p className="muted">Пустая страница на сайте не показывается.</p>
      )}
    </section>
  );
}
