// Calendar arithmetic on plain local dates (`YYYY-MM-DD`) and wall-clock times in a chosen IANA zone. The server
// buckets events itself (each event's `date` and `local_start`); the page only needs to lay out days and, when a
// post is moved, turn a wall-clock time in the zone back into an instant.

export type View = 'month' | 'week' | 'list';

/** The longest window GET /v1/calendar/events accepts (docs/calendar.md "Windows and buckets"). */
export const MAX_WINDOW_DAYS = 92;

const DAY_MS = 86_400_000;

function parse(date: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return Date.UTC(y, m - 1, d);
}

function format(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return format(parse(date) + days * DAY_MS);
}

export function daysBetween(from: string, to: string): number {
  return Math.round((parse(to) - parse(from)) / DAY_MS);
}

/** Monday 0 … Sunday 6 (weeks start on Monday, as ISO 8601 has them). */
export function weekday(date: string): number {
  return (new Date(parse(date)).getUTCDay() + 6) % 7;
}

export function startOfWeek(date: string): string {
  return addDays(date, -weekday(date));
}

export function startOfMonth(date: string): string {
  return `${date.slice(0, 7)}-01`;
}

export function addMonths(date: string, months: number): string {
  const [y, m] = date.split('-').map(Number) as [number, number];
  return format(Date.UTC(y, m - 1 + months, 1));
}

function wallParts(instant: number, zone: string): Record<string, string> {
  return Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(instant)
      .map((p) => [p.type, p.value]),
  );
}

export function todayIn(zone: string, now = Date.now()): string {
  const p = wallParts(now, zone);
  return `${p.year}-${p.month}-${p.day}`;
}

/** The zone's offset from UTC at an instant, in milliseconds. */
function offsetAt(instant: number, zone: string): number {
  const p = wallParts(instant, zone);
  const wall = Date.UTC(
    Number(p.year),
    Number(p.month) - 1,
    Number(p.day),
    Number(p.hour),
    Number(p.minute),
    Number(p.second),
  );
  return wall - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant (ISO 8601 with Z) a wall-clock time has in the zone. Two passes settle the offset on either side of
 * a daylight-saving change; a time the zone skips lands after the gap, as the server reads skipped times.
 */
export function zonedInstant(date: string, time: string, zone: string): string {
  const [h = 0, mi = 0, s = 0] = time.split(':').map(Number);
  const wall = parse(date) + ((h * 60 + mi) * 60 + s) * 1000;
  let instant = wall - offsetAt(wall, zone);
  instant = wall - offsetAt(instant, zone);
  return new Date(instant).toISOString();
}

/** The wall-clock `HH:MM:SS` of an event's `local_start` (`2027-03-29T00:30:00+02:00`). */
export function wallTime(localStart: string): string {
  return localStart.slice(11, 19);
}

export interface Period {
  /** The first day shown and the day after the last (the API's `[from, to)`). */
  from: string;
  to: string;
  /** The days drawn, e.g. whole weeks around a month. */
  days: string[];
}

/** The days a view shows around `anchor`: a month in whole weeks, a week, or a month as a list. */
export function periodOf(view: View, anchor: string): Period {
  let from: string;
  let to: string;
  if (view === 'week') {
    from = startOfWeek(anchor);
    to = addDays(from, 7);
  } else if (view === 'month') {
    from = startOfWeek(startOfMonth(anchor));
    const last = addDays(addMonths(anchor, 1), -1);
    to = addDays(startOfWeek(last), 7);
  } else {
    from = startOfMonth(anchor);
    to = addMonths(anchor, 1);
  }
  const count = Math.min(daysBetween(from, to), MAX_WINDOW_DAYS);
  return { from, to: addDays(from, count), days: Array.from({ length: count }, (_, i) => addDays(from, i)) };
}

/** The anchor one period earlier or later. */
export function shift(view: View, anchor: string, step: number): string {
  return view === 'week' ? addDays(anchor, 7 * step) : addMonths(anchor, step);
}

export function monthLabel(date: string): string {
  return new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(parse(date));
}

export function dayLabel(date: string, style: 'short' | 'long' = 'short'): string {
  return new Intl.DateTimeFormat(undefined, {
    weekday: style,
    day: 'numeric',
    month: style === 'long' ? 'long' : 'short',
    ...(style === 'long' ? { year: 'numeric' } : {}),
    timeZone: 'UTC',
  }).format(parse(date));
}

export function periodLabel(view: View, period: Period, anchor: string): string {
  if (view !== 'week') return monthLabel(anchor);
  return `${dayLabel(period.from)} – ${dayLabel(addDays(period.to, -1))}`;
}

/** Whether the browser knows the zone (a link may name one it does not; the server then says why in words). */
export function knownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The browser's zone, and every zone the browser knows for the picker. */
export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function zoneChoices(current: string): string[] {
  const known = Intl.supportedValuesOf('timeZone');
  return [...new Set(['UTC', current, ...known])].sort();
}
