import { AUDIT_ENTITY_LABELS, auditAction, auditSubject, type AuditEntry } from '@kubik/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { formatDateTime, plural } from '../../lib/format.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useTitle } from '../../providers/title.ts';
import { fetchAudit } from './api.ts';
import { changesOf } from './changes.ts';
import './audit.css';
import { FieldShell } from '../../components/form/FieldShell.tsx';
import { Pager } from '../../components/Pager.tsx';

export default function AdminAuditPage() {
  useTitle('Журнал изменений');
  const [page, setPage] = useState(1);
  const [entity, setEntity] = useState('');
  const filterId = useId();
  const log = useQuery({
    queryKey: [...AUDIT_KEY, page, entity],
    queryFn: () => fetchAudit(page, entity),
    placeholderData: keepPreviousData,
  });
  const pages = log.data ? Math.max(1, Math.ceil(log.data.total / log.data.per_page)) : 1;

  return (
    <AdminSection title="Журнал изменений">
      <p className="muted">Кто, когда и что изменил в админ-панели: новые записи сверху. Пароли не показываются.</p>
      <FieldShell id={filterId} label="Раздел" className="admin-filter">
        <select
          id={filterId}
          value={entity}
          onChange={(e) => {
            setEntity(e.target.value);
            setPage(1);
          }}
        >
          <option value="">Все разделы</option>
          {Object.entries(AUDIT_ENTITY_LABELS).map(([id, label]) => (
            <option key={id} value={id}>
              {label}
            </option>
          ))}
        </select>
      </FieldShell>

      <QueryState query={log} error="Не удалось загрузить журнал" empty="Записей пока нет" isEmpty={(d) => d.entries.length === 0}>
        {(data) => (
          <>
            <ol className="audit-list" aria-busy={log.isFetching}>
              {data.entries.map((e) => (
                <li key={e.id} className="audit-entry" data-testid="audit-entry">
                  <div className="audit-meta">
                    <strong>{auditAction(e.action, e.entity)}</strong>
                    <Subject entry={e} />
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
            <Pager page={page} pages={pages} onPage={setPage} label="Страницы журнала" />
          </>
        )}
      </QueryState>
    </AdminSection>
  );
}

function Subject({ entry: e }: { entry: AuditEntry }) {
  const subject = auditSubject(e.entity, e.entity_id, e.before, e.after);
  return subject ? <span className="muted">{subject}</span> : null;
}

/** «Баланс: 0 ₽ → 1 000 ₽», one line per changed field. */
function ChangeList({ entry }: { entry: AuditEntry }) {
  const list = changesOf(entry);
  if (list.length === 0) return null;
  const lines = (
    <ul className="audit-changes">
      {list.map((c) => (
        <li key={c.key}>
          <span className="audit-field">{c.label}:</span> {c.before !== null && <del className="audit-before">{c.before}</del>}
          {c.before !== null && c.after !== null && <span aria-label="стало"> → </span>}
          {c.after !== null && <ins className="audit-after">{c.after}</ins>}
        </li>
      ))}
    </ul>
  );
  // A whole record (a creation or a deletion) is folded; an edit of a few fields is shown as is.
  if (list.length <= 4) return lines;
  const what = entry.before === null ? 'Записано' : entry.after === null ? 'Было' : 'Изменено';
  const names = list.slice(0, 3).map((c) => c.label.toLowerCase());
  return (
    <details className="audit-details">
      <summary>
        {what}: {names.join(', ')} и ещё {list.length - 3} {plural(list.length - 3, ['поле', 'поля', 'полей'])} — показать
      </summary>
      {lines}
    </details>
  );
}
