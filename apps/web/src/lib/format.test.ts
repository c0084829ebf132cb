import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatNumber, formatRub, formatTime, plural } from './format.ts';

const NBSP = '\u00a0';

describe('money', () => {
  it('writes roubles with no-break spaces between thousands and before ₽, kopecks after a comma', () => {
    expect(formatRub(1250)).toBe(`1${NBSP}250${NBSP}₽`);
    expect(formatRub(35.5)).toBe(`35,50${NBSP}₽`);
    expect(formatRub(0)).toBe(`0${NBSP}₽`);
    expect(formatRub(0.05)).toBe(`0,05${NBSP}₽`);
    expect(formatRub(999)).toBe(`999${NBSP}₽`);
    expect(formatRub(1_000_000)).toBe(`1${NBSP}000${NBSP}000${NBSP}₽`);
    expect(formatRub(-1250.4)).toBe(`-1${NBSP}250,40${NBSP}₽`);
    expect(formatRub(12_345.67)).toBe(`12${NBSP}345,67${NBSP}₽`);
  });

  it('keeps whole kopecks of amounts that arrive as binary fractions', () => {
    expect(formatRub(0.1 + 0.2)).toBe(`0,30${NBSP}₽`);
    expect(formatRub(19.99)).toBe(`19,99${NBSP}₽`);
  });

  it("says what Intl.NumberFormat('ru-RU') says for every amount in kopecks", () => {
    const cases = [0, 1, 7, 10, 99.99, 100, 999.9, 1000, 1250, 35.5, 12_345.67, 100_000, 1_234_567.89, 100_000_000, -5, -35.5, -1234];
    for (const amount of cases) {
      const kopecks = Math.round(Math.abs(amount) * 100) % 100 !== 0;
      const intl = new Intl.NumberFormat('ru-RU', { minimumFractionDigits: kopecks ? 2 : 0, maximumFractionDigits: 2 });
      // Intl writes a minus sign (U+2212) in some ICU versions; the app writes a hyphen-minus.
      expect(formatNumber(amount), String(amount)).toBe(intl.format(amount).replace('\u2212', '-'));
    }
  });

  it('leaves anything finer than a kopeck to Intl', () => {
    expect(formatNumber(1.234)).toBe(new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 2 }).format(1.234));
  });
});

describe('dates', () => {
  // Local time: the app shows the player's own clock, so the tests build dates the same way.
  const evening = new Date(2026, 10, 21, 14, 5);

  it('writes a date with the month in the genitive', () => {
    expect(formatDate(evening)).toBe('21 ноября 2026');
    expect(formatDate(new Date(2027, 0, 1))).toBe('1 января 2027');
    expect(formatDate(new Date(2026, 4, 9).getTime())).toBe('9 мая 2026');
    const months = Array.from({ length: 12 }, (_, m) => formatDate(new Date(2026, m, 15)).split(' ')[1]);
    expect(months).toEqual([
      'января',
      'февраля',
      'марта',
      'апреля',
      'мая',
      'июня',
      'июля',
      'августа',
      'сентября',
      'октября',
      'ноября',
      'декабря',
    ]);
  });

  it("writes date and time as Intl.DateTimeFormat('ru-RU') does", () => {
    expect(formatDateTime(evening)).toBe('21.11.2026, 14:05');
    expect(formatTime(new Date(2026, 0, 2, 7, 3))).toBe('07:03');
    const intl = new Intl.DateTimeFormat('ru-RU', {
      day: '2-digit',
      month: '2-digit',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
    });
    for (const d of [evening, new Date(2026, 0, 1, 0, 0), new Date(2030, 11, 31, 23, 59)]) {
      expect(formatDateTime(d)).toBe(intl.format(d));
    }
  });

  it('takes epoch milliseconds and ISO text, and says so when a date is not one', () => {
    expect(formatDateTime(evening.getTime())).toBe('21.11.2026, 14:05');
    expect(formatDate(evening.toISOString())).toBe('21 ноября 2026');
    expect(formatDate('not a date')).toBe('Invalid Date');
    expect(formatDateTime(Number.NaN)).toBe('Invalid Date');
  });
});

describe('plural forms', () => {
  const days = (n: number) => `${n} ${plural(n, ['день', 'дня', 'дней'])}`;

  it('picks one, few or many as Russian does', () => {
    expect([1, 2, 3, 4, 5, 11, 12, 14, 21, 22, 25, 101, 111, 112, 0].map(days)).toEqual([
      '1 день',
      '2 дня',
      '3 дня',
      '4 дня',
      '5 дней',
      '11 дней',
      '12 дней',
      '14 дней',
      '21 день',
      '22 дня',
      '25 дней',
      '101 день',
      '111 дней',
      '112 дней',
      '0 дней',
    ]);
  });
});
