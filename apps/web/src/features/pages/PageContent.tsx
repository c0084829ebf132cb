import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { fetchPage, pageKey } from './api.ts';
import { Prose } from './Prose.tsx';

/** One page's text; `children(title, body)` lays it out (the page's own heading, a card…). */
export function PageContent({ slug, children }: { slug: string; children?: (title: string, body: ReactNode) => ReactNode }) {
  const query = useQuery({
    queryKey: pageKey(slug),
    queryFn: () => fetchPage(slug),
    retry: (n, e) => !(e instanceof ApiError && e.status === 404) && n < 2,
  });
  if (query.error instanceof ApiError && query.error.status === 404)
    return children ? null : <p className="muted">Страница пока не заполнена.</p>;
  return (
    <QueryState query={query} error="Не удалось загрузить страницу" isEmpty={() => false}>
      {(page) => {
        const body = <Prose html={page.html} />;
        return children ? children(page.title, body) : body;
      }}
    </QueryState>
  );
}
