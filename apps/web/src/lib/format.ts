const money = new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 2 });
const dateLong = new Intl.DateTimeFormat('ru-RU', { day: 'numeric', month: 'long', year: 'numeric' });
const dateTime = new Intl.DateTimeFormat('ru-RU', { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' });
const plurals = new Intl.PluralRules('ru-RU');

/** `1 250 ₽` with a non-breaking space before the sign. */
export function formatRub(amount: number): string {
  return `${money.format(amount)}\u00a0₽`;
}

/** `21 ноября 2026` */
export function formatDate(value: string | number | Date): string {
  return dateLong.format(new Date(value)).replace(/\s*г\.$/, '');
}

/** `21.11.2026, 14:05` */
export function formatDateTime(value: string | number | Date): string {
  return dateTime.format(new Date(value));
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
