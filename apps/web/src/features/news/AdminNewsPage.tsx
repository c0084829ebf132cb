import type { NewsItem } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNotify } from '../../providers/notifications.tsx';
import { Field } from '../../components/Field.tsx';
import { Modal } from '../../components/Modal.tsx';
import { Empty, Loading } from '../../components/States.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDate } from '../../lib/format.ts';
import { useTitle } from '../../providers/title.ts';
import { createNews, deleteNews, fetchAllNews, NEWS_ALL_KEY, NEWS_KEY, preview, updateNews } from './api.ts';
import { TextAreaField } from '../../components/TextAreaField.tsx';

interface Draft {
  id: number | null;
  title: string;
  image_url: string;
  content: string;
}

const EMPTY: Draft = { id: null, title: '', image_url: '', content: '' };

export default function AdminNewsPage() {
  useTitle('Админ-панель: новости');
  const notify = useNotify();
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: NEWS_ALL_KEY, queryFn: fetchAllNews });
  const [draft, setDraft] = useState<Draft | null>(null);
  const [serverError, setServerError] = useState('');

  const save = useMutation({
    mutationFn: (d: Draft) => {
      const body = { title: d.title.trim(), image_url: d.image_url.trim(), content: d.content.trim() };
      return d.id === null ? createNews(body) : updateNews(d.id, body);
    },
    onSuccess: (_item, d) => {
      notify('success', d.id === null ? 'Новость добавлена!' : 'Новость обновлена!');
      setDraft(null);
      void queryClient.invalidateQueries({ queryKey: NEWS_KEY });
    },
    onError: (err) => {
      notify('danger', 'Ошибка при сохранении новости');
      setServerError(err instanceof ApiError ? err.message : '');
    },
  });

  const remove = useMutation({
    mutationFn: (item: NewsItem) => deleteNews(item.id),
    onSuccess: () => notify('success', 'Новость удалена!'),
    onError: () => notify('danger', 'Ошибка при удалении'),
    onSettled: () => queryClient.invalidateQueries({ queryKey: NEWS_KEY }),
  });

  const open = (d: Draft) => {
    setServerError('');
    setDraft(d);
  };

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!draft) return;
    if (!draft.title.trim() || !draft.content.trim()) {
      notify('danger', 'Заполните заголовок и содержание!');
      return;
    }
    save.mutate(draft);
  }

  const set = (key: 'title' | 'image_url' | 'content') => (e: { target: { value: string } }) => setDraft((d) => (d ? { ...d, [key]: e.target.value } : d));

  return (
    <section className="stack" aria-labelledby="admin-news-heading">
      <div className="admin-section-head">
        <h2 id="admin-news-heading">Новости</h2>
        <button type="button" className="btn btn-primary" onClick={() => open(EMPTY)}>
          Добавить новость
        </button>
      </div>

      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <Empty>Не удалось загрузить новости. Обновите страницу.</Empty>
      ) : list.data.length === 0 ? (
        <Empty>Здесь пока нет новостей</Empty>
      ) : (
        <div className="table-wrap">
          <table className="table admin-table">
            <thead>
              <tr>
                <th className="num">ID</th>
                <th>Заголовок</th>
                <th>Содержание</th>
                <th>Создана</th>
                <th>Действия</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((item) => (
                <tr key={item.id}>
                  <td className="num">{item.id}</td>
                  <td>{item.title}</td>
                  <td className="clip">{preview(item.content, 80)}</td>
                  <td className="nowrap">{formatDate(item.created_at)}</td>
                  <td>
                    <div className="admin-actions">
                      <button
                        type="button"
                        className="btn btn-small"
                        aria-label={`Изменить новость «${item.title}»`}
                        onClick={() => open({ id: item.id, title: item.title, image_url: item.image_url ?? '', content: item.content })}
                      >
                        Изменить
                      </button>
                      <button
                        type="button"
                        className="btn btn-small btn-danger"
                        aria-label={`Удалить новость «${item.title}»`}
                        disabled={remove.isPending}
                        onClick={() => {
                          if (window.confirm(`Удалить новость «${item.title}»?`)) remove.mutate(item);
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

      <Modal open={draft !== null} title={draft?.id ? 'Изменить новость' : 'Новая новость'} onClose={() => setDraft(null)} wide>
        {draft && (
          <form className="form" onSubmit={submit} noValidate>
            <Field label="Заголовок" name="title" value={draft.title} onChange={set('title')} maxLength={200} required />
            <Field
              label="Ссылка на изображение (необязательно)"
              name="image_url"
              type="url"
              inputMode="url"
              value={draft.image_url}
              onChange={set('image_url')}
              placeholder="https://… или /images/…"
              hint="Адрес картинки: http(s):// или путь на сайте, начинающийся с /."
            />
            <TextAreaField label="Содержание" name="content" value={draft.content} onChange={set('content')} rows={8} maxLength={20_000} required hint="Текст показывается как есть, с переносами строк." />
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
