import { PageSlug } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { useTitle } from '../../providers/title.ts';
import { fetchPage, pageKey } from './api.ts';
import { Prose } from './Prose.tsx';

/** A whole screen of one page: its title as the heading, then its text (/rules, /p/{slug}). */
export function MarkdownPage({ slug, fallbackTitle }: { slug: string; fallbackTitle: string }) {
  // An address no page can have (/p/Правила, /p/vip_rules) is simply not found: nothing is asked,
  // and the visitor does not see the admin's rule for page addresses as an error.
  const possible = PageSlug.safeParse(slug).success;
  const query = useQuery({
    queryKey: pageKey(slug),
    queryFn: () => fetchPage(slug),
    enabled: possible,
    retry: (n, e) => !(e instanceof ApiError && e.status < 500) && n < 2,
  });
  useTitle(possible ? (query.data?.title ?? fallbackTitle) : 'Страница не найдена');
  if (!possible || (query.error instanceof ApiError && (query.error.status === 404 || query.error.status === 400))) {
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
