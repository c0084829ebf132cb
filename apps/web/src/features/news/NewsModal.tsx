import type { NewsItem } from '@kubik/contract';
import { Link } from 'wouter';
import { Modal } from '../../components/Modal.tsx';
import { formatDate } from '../../lib/format.ts';
import { newsPath } from './api.ts';
import { NewsImage } from './NewsImage.tsx';

/** A news item opened from the feed: the full text, image and date, and a link to its page. */
export default function NewsModal({ item, onClose }: { item: NewsItem; onClose: () => void }) {
  return (
    <Modal open title={item.title} onClose={onClose} wide>
      <NewsFull item={item} onClose={onClose} />
    </Modal>
  );
}

function NewsFull({ item, onClose }: { item: NewsItem; onClose: () => void }) {
  return (
    <article className="stack news-full">
      {item.image_url && <NewsImage className="news-full-image" src={item.image_url} />}
      <time className="news-date" dateTime={item.created_at}>
        {formatDate(item.created_at)}
      </time>
      <p className="preline news-full-text">{item.content}</p>
      <div className="form-actions">
        <Link to={newsPath(item.id)} className="btn btn-ghost" onClick={onClose}>
          Страница новости
        </Link>
        <button type="button" className="btn" onClick={onClose}>
          Закрыть
        </button>
      </div>
    </article>
  );
}
