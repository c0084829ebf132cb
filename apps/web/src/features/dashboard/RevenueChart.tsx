import type { DashboardDay } from '@kubik/contract';
import { useId } from 'react';
import { formatRub } from '../../lib/format.ts';

const MONTHS = ['января', 'февраля', 'марта', 'апреля', 'мая', 'июня', 'июля', 'августа', 'сентября', 'октября', 'ноября', 'декабря'];

/** `23 ноября` from YYYY-MM-DD (a calendar day of the site's zone, not an instant). */
export function dayLabel(date: string): string {
  const [, m, d] = date.split('-').map(Number) as [number, number, number];
  return `${d} ${MONTHS[m - 1]}`;
}

/** A round top for the scale: 1, 2 or 5 times a power of ten, at least the largest value. */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].map((k) => k * power).find((v) => v >= value) ?? 10 * power) as number;
}

interface Series {
  key: 'topups' | 'purchases' | 'registrations';
  label: string;
  className: string;
  format: (n: number) => string;
}

const W = 300;
const H = 100;

/**
 * Bars per day, drawn as a small SVG (no chart library: 30 days of two series is a few rects).
 * The SVG stretches to the width; the scale and the dates are HTML, so they stay readable on a
 * phone. Each day has a tooltip, the whole figure a summary for screen readers, and the numbers
 * are also a table under «Показать таблицей».
 */
export function DayBars({
  days,
  series,
  title,
  summary,
  empty,
}: {
  days: DashboardDay[];
  series: Series[];
  title: string;
  summary: string;
  empty: string;
}) {
  const id = useId();
  const highest = Math.max(0, ...days.flatMap((d) => series.map((s) => d[s.key])));
  const top = niceMax(highest);
  const slot = W / Math.max(1, days.length);
  const bar = (slot * 0.8) / series.length;
  const middle = days[Math.floor((days.length - 1) / 2)];
  return (
    <figure className="dash-chart" aria-labelledby={`${id}-t`}>
      <figcaption id={`${id}-t`} className="dash-chart-title">
        {title}
      </figcaption>
      <div className="dash-legend" aria-hidden="true">
        {series.map((s) => (
          <span key={s.key} className="dash-legend-item">
            <span className={`dash-swatch ${s.className}`} />
            {s.label}
          </span>
        ))}
      </div>
      <div className="dash-plot">
        {highest === 0 && <p className="dash-empty">{empty}</p>}
        <span className="dash-scale" aria-hidden="true">
          {series[0]!.format(top)}
        </span>
        <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={summary} data-testid="dashboard-chart">
          {[0.25, 0.5, 0.75].map((f) => (
            <line key={f} x1="0" x2={W} y1={H * f} y2={H * f} className="dash-grid" vectorEffect="non-scaling-stroke" />
          ))}
          {days.map((d, i) => (
            <g key={d.date}>
              <title>{`${dayLabel(d.date)}: ${series.map((s) => `${s.label.toLowerCase()} ${s.format(d[s.key])}`).join(', ')}`}</title>
              {/* The whole day's column takes the pointer, so thin bars are easy to hover. */}
              <rect x={i * slot} y="0" width={slot} height={H} className="dash-hit" />
              {series.map((s, k) => {
                const h = (d[s.key] / top) * H;
                return (
                  <rect
                    key={s.key}
                    className={`dash-bar ${s.className}`}
                    x={i * slot + slot * 0.1 + k * bar}
                    y={H - h}
                    width={bar}
                    height={h}
                  />
                );
              })}
            </g>
          ))}
          <line x1="0" x2={W} y1={H} y2={H} className="dash-axis" vectorEffect="non-scaling-stroke" />
        </svg>
        <div className="dash-dates" aria-hidden="true">
          <span>{days[0] && dayLabel(days[0].date)}</span>
          <span>{middle && dayLabel(middle.date)}</span>
          <span>{days.at(-1) && 'сегодня'}</span>
        </div>
      </div>
      <details className="dash-table">
        <summary>Показать таблицей</summary>
        <div className="data-table-wrap">
          <table className="dash-days">
            <caption className="visually-hidden">{title} по дням</caption>
            <thead>
              <tr>
                <th scope="col">День</th>
                {series.map((s) => (
                  <th key={s.key} scope="col">
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {[...days].reverse().map((d) => (
                <tr key={d.date}>
                  <th scope="row">{dayLabel(d.date)}</th>
                  {series.map((s) => (
                    <td key={s.key}>{s.format(d[s.key])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

export const MONEY_SERIES: Series[] = [
  { key: 'topups', label: 'Пополнения', className: 'is-topups', format: formatRub },
  { key: 'purchases', label: 'Покупки', className: 'is-purchases', format: formatRub },
];
export const REGISTRATION_SERIES: Series[] = [
  { key: 'registrations', label: 'Регистрации', className: 'is-registrations', format: (n) => String(n) },
];
