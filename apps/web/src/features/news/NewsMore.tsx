import type { NewsItem } from '@kubik/contract';
import { useState, type ReactNode } from 'react';
import { fetchNewsPage } from './api.ts';

/** The feed's pages after the first, read as the reader asks for them (the feed is paged). */
export default function NewsMore({ first, card }: { first: number; card: (item: NewsItem, index: number) => ReactNode }) {
  const [more, setMore] = useState<{ news: NewsItem[]; next: number | null; loading: boolean }>({ news: [], next: first, loading: false });
  const load = (page: number) => {
    setMore((m) => ({ ...m, loading: true }));
    fetchNewsPage(page).then(
      (res) => setMore((m) => ({ news: [...m.news, ...res.news], next: res.next_page, loading: false })),
      () => setMore((m) => ({ ...m, loading: false })),
    );
  };
  return (
    <>
      {more.news.length > 0 && <ul className="news-grid">{more.news.map(card)}</ul>}
      {more.next !== null && (
        <button type="button" className="btn" disabled={more.loading} onClick={() => load(more.next!)}>
          {more.loading ? 'Загрузка...' : 'Показать ещё'}
        </button>
      )}
    </>
  );
}
