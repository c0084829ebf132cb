import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { useTitle } from '../../providers/title.ts';
import { fetchPage, pageKey } from './api.ts';
import { Prose } from './Prose.tsx';

/** A whole screen of one page: its title as the heading, then its text (/rules, /p/{slug}). */
export function MarkdownPage({ slug, fallbackTitle }: { slug: string; fallbackTitle: string }) {
  const query = useQuery({ queryKey: pageKey(slug), queryFn: () => fetchPage(slug), retry: (n, e) => !(e instanceof ApiError && e.status === 404) && n < 2 });
  useTitle(query.data?.title ?? fallbackTitle);
  if (query.error instanceof ApiError && query.error.status === 404) {
    return (
      <div className="stack">
        <h1>Страница не найдена</h1>
        <p>
          Такой страницы нет или она ещё не заполнена. <Link to="/">На главную</Link>
        </p>
      </div>
    );
  }
  return (
    <QueryState query={query} error="Не удалось загрузить страницу" isEmpty={() => false}>
      {(page) => (
        <article className="stack" data-testid="markdown-page">
          <header className="page-head">
            <h1>{page.title}</h1>
          </header>
          <div className="card">
            <Prose html={page.html} />
          </div>
        </article>
      )}
    </QueryState>
  );
}
