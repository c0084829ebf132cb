import type { BalanceEvent, Notice, NoticeKind, NoticesReadBody, NoticesResponse, NotificationEvent, ReadEvent } from '@kubik/contract';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { useDismiss } from '../../components/useDismiss.ts';
import { formatDateTime, plural } from '../../lib/format.ts';
import { SUPPORT_KEY } from '../../lib/query-keys.ts';
import { useAuth } from '../../providers/auth.tsx';
import { fetchNotices, markNoticesRead, NOTICES_KEY } from './api.ts';

const ICONS: Record<NoticeKind, string> = {
  topup: '💰',
  balance: '💰',
  delivery_done: '🎁',
  delivery_failed: '⚠️',
  privilege_ending: '⏳',
  privilege_ended: '⌛',
  gift: '🎁',
  ban: '⛔',
  unban: '✅',
  message: '📢',
  vote_reward: '🗳️',
  referral_reward: '🤝',
  subscription: '🔁',
  support: '💬',
};

/** After the stream was refused (session over, too many tabs) it is tried again this much later. */
const RETRY_CLOSED_MS = 30_000;

function setUnread(qc: QueryClient, unread: number): void {
  qc.setQueryData<NoticesResponse>(NOTICES_KEY, (d) => (d ? { ...d, unread } : d));
}

/**
 * The live stream (GET /api/user/events): the header's balance and the bell learn of changes
 * without a reload. EventSource reconnects by itself after a dropped connection; a refused one
 * (401, 429) closes it, so the session is re-checked and it is opened again later.
 */
function useLiveEvents(): boolean {
  const [live, setLive] = useState(false);
  const qc = useQueryClient();
  const { setBalance, refresh } = useAuth();
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const open = () => {
      source = new EventSource('/api/user/events');
      source.addEventListener('open', () => {
        setLive(true);
        void qc.invalidateQueries({ queryKey: NOTICES_KEY });
      });
      source.addEventListener('balance', (e) => setBalance((JSON.parse((e as MessageEvent<string>).data) as BalanceEvent).balance));
      source.addEventListener('notification', (e) => {
        const { notice, unread } = JSON.parse((e as MessageEvent<string>).data) as NotificationEvent;
        // An open ticket's page shows the answer without a reload.
        if (notice.kind === 'support') void qc.invalidateQueries({ queryKey: SUPPORT_KEY });
        qc.setQueryData<NoticesResponse>(NOTICES_KEY, (d) =>
          d && !d.items.some((n) => n.id === notice.id)
            ? { ...d, unread, total: d.total + 1, items: [notice, ...d.items].slice(0, 20) }
            : d && { ...d, unread },
        );
      });
      source.addEventListener('read', (e) => {
        setUnread(qc, (JSON.parse((e as MessageEvent<string>).data) as ReadEvent).unread);
        void qc.invalidateQueries({ queryKey: NOTICES_KEY });
      });
      source.addEventListener('error', () => {
        setLive(false);
        if (source?.readyState !== EventSource.CLOSED || stopped) return;
        refresh();
        retry = setTimeout(open, RETRY_CLOSED_MS);
      });
    };
    open();
    return () => {
      stopped = true;
      clearTimeout(retry);
      source?.close();
    };
  }, [qc, setBalance, refresh]);
  return live;
}

function NoticeItem({ notice, onOpen }: { notice: Notice; onOpen: (n: Notice) => void }) {
  const content = (
    <>
      <span className="notice-icon" aria-hidden="true">
        {ICONS[notice.kind] ?? '📢'}
      </span>
      <span className="notice-text">
        <span className="notice-title">{notice.title}</span>
        {notice.body && <span className="notice-body">{notice.body}</span>}
        <time className="notice-time" dateTime={new Date(notice.created_at).toISOString()}>
          {formatDateTime(notice.created_at)}
        </time>
      </span>
    </>
  );
  const cls = `notice-item${notice.read_at === null ? ' unread' : ''}`;
  return (
    <li>
      {notice.link ? (
        <Link to={notice.link} className={cls} onClick={() => onOpen(notice)}>
          {content}
        </Link>
      ) : (
        <button type="button" className={cls} onClick={() => onOpen(notice)}>
          {content}
        </button>
      )}
    </li>
  );
}

/** The header's bell: the unread count, and the latest notices in a panel (Esc or a click outside closes it). */
export default function Bell() {
  const live = useLiveEvents();
  const qc = useQueryClient();
  const notices = useQuery({ queryKey: NOTICES_KEY, queryFn: fetchNotices, staleTime: 60_000 });
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  const [pathname] = useLocation();
  useEffect(() => setOpen(false), [pathname]);
  const close = useCallback(() => {
    setOpen(false);
    button.current?.focus();
  }, []);
  useDismiss(box, open, close);
  // A plain call, not useMutation: that would add a shared chunk to the first page's preload list.
  const [marking, setMarking] = useState(false);
  const read = (body: NoticesReadBody) => {
    setMarking(true);
    markNoticesRead(body)
      .then((r) => setUnread(qc, r.unread))
      .catch(() => {})
      .finally(() => {
        setMarking(false);
        void qc.invalidateQueries({ queryKey: NOTICES_KEY });
      });
  };

  const unread = notices.data?.unread ?? 0;
  const items = notices.data?.items ?? [];
  const label =
    unread > 0 ? `Уведомления: ${unread} ${plural(unread, ['непрочитанное', 'непрочитанных', 'непрочитанных'])}` : 'Уведомления';
  const openNotice = (n: Notice) => {
    if (n.read_at === null) read({ ids: [n.id] });
    if (n.link) setOpen(false);
  };

  return (
    <div className="bell" ref={box}>
      <button
        ref={button}
        type="button"
        className="icon-button bell-button"
        aria-label={label}
        aria-expanded={open}
        aria-controls={panelId}
        data-testid="bell"
        data-live={live ? 'on' : 'off'}
        onClick={() => setOpen((v) => !v)}
      >
        <span aria-hidden="true">🔔</span>
        {unread > 0 && (
          <span className="bell-count" data-testid="bell-count" aria-hidden="true">
            {unread > 99 ? '99+' : unread}
          </span>
        )}
      </button>
      {open && (
        <div className="menu bell-panel" id={panelId} role="region" aria-label="Уведомления">
          <div className="bell-head">
            <strong>Уведомления</strong>
            {unread > 0 && (
              <button type="button" className="btn btn-small" disabled={marking} onClick={() => read({ all: true })}>
                Прочитать все
              </button>
            )}
          </div>
          {notices.isPending ? (
            <p className="bell-empty">Загрузка…</p>
          ) : notices.isError ? (
            <p className="bell-empty">Не удалось загрузить уведомления</p>
          ) : items.length === 0 ? (
            <p className="bell-empty">Пока ничего нового</p>
          ) : (
            <ul className="bell-list" data-testid="bell-list">
              {items.map((n) => (
                <NoticeItem key={n.id} notice={n} onOpen={openNotice} />
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
