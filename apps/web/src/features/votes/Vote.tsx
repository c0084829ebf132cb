import type { PlayerVoteSite, VoteTopResponse } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { QueryState } from '../../components/QueryState.tsx';
import { Empty } from '../../components/States.tsx';
import { formatDateTime, formatRub, plural } from '../../lib/format.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useTitle } from '../../providers/title.ts';
import { fetchVotes, fetchVoteTop, VOTES_KEY, voteTopKey } from './api.ts';

const MONTHS = ['январь', 'февраль', 'март', 'апрель', 'май', 'июнь', 'июль', 'август', 'сентябрь', 'октябрь', 'ноябрь', 'декабрь'];

/** «ноябрь 2026» for 2026-11. */
function monthName(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return `${MONTHS[m - 1]} ${y}`;
}

function previousMonth(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
}

/** «23 ч 5 мин» until `at`. */
function timeLeft(at: number, now: number): string {
  const minutes = Math.max(1, Math.ceil((at - now) / 60_000));
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h > 0 ? `${h} ч ${m} мин` : `${m} мин`;
}

/** /vote: the tops with their buttons, when each can be voted on again, the player's votes and the month's top voters. */
export default function VotePage() {
  useTitle('Голосование');
  const { user } = useAuth();
  const votes = useQuery({ queryKey: VOTES_KEY, queryFn: fetchVotes, refetchInterval: 60_000 });
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);

  return (
    <section className="stack" aria-labelledby="vote-heading">
      <header className="page-head">
        <h1 id="vote-heading">Голосование</h1>
        <p>Голосуйте за сервер в рейтингах — это приводит новых игроков, а вы получаете награду за каждый голос.</p>
      </header>
      <QueryState query={votes} error="Не удалось загрузить топы" isEmpty={() => false}>
        {(data) => (
          <>
            {user ? (
              <p data-testid="my-votes">
                Ваши голоса в этом месяце: <strong>{data.my_votes ?? 0}</strong>
              </p>
            ) : (
              <p className="muted">
                <Link to="/login">Войдите</Link>, чтобы видеть, когда можно проголосовать снова. Награда приходит на аккаунт с ником,
                который вы укажете на сайте топа.
              </p>
            )}
            {data.sites.length === 0 ? (
              <Empty>Топы для голосования пока не добавлены</Empty>
            ) : (
              <ul className="grid" style={{ listStyle: 'none', margin: 0, padding: 0 }} aria-label="Топы">
                {data.sites.map((s) => (
                  <VoteCard key={s.id} site={s} now={now} signedIn={!!user} />
                ))}
              </ul>
            )}
            {data.prizes.length > 0 && (
              <p>
                Призы месяца: {data.prizes.map((p, i) => `${i + 1}-е место — ${formatRub(p)}`).join(', ')}. Выдаются после окончания месяца.
              </p>
            )}
            <MonthTop month={data.month} />
          </>
        )}
      </QueryState>
    </section>
  );
}

function VoteCard({ site, now, signedIn }: { site: PlayerVoteSite; now: number; signedIn: boolean }) {
  const next = site.next_vote_at ? Date.parse(site.next_vote_at) : null;
  const waiting = next !== null && next > now;
  const reward = [site.reward_amount > 0 ? formatRub(site.reward_amount) : null, site.has_commands ? 'подарок в игре' : null]
    .filter(Boolean)
    .join(' и ');
  return (
    <li className="card stack" data-testid="vote-site" aria-labelledby={`vote-site-${site.id}`}>
      <h2 id={`vote-site-${site.id}`} style={{ margin: 0 }}>
        {site.title}
      </h2>
      {reward && <p>Награда: {reward}</p>}
      {signedIn &&
        (waiting ? (
          <p>
            <span className="badge badge-warning" data-testid="vote-cooldown" title={`С ${formatDateTime(next)}`}>
              Снова можно через {timeLeft(next, now)}
            </span>
          </p>
        ) : (
          <p>
            <span className="badge badge-success">Можно голосовать</span>
          </p>
        ))}
      <a
        className={`btn ${waiting ? 'btn-ghost' : 'btn-primary'}`}
        style={{ alignSelf: 'flex-start' }}
        href={site.url}
        target="_blank"
        rel="noopener noreferrer"
      >
        Голосовать
      </a>
    </li>
  );
}

function MonthTop({ month }: { month: string }) {
  const [shown, setShown] = useState(month);
  const top = useQuery({ queryKey: voteTopKey(shown), queryFn: () => fetchVoteTop(shown) });
  const options = [month, previousMonth(month)];
  return (
    <section className="card stack" aria-labelledby="vote-top-heading">
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <h2 id="vote-top-heading" style={{ margin: 0 }}>
          Лучшие голосующие
        </h2>
        <label>
          <span className="visually-hidden">Месяц</span>
          <select value={shown} onChange={(e) => setShown(e.target.value)}>
            {options.map((m) => (
              <option key={m} value={m}>
                {monthName(m)}
              </option>
            ))}
          </select>
        </label>
      </div>
      <QueryState
        query={top}
        error="Не удалось загрузить топ месяца"
        isEmpty={(d: VoteTopResponse) => d.top.length === 0}
        empty="В этом месяце голосов пока нет"
      >
        {(data) => (
          <div className="table-wrap">
            <table className="table" data-testid="vote-top">
              <thead>
                <tr>
                  <th scope="col">Место</th>
                  <th scope="col">Игрок</th>
                  <th scope="col">Голоса</th>
                  <th scope="col">Приз</th>
                </tr>
              </thead>
              <tbody>
                {data.top.map((r) => (
                  <tr key={r.place}>
                    <td>{r.place}</td>
                    <td>{r.username ?? <span className="muted">Игрок скрыл имя</span>}</td>
                    <td>
                      {r.votes} {plural(r.votes, ['голос', 'голоса', 'голосов'])}
                    </td>
                    <td>{r.prize ? formatRub(r.prize) : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryState>
      {top.data?.paid && <p className="muted">Призы за этот месяц выданы.</p>}
    </section>
  );
}
