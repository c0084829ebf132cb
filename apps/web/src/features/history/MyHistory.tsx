import type { UserHistoryEntry } from '@kubik/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { DeliveryStatusNote } from '../../components/DeliveryStatusNote.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { formatDateTime, formatRub } from '../../lib/format.ts';
import { fetchHistory, historyKey } from './api.ts';
import './history.css';
import { FieldShell } from '../../components/form/FieldShell.tsx';
import { Pager } from '../../components/Pager.tsx';

const moving = (e: UserHistoryEntry) =>
  e.delivery !== null && (e.delivery.state === 'sending' || e.delivery.state === 'waiting_player' || e.delivery.state === 'server_down');

/**
 * Профиль → История: every balance movement once (top-ups and their bonus, purchases, privileges,
 * refunds, an administrator's changes with the comment, rewards), newest first, 20 a page, with
 * what it bought and how it got into the game.
 */
export function MyHistory() {
  const headingId = useId();
  const kindId = useId();
  const [page, setPage] = useState(1);
  const [kind, setKind] = useState('');
  const history = useQuery({
    queryKey: historyKey(page, kind),
    queryFn: () => fetchHistory(page, kind),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.entries.some(moving) ? 5000 : false),
  });
  const kinds = history.data?.kinds ?? [];
  return (
    <section className="stack my-history" aria-labelledby={headingId}>
      <div className="my-history-head">
        <h2 id={headingId}>История</h2>
        {kinds.length > 1 && (
          <FieldShell id={kindId} label="Что показать" className="my-history-filter">
            <select
              id={kindId}
              value={kind}
              onChange={(e) => {
                setKind(e.target.value);
                setPage(1);
              }}
            >
              <option value="">Всё</option>
              {kinds.map((k) => (
                <option key={k.kind} value={k.kind}>
                  {k.label}
                </option>
              ))}
            </select>
          </FieldShell>
        )}
      </div>
      <QueryState
        query={history}
        loading="Загрузка истории..."
        error="Не удалось загрузить историю"
        empty="Движений по балансу пока не было"
        isEmpty={(d) => d.entries.length === 0}
      >
        {(data) => (
          <>
            <ul className="history-list" aria-live="polite">
              {data.entries.map((e) => (
                <HistoryItem key={e.id} entry={e} />
              ))}
            </ul>
            <Pager page={data.page} pages={data.pages} onPage={setPage} label="Страницы истории" />
          </>
        )}
      </QueryState>
    </section>
  );
}

function HistoryItem({ entry: e }: { entry: UserHistoryEntry }) {
  const what = e.title ?? e.note;
  return (
    <li className="history-item" data-testid={`history-${e.id}`} data-kind={e.kind}>
      <div className="history-main">
        <p className="history-label">{e.label}</p>
        {what && <p className="history-what">{what}</p>}
        {e.author && <p className="muted history-author">Администратор {e.author}</p>}
        <p className="muted history-date">
          <time dateTime={new Date(e.created_at).toISOString()}>{formatDateTime(e.created_at)}</time>
        </p>
      </div>
      <div className="history-side">
        <p className={`history-amount ${e.amount < 0 ? 'history-debit' : 'history-credit'}`}>
          {e.amount > 0 ? '+' : e.amount < 0 ? '−' : ''}
          {formatRub(Math.abs(e.amount))}
        </p>
        <DeliveryStatusNote status={e.delivery} />
      </div>
    </li>
  );
}
