import type { NewsItem } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState, type MouseEvent } from 'react';
import { Empty, Loading } from '../../components/States.tsx';
import { formatDate } from '../../lib/format.ts';
import { NewsImage } from './NewsImage.tsx';
import { fetchNewsFeed, NEWS_FEED_KEY, newsPath, preview } from './api.ts';
import './news.css';

/**
 * The home page's news: a grid of cards, each opening the full text in a modal (spec). Each card's
 * title is a link to the item's own page, so it can be opened in a new tab, shared or bookmarked.
 */
export function NewsFeed() {
  const feed = useQuery({ queryKey: NEWS_FEED_KEY, queryFn: fetchNewsFeed });
  const [opened, setOpened] = useState<NewsItem | null>(null);
  const items = feed.data?.news ?? [];
  const next = feed.data?.next_page ?? null;

  return (
    <section className="stack" aria-labelledby="news-heading">
      <h2 id="news-heading">Новости</h2>
      {feed.isPending ? (
        <Loading text="Загрузка новостей..." />
      ) : feed.isError ? (
        <Empty>
          <p>Не удалось загрузить новости.</p>
          <button type="button" className="btn btn-small" onClick={() => void feed.refetch()}>
            Повторить
          </button>
        </Empty>
      ) : items.length === 0 ? (
        <Empty>Здесь пока нет новостей</Empty>
      ) : (
        <ul className="news-grid">
          {items.map((item, i) => (
            <NewsCard key={item.id} item={item} index={i} onOpen={() => setOpened(item)} />
          ))}
        </ul>
      )}
      {next !== null && (
        // The feed comes a page at a time; the pages after the first are a chunk of their own.
        <Suspense fallback={null}>
          <NewsMore first={next} card={(item, i) => <NewsCard key={item.id} item={item} index={i} onOpen={() => setOpened(item)} />} />
        </Suspense>
      )}
      {opened && (
        <Suspense fallback={null}>
          <NewsModal item={opened} onClose={() => setOpened(null)} />
        </Suspense>
      )}
    </section>
  );
}

/**
 * The modal is a chunk of its own (with the item's page), asked for as soon as a card is pointed
 * at or focused: the home page's first script stays small.
 */
const loadModal = () => import('./NewsModal.tsx');
const NewsModal = lazy(loadModal);
const NewsMore = lazy(() => import('./NewsMore.tsx'));

/**
 * The whole card opens the item; the real control is the title link, for keyboards and readers. A
 * plain click opens the modal; with a modifier key or the middle button the browser opens the page.
 */
function NewsCard({ item, index, onOpen }: { item: NewsItem; index: number; onOpen: () => void }) {
  const open = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    onOpen();
  };
  return (
    <li className="news-card" data-testid="news-card" onPointerEnter={() => void loadModal()} onFocus={() => void loadModal()}>
      {item.image_url && <NewsImage className="news-card-image" src={item.image_url} index={index} />}
      <div className="news-card-body">
        <h3 className="news-card-title">
          <a className="news-card-open" href={newsPath(item.id)} onClick={open}>
            {item.title}
          </a>
        </h3>
        <p className="news-card-preview">{preview(item.content)}</p>
        <time className="news-date" dateTime={item.created_at}>
          {formatDate(item.created_at)}
        </time>
      </div>
    </li>
  );
}
