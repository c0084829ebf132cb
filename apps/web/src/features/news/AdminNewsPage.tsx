import { AdminNoticeBody, NewsBody, type AdminNoticeResponse, type NewsItem } from '@kubik/contract';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { z } from 'zod';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { RowActions } from '../../components/admin/RowMenu.tsx';
import { useCrud, type Crud } from '../../components/admin/useCrud.ts';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { ImageUrlField, TextAreaField, TextField } from '../../components/form/fields.tsx';
import { Modal } from '../../components/Modal.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { api, ApiError } from '../../lib/api.ts';
import { formatDate } from '../../lib/format.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import { createNews, deleteNews, fetchAllNews, NEWS_ALL_KEY, NEWS_KEY, preview, updateNews } from './api.ts';

export default function AdminNewsPage() {
  useTitle('Админ-панель: новости');
  const [broadcast, setBroadcast] = useState(false);
  const crud = useCrud<NewsItem, NewsBody>({
    queryKey: NEWS_ALL_KEY,
    list: fetchAllNews,
    refresh: [NEWS_KEY],
    create: createNews,
    update: (item, body) => updateNews(item.id, body),
    remove: (item) => deleteNews(item.id),
    texts: {
      created: 'Новость добавлена!',
      updated: 'Новость обновлена!',
      removed: 'Новость удалена!',
      saveFailed: 'Ошибка при сохранении новости',
      removeFailed: 'Ошибка при удалении',
      confirmRemove: (item) => `Удалить новость «${item.title}»?`,
    },
  });

  const columns: Column<NewsItem>[] = [
    { header: 'ID', cell: (n) => n.id, kind: 'num' },
    { header: 'Заголовок', cell: (n) => n.title, kind: 'main' },
    { header: 'Содержание', cell: (n) => preview(n.content, 80), kind: 'clip' },
    { header: 'Создана', cell: (n) => formatDate(n.created_at) },
    {
      header: 'Действия',
      kind: 'actions',
      cell: (n) => (
        <RowActions what={`новость «${n.title}»`} onEdit={() => crud.openEdit(n)} onDelete={() => crud.remove(n)} busy={crud.removing} />
      ),
    },
  ];

  return (
    <AdminSection
      title="Новости"
      actions={
        <>
          <button type="button" className="btn" onClick={() => setBroadcast(true)}>
            Сообщение всем игрокам
          </button>
          <button type="button" className="btn btn-primary" onClick={crud.openNew}>
            Добавить новость
          </button>
        </>
      }
    >
      <QueryState query={crud.list} error="Не удалось загрузить новости" empty="Здесь пока нет новостей">
        {(news) => <DataTable label="Новости" rows={news} columns={columns} rowKey={(n) => n.id} />}
      </QueryState>
      {crud.dialog}
      <Modal open={crud.editing !== undefined} title={crud.editing ? 'Изменить новость' : 'Новая новость'} onClose={crud.close} wide>
        {crud.editing !== undefined && <NewsForm key={crud.editing?.id ?? 'new'} crud={crud} />}
      </Modal>
      <Modal open={broadcast} title="Сообщение всем игрокам" onClose={() => setBroadcast(false)}>
        {broadcast && <BroadcastForm onDone={() => setBroadcast(false)} />}
      </Modal>
    </AdminSection>
  );
}

type BroadcastIn = z.input<typeof AdminNoticeBody>;

/** A message from the administration into every player's bell (docs/notices.md). */
function BroadcastForm({ onDone }: { onDone: () => void }) {
  const notify = useNotify();
  const form = useSchemaForm<BroadcastIn, AdminNoticeBody>(AdminNoticeBody, { defaultValues: { title: '', body: '' } });
  const send = useMutation({
    mutationFn: (body: AdminNoticeBody) => api<AdminNoticeResponse>('/api/admin/notices', { method: 'POST', body }),
  });
  async function save(body: AdminNoticeBody) {
    try {
      const res = await send.mutateAsync(body);
      notify('success', res.message);
      onDone();
    } catch (err) {
      notify('danger', err instanceof ApiError && err.message ? err.message : 'Не удалось отправить сообщение');
      throw err;
    }
  }
  return (
    <Form form={form} onSubmit={save}>
      <TextField name="title" label="Заголовок" autoComplete="off" />
      <TextAreaField name="body" label="Текст" hint="Необязательно. Каждый игрок увидит сообщение в колокольчике." rows={4} />
      <FormErrors />
      <FormActions submitLabel="Отправить всем" pendingLabel="Отправляем…" onCancel={onDone} />
    </Form>
  );
}

function NewsForm({ crud }: { crud: Crud<NewsItem, NewsBody> }) {
  const notify = useNotify();
  const item = crud.editing;
  const form = useSchemaForm(NewsBody, {
    defaultValues: { title: item?.title ?? '', image_url: item?.image_url ?? '', content: item?.content ?? '' },
  });
  return (
    <Form
      form={form}
      onSubmit={crud.save}
      onInvalid={(errors) => {
        // Spec §5's text when the two required fields are missing; other problems speak for themselves.
        if (errors.title || errors.content) notify('danger', 'Заполните заголовок и содержание!');
      }}
    >
      <TextField name="title" label="Заголовок" maxLength={200} />
      <ImageUrlField
        name="image_url"
        label="Ссылка на изображение (необязательно)"
        hint="Адрес картинки: http(s):// или путь на сайте, начинающийся с /."
      />
      <TextAreaField
        name="content"
        label="Содержание"
        rows={8}
        maxLength={20_000}
        hint="Текст показывается как есть, с переносами строк."
      />
      <FormErrors />
      <FormActions onCancel={crud.close} />
    </Form>
  );
}
