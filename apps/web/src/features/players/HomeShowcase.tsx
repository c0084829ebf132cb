import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { formatDateTime } from '../../lib/format.ts';
import { fetchShowcase, playerPath, SHOWCASE_KEY } from './api.ts';
import './players.css';

const HIDDEN_NAME = 'Игрок скрыл имя';

function Player({ name }: { name: string | null }) {
  if (!name) return <span className="pl-hidden">{HIDDEN_NAME}</span>;
  return (
    <Link to={playerPath(name)} className="pl-name">
      <img src={`/api/user/${encodeURIComponent(name)}/head?size=24`} alt="" width={24} height={24} loading="lazy" />
      <span>{name}</span>
    </Link>
  );
}

/**
 * The home page's living part: the latest purchases and this month's top by place. Each shows
 * only when the owner left it on and there is something to show.
 */
export default function HomeShowcase() {
  const q = useQuery({ queryKey: SHOWCASE_KEY, queryFn: fetchShowcase, refetchInterval: 60_000 });
  const recent = q.data?.recent_purchases;
  const top = q.data?.top_donors;
  if (!recent?.length && !top?.length) return null;
  return (
    <div className="pl-showcase">
      {recent && recent.length > 0 && (
        <section className="pl-widget" aria-labelledby="pl-recent-h">
          <h2 id="pl-recent-h">Последние покупки</h2>
          <ul className="pl-list" data-testid="recent-purchases">
            {recent.map((r, i) => (
              <li key={`${r.at}-${i}`}>
                <Player name={r.player} />
                <span className="pl-item">{r.item}</span>
                <time className="pl-when" dateTime={new Date(r.at).toISOString()}>
                  {formatDateTime(r.at)}
                </time>
              </li>
            ))}
          </ul>
          <Link to="/shop" className="pl-more">
            В магазин
          </Link>
        </section>
      )}
      {top && top.length > 0 && (
        <section className="pl-widget" aria-labelledby="pl-top-h">
          <h2 id="pl-top-h">Лучшие игроки месяца</h2>
          <ol className="pl-list pl-top" data-testid="top-donors">
            {top.map((r) => (
              <li key={r.place}>
                <span className="pl-place" aria-label={`${r.place}-е место`}>
                  {r.place}
                </span>
                <Player name={r.player} />
              </li>
            ))}
          </ol>
          <Link to="/donate" className="pl-more">
            Поддержать сервер
          </Link>
        </section>
      )}
    </div>
  );
}
