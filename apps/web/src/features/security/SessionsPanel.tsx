import { useConfirm } from '../../components/useConfirm.tsx';
import type { SessionInfo } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { endOtherSessions, endSession, fetchSessions, SESSIONS_KEY, scrollToHash } from './api.ts';
import './security.css';

const failText = (err: unknown, fallback: string) => (err instanceof ApiError && err.message ? err.message : fallback);

/** Profile → Настройки: every open login with its device, address and times; «Завершить» one or all others. */
export function SessionsPanel() {
  const notify = useNotify();
  const { confirm, dialog } = useConfirm();
  const queryClient = useQueryClient();
  const { logout } = useAuth();
  const sessions = useQuery({ queryKey: SESSIONS_KEY, queryFn: fetchSessions });
  const loaded = sessions.isSuccess;
  useEffect(() => {
    if (loaded) scrollToHash('sessions');
  }, [loaded]);
  const end = useMutation({
    mutationFn: (s: SessionInfo) => endSession(s.id),
    onSuccess: async (res) => {
      if (res.current) return void logout();
      notify('success', res.message);
      await queryClient.invalidateQueries({ queryKey: SESSIONS_KEY });
    },
    onError: (err) => notify('danger', failText(err, 'Не удалось завершить сеанс')),
  });
  const endAll = useMutation({
    mutationFn: endOtherSessions,
    onSuccess: async (res) => {
      notify('success', res.message);
      await queryClient.invalidateQueries({ queryKey: SESSIONS_KEY });
    },
    onError: (err) => notify('danger', failText(err, 'Не удалось завершить сеансы')),
  });

  return (
    <section className="stack security-section" id="sessions" aria-labelledby="sessions-title">
      {dialog}
      <h2 id="sessions-title">Сеансы и устройства</h2>
      <p className="muted">
        Где сейчас открыт вход в ваш аккаунт. Если видите незнакомое устройство, завершите его сеанс и смените пароль.
      </p>
      <QueryState
        query={sessions}
        error="Не удалось загрузить сеансы"
        empty="Открытых сеансов нет"
        isEmpty={(d) => d.sessions.length === 0}
      >
        {(data) => (
          <ul className="session-list">
            {data.sessions.map((s) => (
              <li key={s.id} className="session-item" data-testid="session">
                <div className="session-facts">
                  <strong>{s.device}</strong>
                  {s.current && <span className="badge badge-success">Это устройство</span>}
                  <span className="muted">IP: {s.ip ?? 'неизвестен'}</span>
                  <span className="muted">
                    Вход: {formatDateTime(s.created_at)} · Активность: {formatDateTime(s.last_seen_at)}
                  </span>
                </div>
                <button
                  type="button"
                  className="btn btn-small"
                  disabled={end.isPending}
                  onClick={async () => {
                    if (
                      !s.current ||
                      (await confirm('Это текущий сеанс: вы выйдете из аккаунта на этом устройстве. Продолжить?', {
                        confirmLabel: 'Выйти',
                      }))
                    )
                      end.mutate(s);
                  }}
                >
                  Завершить
                </button>
              </li>
            ))}
          </ul>
        )}
      </QueryState>
      <div>
        <button
          type="button"
          className="btn btn-danger"
          disabled={endAll.isPending}
          onClick={async () => {
            if (
              await confirm('Завершить все сеансы, кроме этого, и выйти из всех лаунчеров? На этом устройстве вход сохранится.', {
                confirmLabel: 'Выйти на всех устройствах',
                danger: true,
              })
            )
              endAll.mutate();
          }}
        >
          Выйти на всех устройствах
        </button>
        <p className="hint">Этот сеанс останется открытым; все другие браузеры и лаунчеры выйдут из аккаунта.</p>
      </div>
    </section>
  );
}
