import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import { Empty, Loading } from '../../components/States.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDate } from '../../lib/format.ts';
import { useTitle } from '../../providers/title.ts';
import { fetchNewsItem, newsItemKey } from './api.ts';
import { NewsImage } from './NewsImage.tsx';
import './news.css';

/** /news/{id}: one item on a page of its own, titled with its title. */
export default function NewsPage() {
  const { id: raw = '' } = useParams<{ id: string }>();
  const id = /^[1-9]\d{0,9}$/.test(raw) ? Number(raw) : null;
  const item = useQuery({
    queryKey: newsItemKey(id ?? 0),
    queryFn: () => fetchNewsItem(id!),
    enabled: id !== null,
    retry: (count, err) => !(err instanceof ApiError && err.status < 500) && count < 2,
  });
  const missing = id === null || (item.error instanceof ApiError && (item.error.status === 404 || item.error.status === 400));
  useTitle(item.data ? item.data.title : missing ? 'Новость не найдена' : 'Новость');

  if (missing) {
    return (
      <Empty>
        <h1>Новость не найдена</h1>
        <p>Возможно, её удалили или ссылка неполная.</p>
        <Link to="/" className="btn btn-primary">
          Все новости
        </Link>
      </Empty>
    );
  }
  if (item.isPending) return <Loading text="Загрузка новости..." />;
  if (item.isError) {
    return (
      <Empty>
        <p>Не удалось загрузить новость.</p>
        <button type="button" className="btn btn-small" onClick={() => void item.refetch()}>
          Повторить
        </button>
      </Empty>
    );
  }
  const news = item.data;
  return (
    <article className="stack news-page">
      <Link to="/" className="news-page-back">
        ← Все новости
      </Link>
      <h1>{news.title}</h1>
      <time className="news-date" dateTime={news.created_at}>
        {formatDate(news.created_at)}
      </time>
      {news.image_url && <NewsImage className="news-full-image" src={news.image_url} />}
      <p className="preline news-full-text">{news.content}</p>
    </article>
  );
}
