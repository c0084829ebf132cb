import { describe, expect, it } from 'vitest';
import { lastDays, zonedDate, zonedMidnight } from './zoned-days.ts';

describe('days in a time zone', () => {
  it('counts Moscow days from 21:00 UTC of the day before', () => {
    expect(new Date(zonedMidnight(2026, 11, 23, 'Europe/Moscow')).toISOString()).toBe('2026-11-22T21:00:00.000Z');
    expect(zonedDate(Date.parse('2026-11-22T20:59:59.999Z'), 'Europe/Moscow')).toBe('2026-11-22');
    expect(zonedDate(Date.parse('2026-11-22T21:00:00.000Z'), 'Europe/Moscow')).toBe('2026-11-23');
    const days = lastDays(Date.parse('2026-11-23T08:00:00Z'), 30, 'Europe/Moscow');
    expect(days).toHaveLength(30);
    expect(days[29]).toEqual({ date: '2026-11-23', start: Date.parse('2026-11-22T21:00:00Z'), end: Date.parse('2026-11-23T21:00:00Z') });
    expect(days[0]!.date).toBe('2026-10-25');
    // Contiguous: each day ends where the next starts.
    for (let i = 1; i < days.length; i++) expect(days[i]!.start).toBe(days[i - 1]!.end);
    // Just after Moscow's midnight the new day is already «today».
    expect(lastDays(Date.parse('2026-11-23T21:30:00Z'), 1, 'Europe/Moscow')[0]!.date).toBe('2026-11-24');
  });

  it('gives a day with a change of clocks its 23 or 25 hours', () => {
    const spring = lastDays(Date.parse('2026-03-29T12:00:00Z'), 1, 'Europe/Berlin')[0]!;
    expect(spring.end - spring.start).toBe(23 * 3_600_000);
    expect(new Date(spring.start).toISOString()).toBe('2026-03-28T23:00:00.000Z');
    const autumn = lastDays(Date.parse('2026-10-25T12:00:00Z'), 1, 'Europe/Berlin')[0]!;
    expect(autumn.end - autumn.start).toBe(25 * 3_600_000);
    // A midnight that does not exist (Santiago jumps from 24:00 to 01:00): the day starts at the jump.
    const skipped = zonedMidnight(2026, 9, 6, 'America/Santiago');
    expect(zonedDate(skipped, 'America/Santiago')).toBe('2026-09-06');
    expect(zonedDate(skipped - 1, 'America/Santiago')).toBe('2026-09-05');
    expect(lastDays(Date.parse('2026-11-23T08:00:00Z'), 1, 'UTC')[0]).toEqual({
      date: '2026-11-23',
      start: Date.parse('2026-11-23T00:00:00Z'),
      end: Date.parse('2026-11-24T00:00:00Z'),
    });
  });
});
