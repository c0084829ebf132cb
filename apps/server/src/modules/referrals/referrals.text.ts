/** «1 250 ₽», «35,50 ₽» for a ledger note. */
export function formatRoubles(kopecks: number): string {
  const whole = Math.trunc(kopecks / 100);
  const rest = Math.abs(kopecks % 100);
  const grouped = String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, '\u00a0');
  return `${grouped}${rest ? `,${String(rest).padStart(2, '0')}` : ''}\u00a0₽`;
}

const dateFormat = new Intl.DateTimeFormat('ru-RU', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'Europe/Moscow' });

/** «20 декабря 2026 г.» (Moscow time), for a notice about a held reward. */
export function formatDay(epochMs: number): string {
  return dateFormat.format(new Date(epochMs));
}
