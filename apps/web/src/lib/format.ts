/*
 * Russian formats, written out by hand for what the screens show: the first Intl.NumberFormat or
 * Intl.DateTimeFormat of a page loads the locale's data, 40–90 ms of blocked main thread on a
 * slow machine (four times that on a phone), for output that is a few lines of code. The results
 * are exactly those of Intl for 'ru-RU'; Intl is still used for anything out of the ordinary.
 * (Intl.PluralRules is cheap and stays.)
 */

const NBSP = '\u00a0';
const MONTHS = ['января', 'февраля', 'марта', 'апреля', 'мая', 'июня', 'июля', 'августа', 'сентября', 'октября', 'ноября', 'декабря'];
const plurals = new Intl.PluralRules('ru-RU');
let intlNumber: Intl.NumberFormat | undefined;

const two = (n: number) => String(n).padStart(2, '0');

/**
 * `1 250`, `35,50` (Intl.NumberFormat('ru-RU') with two fraction digits when there are kopecks):
 * no-break spaces between thousands.
 */
export function formatNumber(amount: number): string {
  const cents = Math.abs(amount) * 100;
  const whole = Math.round(cents);
  // Money comes in kopecks, so this is every amount the app shows; anything else goes to Intl.
  if (!(Math.abs(whole - cents) <= 1e-6) || whole > Number.MAX_SAFE_INTEGER || Object.is(amount, -0)) {
    intlNumber ??= new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 2 });
    return intlNumber.format(amount);
  }
  const units = String(Math.floor(whole / 100)).replace(/\B(?=(\d{3})+$)/g, NBSP);
  const fraction = whole % 100 === 0 ? '' : `,${two(whole % 100)}`;
  return `${amount < 0 && whole !== 0 ? '-' : ''}${units}${fraction}`;
}

/** `1 250 ₽`, `35,50 ₽`, with a non-breaking space before the sign. */
export function formatRub(amount: number): string {
  return `${formatNumber(amount)}${NBSP}₽`;
}

/** `21 ноября 2026` */
export function formatDate(value: string | number | Date): string {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return 'Invalid Date';
  return `${d.getDate()} ${MONTHS[d.getMonth()]} ${d.getFullYear()}`;
}

/** `21.11.2026, 14:05` */
export function formatDateTime(value: string | number | Date): string {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return 'Invalid Date';
  return `${two(d.getDate())}.${two(d.getMonth() + 1)}.${d.getFullYear()}, ${formatTime(d)}`;
}

/** `14:05` */
export function formatTime(value: string | number | Date): string {
  const d = new Date(value);
  return `${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** plural(5, ['день', 'дня', 'дней']) → 'дней' */
export function plural(n: number, [one, few, many]: readonly [string, string, string]): string {
  switch (plurals.select(n)) {
    case 'one':
      return one;
    case 'few':
      return few;
    default:
      return many;
  }
}
