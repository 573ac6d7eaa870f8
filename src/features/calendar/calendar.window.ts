// The calendar's window and its buckets (docs/calendar.md "Windows and buckets"): `from`/`to` are either instants
// (with `Z` or an offset) or calendar dates read as midnight in `tz`, and every event is put on the local date it
// falls on in `tz`. Computed here, on the server, so a client never buckets UTC times itself (the off-by-one of
// peers' week views). Pure: no database, no clock.
import { AppError, validationFailed } from '../../app/errors.ts';
import { knownZone } from '../../app/timezone.ts';
import { localIso, resolveLocal } from '../../lib/timezone.ts';

/** The longest window one request may ask for, in days (a quarter; a month view needs at most 42). */
export const CALENDAR_MAX_DAYS = 92;
const DAY_MS = 86_400_000;
/**
 * A window of 92 local days is 92 × 24 hours give or take the daylight-saving changes inside it (at most two,
 * each at most an hour, everywhere today): that slack is allowed so a 92-day local window is never refused.
 */
const DST_SLACK_MS = 2 * 3_600_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export interface CalendarWindow {
  from: Date;
  to: Date;
  /** The IANA zone buckets are computed in. */
  tz: string;
}

function zoneOf(tz: string | undefined): string {
  return tz === undefined ? 'UTC' : knownZone(tz, '/tz');
}

/** An instant, or a date's first instant in `zone` (a date whose midnight the zone skips starts when it resumes). */
function boundary(value: string, zone: string, path: string): Date {
  if (DATE_ONLY.test(value)) {
    const resolved = resolveLocal(`${value}T00:00:00`, zone);
    if (resolved.kind === 'exact') return resolved.instant;
    if (resolved.kind === 'repeated') return new Date(resolved.readings[0]);
    // Midnight skipped: the day starts when the clocks resume, the later of the two readings.
    if (resolved.kind === 'skipped') return new Date(resolved.readings[1]);
  } else {
    const instant = new Date(value);
    if (!Number.isNaN(instant.getTime())) return instant;
  }
  throw new AppError('PUBLIC_API_QUERY_INVALID', `${path.slice(1)} is not a date (YYYY-MM-DD) or a date-time.`, {
    details: [{ path, message: 'is not a date or a date-time' }],
  });
}

/** The window `[from, to)` of a request; 422 when it is empty, reversed or longer than 92 days. */
export function calendarWindow(query: { from: string; to: string; tz?: string }): CalendarWindow {
  const tz = zoneOf(query.tz);
  const from = boundary(query.from, tz, '/from');
  const to = boundary(query.to, tz, '/to');
  if (from.getTime() >= to.getTime())
    throw validationFailed([{ platform: null, path: '/to', rule: 'window_order', message: 'to must be after from.' }]);
  if (to.getTime() - from.getTime() > CALENDAR_MAX_DAYS * DAY_MS + DST_SLACK_MS)
    throw validationFailed([
      {
        platform: null,
        path: '/to',
        rule: 'window_too_long',
        message: `The window may span at most ${CALENDAR_MAX_DAYS} days; ask for the rest in another request.`,
      },
    ]);
  return { from, to, tz };
}

/** Where an instant falls in `tz`: its local date (the bucket) and its local time with the offset. */
export function bucketOf(instant: Date, tz: string): { date: string; local_start: string } {
  const local = localIso(instant.getTime(), tz);
  return { date: local.slice(0, 10), local_start: local };
}
