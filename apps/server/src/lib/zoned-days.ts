/**
 * Calendar days in a time zone as epoch-millisecond ranges, for «by day» reports. The database
 * is only given these numbers (never asked about zones), so SQLite and PostgreSQL group alike,
 * and a zone with daylight saving gets its 23- and 25-hour days right.
 */

export interface ZonedDay {
  /** YYYY-MM-DD in the zone. */
  date: string;
  /** The day's first millisecond and the next day's first (exclusive). */
  start: number;
  end: number;
}

const partsFormat = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = partsFormat.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    partsFormat.set(timeZone, f);
  }
  return f;
}

/** The zone's wall clock at `ms`, read as if it were UTC. */
function wallClock(ms: number, timeZone: string): number {
  const p = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(new Date(ms))
      .map((x) => [x.type, Number(x.value)]),
  );
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
}

/** The zone's offset from UTC at `ms`, in ms (Moscow: +3 h). */
function offsetAt(ms: number, timeZone: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return wallClock(whole, timeZone) - whole;
}

/** The first millisecond of the calendar day y-m-d in the zone (its midnight, or the first moment after a skipped one). */
export function zonedMidnight(y: number, m: number, d: number, timeZone: string): number {
  const utc = Date.UTC(y, m - 1, d);
  const date = new Date(utc).toISOString().slice(0, 10);
  // The zone's offsets a day either side cover any change of clocks near this midnight; the day
  // starts at the earliest instant among them that already reads as this date.
  const candidates = [-86_400_000, 0, 86_400_000].map((shift) => utc - offsetAt(utc + shift, timeZone));
  const fits = candidates.filter((t) => zonedDate(t, timeZone) === date);
  return Math.min(...(fits.length > 0 ? fits : candidates));
}

/** YYYY-MM-DD of `ms` in the zone. */
export function zonedDate(ms: number, timeZone: string): string {
  return new Date(wallClock(ms, timeZone)).toISOString().slice(0, 10);
}

/** The `count` calendar days up to and including the one `now` falls in, oldest first. */
export function lastDays(now: number, count: number, timeZone: string): ZonedDay[] {
  const [y, m, d] = zonedDate(now, timeZone).split('-').map(Number) as [number, number, number];
  const days: ZonedDay[] = [];
  for (let i = count - 1; i >= 0; i--) {
    const day = new Date(Date.UTC(y, m - 1, d - i));
    const next = new Date(Date.UTC(y, m - 1, d - i + 1));
    days.push({
      date: day.toISOString().slice(0, 10),
      start: zonedMidnight(day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate(), timeZone),
      end: zonedMidnight(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), timeZone),
    });
  }
  return days;
}
