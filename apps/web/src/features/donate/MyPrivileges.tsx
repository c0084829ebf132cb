import type { UserPrivilege, UserPrivilegeKit } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { Link } from 'wouter';
import { DeliveryStatusNote } from '../../components/DeliveryStatusNote.tsx';
import { Empty, Loading } from '../../components/States.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDate, formatDateTime } from '../../lib/format.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { claimKit, durationText, fetchMyPrivileges, MY_PRIVILEGES_KEY } from './privileges-api.ts';
import './donate.css';

/** The clock the countdowns follow, a tick a minute (and at once when a countdown runs out). */
function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

const isMoving = (s: UserPrivilege['delivery']) =>
  s !== null && (s.state === 'sending' || s.state === 'waiting_player' || s.state === 'server_down');
const moving = (p: UserPrivilege) => isMoving(p.delivery) || p.kits.some((k) => isMoving(k.delivery));

/** The profile's privileges: the running one with its end and its kits («Получить», a countdown), then the past ones. */
export function MyPrivileges() {
  const headingId = useId();
  const list = useQuery({
    queryKey: MY_PRIVILEGES_KEY,
    queryFn: fetchMyPrivileges,
    // While a grant or a kit is on its way into the game, its state is worth watching.
    refetchInterval: (q) => (q.state.data?.some(moving) ? 5000 : false),
  });
  const now = useNow();
  return (
    <section className="stack my-privileges" aria-labelledby={headingId}>
      <h2 id={headingId}>Привилегии</h2>
      {list.isPending ? (
        <Loading text="Загрузка привилегий..." />
      ) : list.isError ? (
        <Empty>
          <p>Не удалось загрузить привилегии.</p>
          <button type="button" className="btn btn-small" onClick={() => void list.refetch()}>
            Повторить
          </button>
        </Empty>
      ) : (
        <PrivilegeList list={list.data} now={now} />
      )}
    </section>
  );
}

function PrivilegeList({ list, now }: { list: UserPrivilege[]; now: number }) {
  const running = list.filter((p) => p.active && p.expires_at > now);
  const past = list.filter((p) => !running.includes(p)).slice(0, 5);
  return (
    <>
      {running.length === 0 ? (
        <p className="muted">
          Действующих привилегий нет. <Link to="/donate">Выбрать привилегию</Link>
        </p>
      ) : (
        running.map((p) => <RunningPrivilege key={p.id} privilege={p} now={now} />)
      )}
      {past.length > 0 && (
        <details className="past-privileges">
          <summary>Прошлые привилегии</summary>
          <ul>
            {past.map((p) => (
              <li key={p.id}>
                {p.title}: {formatDate(p.starts_at)} — {formatDate(p.ended_at ?? p.expires_at)}
              </li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}

function RunningPrivilege({ privilege, now }: { privilege: UserPrivilege; now: number }) {
  const failed = privilege.delivery?.state === 'failed';
  return (
    <article className={`privilege card${failed ? ' privilege-failed' : ''}`} data-testid={`privilege-${privilege.id}`}>
      <header className="privilege-head">
        <h3>{privilege.title}</h3>
        <p>
          {/* Paid for, but the game never confirmed it: never read as simply active. */}
          {failed ? 'Оплачена до ' : 'Действует до '}
          <strong data-testid="privilege-expires">{formatDateTime(privilege.expires_at)}</strong>
          <span className="muted"> · осталось {durationText(privilege.expires_at - now)}</span>
        </p>
        <Link to="/donate" className="btn btn-small">
          Продлить
        </Link>
      </header>
      <DeliveryStatusNote status={privilege.delivery} what="В игре" />
      {privilege.kits.length > 0 && (
        <ul className="my-kits" aria-label={`Наборы ${privilege.title}`}>
          {privilege.kits.map((kit) => (
            <KitRow key={kit.id} kit={kit} now={now} />
          ))}
        </ul>
      )}
    </article>
  );
}

function KitRow({ kit, now }: { kit: UserPrivilegeKit; now: number }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const [error, setError] = useState('');
  const claim = useMutation({
    mutationFn: () => claimKit(kit.id),
    onSuccess: (answer) => {
      setError('');
      notify('success', answer.message);
      void queryClient.invalidateQueries({ queryKey: MY_PRIVILEGES_KEY });
    },
    onError: (err) => {
      setError(err instanceof ApiError && err.message ? err.message : 'Не удалось получить набор');
      void queryClient.invalidateQueries({ queryKey: MY_PRIVILEGES_KEY });
    },
  });
  const waiting = kit.next_claim_at !== null && kit.next_claim_at > now;
  const errorId = useId();
  return (
    <li className="my-kit" data-testid={`kit-${kit.id}`}>
      {kit.kitImg && <img src={kit.kitImg} alt="" width={40} height={40} className="pixelated" loading="lazy" />}
      <div className="my-kit-body">
        <p className="my-kit-name">{kit.name}</p>
        {kit.description && <p className="muted preline">{kit.description}</p>}
        {kit.last_claimed_at !== null && kit.delivery && (
          <div className="my-kit-delivery">
            <span className="muted">Получен {formatDateTime(kit.last_claimed_at)}</span>
            <DeliveryStatusNote status={kit.delivery} />
          </div>
        )}
        {error && (
          <p className="field-error" id={errorId} role="alert">
            {error}
          </p>
        )}
      </div>
      {kit.in_game ? (
        // The site cannot give it: the way to get it, instead of a button that would only refuse.
        <p className="my-kit-in-game" data-testid="kit-in-game">
          Получается в игре{kit.command ? ':' : ''} {kit.command && <code>{kit.command}</code>}
        </p>
      ) : waiting ? (
        <p className="my-kit-wait" data-testid="kit-countdown">
          Через {durationText(kit.next_claim_at! - now)}
        </p>
      ) : (
        <button
          type="button"
          className="btn btn-primary btn-small"
          disabled={claim.isPending}
          aria-describedby={error ? errorId : undefined}
          onClick={() => claim.mutate()}
        >
          {claim.isPending ? 'Получаем…' : 'Получить'}
        </button>
      )}
    </li>
  );
}
