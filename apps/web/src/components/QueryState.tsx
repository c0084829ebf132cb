import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiError } from '../lib/api.ts';
import { Empty, Loading } from './States.tsx';

interface QueryStateProps<T> {
  query: UseQueryResult<T>;
  /** While the first answer is on its way. */
  loading?: string;
  /** When there is nothing to show because the read failed, e.g. 'Не удалось загрузить новости'. */
  error: string;
  /** When the answer holds nothing; an array is empty when it has no items. */
  empty?: ReactNode;
  isEmpty?: (data: T) => boolean;
  children: (data: T) => ReactNode;
}

/**
 * The loading → error → empty → content ladder of one query, in Russian: a loading line, an
 * error with the server's reason and «Повторить», the empty text, or the content. When a
 * refresh fails while earlier data is shown, the data stays with a note above it.
 */
export function QueryState<T>({
  query,
  loading,
  error,
  empty,
  isEmpty = (d) => Array.isArray(d) && d.length === 0,
  children,
}: QueryStateProps<T>) {
  if (query.isPending) return <Loading text={loading} />;
  const retry = (
    <button type="button" className="btn btn-small" onClick={() => void query.refetch()} disabled={query.isFetching}>
      {query.isFetching ? 'Загрузка...' : 'Повторить'}
    </button>
  );
  const reason = query.error instanceof ApiError && query.error.message ? query.error.message : null;
  if (query.isError && query.data === undefined) {
    return (
      <div className="empty state-error" role="alert">
        <p className="state-title">{error}</p>
        {reason && <p className="muted">{reason}</p>}
        {retry}
      </div>
    );
  }
  const data = query.data as T;
  return (
    <>
      {query.isError && (
        <p className="notice notice-warning row state-stale" role="status">
          <span>Не удалось обновить данные, показаны прежние.</span>
          {retry}
        </p>
      )}
      {empty !== undefined && isEmpty(data) ? <Empty>{empty}</Empty> : children(data)}
    </>
  );
}
