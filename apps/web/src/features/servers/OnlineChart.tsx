import type { ServerHistory } from '@kubik/contract';
import { useId } from 'react';
import { formatTime } from '../../lib/format.ts';

const W = 240;
const H = 56;
const PAD = 4;

/**
 * The last 24 hours of players online as a hand-drawn SVG: a line with a soft fill, broken where
 * the server did not answer. Each bucket carries a native tooltip; the whole has a text summary.
 */
export function OnlineChart({ history, label }: { history: ServerHistory; label: string }) {
  const gradient = useId();
  const { points, start, step_ms: step } = history;
  const known = points.filter((p): p is number => p !== null);
  const peak = Math.max(1, ...known);
  const dx = (W - PAD * 2) / Math.max(1, points.length - 1);
  const x = (i: number) => PAD + i * dx;
  const y = (v: number) => H - PAD - (v / peak) * (H - PAD * 2);

  // Runs of consecutive answered buckets, drawn as lines; gaps are times the server did not answer.
  const runs: { i: number; v: number }[][] = [];
  points.forEach((v, i) => {
    if (v === null) return;
    const last = runs.at(-1);
    if (last && last.at(-1)!.i === i - 1) last.push({ i, v });
    else runs.push([{ i, v }]);
  });

  const summary = known.length === 0 ? `${label}: нет данных за сутки` : `${label}: онлайн за сутки, пик ${Math.max(...known)}`;
  return (
    <figure className="srv-chart">
      <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={summary}>
        <defs>
          <linearGradient id={gradient} x1="0" x2="0" y1="0" y2="1">
            <stop offset="0%" stopColor="var(--accent)" stopOpacity="0.35" />
            <stop offset="100%" stopColor="var(--accent)" stopOpacity="0" />
          </linearGradient>
        </defs>
        <line x1={PAD} x2={W - PAD} y1={H - PAD} y2={H - PAD} className="srv-chart-axis" />
        {runs.map((run) =>
          run.length === 1 ? (
            // The SVG stretches to the card's width, so a lone point is a bar, not a circle that would turn oval.
            <line
              key={run[0]!.i}
              x1={x(run[0]!.i)}
              x2={x(run[0]!.i)}
              y1={H - PAD}
              y2={Math.min(y(run[0]!.v), H - PAD - 2)}
              className="srv-chart-bar"
            />
          ) : (
            <g key={run[0]!.i}>
              <path
                d={`M${x(run[0]!.i)},${H - PAD} ${run.map((p) => `L${x(p.i)},${y(p.v)}`).join(' ')} L${x(run.at(-1)!.i)},${H - PAD} Z`}
                fill={`url(#${gradient})`}
              />
              <polyline points={run.map((p) => `${x(p.i)},${y(p.v)}`).join(' ')} className="srv-chart-line" />
            </g>
          ),
        )}
        {points.map((v, i) => (
          <rect key={i} x={x(i) - dx / 2} y={0} width={dx} height={H} className="srv-chart-hit">
            <title>{`${formatTime(start + i * step)}–${formatTime(start + (i + 1) * step)}: ${v === null ? 'нет ответа' : `${v} в игре`}`}</title>
          </rect>
        ))}
      </svg>
      <figcaption className="srv-chart-caption">
        <span>24 ч назад</span>
        <span>{known.length > 0 ? `пик ${Math.max(...known)}` : 'нет данных'}</span>
        <span>сейчас</span>
      </figcaption>
    </figure>
  );
}
