import type { AuditEntry } from '@kubik/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Empty, Loading } from '../../components/States.tsx';
import { formatDateTime } from '../../lib/format.ts';
import { useTitle } from '../../providers/title.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { fetchAudit } from './api.ts';
import './audit.css';

const SECTIONS: { id: string; label: string }[] = [
  { id: '', label: 'Все разделы' },
  { id: 'user', label: 'Пользователи' },
  { id: 'news', label: 'Новости' },
  { id: 'donate', label: 'Донат' },
  { id: 'shop', label: 'Магазин' },
  { id: 'server', label: 'Серверы' },
];

// [name, feminine?] so the verb agrees: «Новость удалена», «Донат удалён».
const ENTITY: Record<string, [string, boolean]> = { user: ['Пользователь', false], news: ['Новость', true], donate: ['Донат', false], shop: ['Товар', false], server: ['Сервер', false] };
const VERB: Record<string, [string, string]> = { create: ['добавлен', 'добавлена'], update: ['изменён', 'изменена'], delete: ['удалён', 'удалена'] };

function describe(e: AuditEntry): string {
  const verb = VERB[e.action.split('.').pop() ?? ''];
  const what = ENTITY[e.entity];
  return what && verb ? `${what[0]} ${verb[what[1] ? 1 : 0]}` : e.action;
}

function show(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? 'да' : 'нет';
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (Array.isArray(value)) return `${value.length} шт.: ${JSON.stringify(value)}`;
  return JSON.stringify(value);
}

const asRecord = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** Only the fields that differ, so an edit of one field reads as one line. */
function changes(e: AuditEntry): { key: string; before: string; after: string }[] {
  const before = asRecord(e.before);
  const after = asRecord(e.after);
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .map((k) => ({ key: k, before: k in before ? show(before[k]) : '—', after: k in after ? show(after[k]) : '—' }));
}

export default function AdminAuditPage() {
  useTitle('Журнал изменений');
  const [page, setPage] = useState(1);
  const [entity, setEntity] = useState('');
  const filterId = useId();
  const log = useQuery({ queryKey: [...AUDIT_KEY, page, entity], queryFn: () => fetchAudit(page, entity), placeholderData: keepPreviousData });
  const pages = log.data ? Math.max(1, Math.ceil(log.data.total / log.data.per_page)) : 1;

  return (
    <section className="stack" aria-labelledby="audit-heading">
      <h2 id="audit-heading">Журнал изменений</h2>
      <p className="muted">Кто, когда и что изменил в админ-панели: новые записи сверху. Пароли не показываются.</p>
      <div className="field audit-filter">
        <label htmlFor={filterId}>Раздел</label>
        <select
          id={filterId}
          value={entity}
          onChange={(e) => {
            setEntity(e.target.value);
            setPage(1);
          }}
        >
          {SECTIONS.map((s) => (
            <option key={s.id} value={s.id}>
              {s.label}
            </option>
          ))}
        </select>
      </div>

      {log.isPending ? (
        <Loading />
      ) : log.isError ? (
        <Empty>Не удалось загрузить журнал. Обновите страницу.</Empty>
      ) : log.data.entries.length === 0 ? (
        <Empty>Записей пока нет</Empty>
      ) : (
        <>
          <ol className="audit-list" aria-busy={log.isFetching}>
            {log.data.entries.map((e) => (
              <li key={e.id} className="audit-entry" data-testid="audit-entry">
                <div className="audit-meta">
                  <strong>{describe(e)}</strong>
                  {e.entity_id && <span className="muted">#{e.entity_id}</span>}
                  <span className="muted">·</span>
                  <span>{e.actor_username ?? 'система'}</span>
                  <time className="muted" dateTime={e.created_at}>
                    {formatDateTime(e.created_at)}
                  </time>
                </div>
                <ChangeList entry={e} />
              </li>
            ))}
          </ol>
          <nav className="row audit-pages" aria-label="Страницы журнала">
            <button type="button" className="btn btn-small" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
              ← Новее
            </button>
            <span aria-live="polite">
              Страница {page} из {pages}
            </span>
            <button type="button" className="btn btn-small" disabled={page >= pages} onClick={() => setPage((p) => p + 1)}>
              Старше →
            </button>
          </nav>
        </>
      )}
    </section>
  );
}

function ChangeList({ entry }: { entry: AuditEntry }) {
  const list = changes(entry);
  if (list.length === 0) return null;
  const fields = (
    <dl className="audit-changes">
      {list.map((c) => (
        <div key={c.key} className="audit-change">
          <dt>{c.key}</dt>
          <dd>
            {entry.before !== null && <span className="audit-before">{c.before}</span>}
            {entry.before !== null && entry.after !== null && <span aria-label="стало"> → </span>}
            {entry.after !== null && <span className="audit-after">{c.after}</span>}
          </dd>
        </div>
      ))}
    </dl>
  );
  // A whole record (a creation or a deletion) is folded; an edit of a few fields is shown as is.
  if (list.length <= 4) return fields;
  return (
    <details className="audit-details">
      <summary>Поля записи: {list.length}</summary>
      {fields}
    </details>
  );
}
