import { useQuery } from '@tanstack/react-query';
import { formatRub } from '../../lib/format.ts';
import { fetchGoal, GOAL_KEY } from './community-api.ts';
import './community.css';

/**
 * The community giving, on the home page and /donate: the month's goal with its progress, the
 * latest purchases and the month's top donors (amounts only when the owner shows them). One
 * cached request; nothing is shown while it is on its way or when there is nothing to show.
 */
export function CommunityGoal() {
  const goal = useQuery({ queryKey: GOAL_KEY, queryFn: fetchGoal, staleTime: 60_000 });
  const g = goal.data;
  if (!g || (g.goal === 0 && g.latest.length === 0 && g.top.length === 0)) return null;
  return (
    <section className="card stack community" aria-labelledby="community-h" data-testid="community-goal">
      <h2 id="community-h">Сервер поддерживают</h2>
      {g.goal > 0 && (
        <div className="goal stack">
          <div className="goal-text">
            Собрано {formatRub(g.collected)} из {formatRub(g.goal)} в этом месяце
          </div>
          <div
            className="goal-bar"
            role="progressbar"
            aria-label="Цель сборов на месяц"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={g.percent}
          >
            <span className="goal-fill" style={{ width: `${g.percent}%` }} />
          </div>
        </div>
      )}
      <div className="community-lists">
        {g.latest.length > 0 && (
          <div>
            <h3>Последние покупки</h3>
            <ul className="community-list">
              {g.latest.map((p) => (
                <li key={`${p.nickname}-${p.at}-${p.item}`}>
                  <strong>{p.nickname}</strong> — {p.item}
                  {p.amount !== null && <span className="muted"> · {formatRub(p.amount)}</span>}
                </li>
              ))}
            </ul>
          </div>
        )}
        {g.top.length > 0 && (
          <div>
            <h3>Лучшие за месяц</h3>
            <ol className="community-list">
              {g.top.map((p) => (
                <li key={p.nickname}>
                  <strong>{p.nickname}</strong>
                  {p.amount !== null && <span className="muted"> · {formatRub(p.amount)}</span>}
                </li>
              ))}
            </ol>
          </div>
        )}
      </div>
    </section>
  );
}
