/** «1 250 ₽», «35,50 ₽» for a ledger note. */
export function formatRoubles(kopecks: number): string {
  const whole = Math.trunc(kopecks / 100);
  const rest = Math.abs(kopecks % 100);
  const grouped = String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, '\u00a0');
  return `${grouped}${rest ? `,${String(rest).padStart(2, '0')}` : ''}\u00a0₽`;
}
