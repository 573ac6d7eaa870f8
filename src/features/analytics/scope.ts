// Which brands and which window an analytics read covers, decided the way GET /v1/posts decides it: the query's
// brand_id, else the header's brand, else every brand the key reaches; a window by publication time; and, for the
// summary's series, the zone its buckets follow and a cap on how many there are.
import { validationFailed } from '../../app/errors.ts';
import { knownZone } from '../../app/timezone.ts';
import {
  SUMMARY_DEFAULT_DAYS,
  SUMMARY_MAX_BUCKETS,
  SUMMARY_MAX_DAYS,
  type SummaryInterval,
} from './analytics.schemas.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

export { brandScope } from '../../app/brand-scope.ts';

/** The window `[from, to)`: `to` defaults to now, `from` to 30 days before `to`; at most 366 days long. */
export function summaryWindow(query: { from?: string; to?: string }, now: Date): { from: Date; to: Date } {
  const to = query.to ? new Date(query.to) : now;
  const from = query.from ? new Date(query.from) : new Date(to.getTime() - SUMMARY_DEFAULT_DAYS * DAY_MS);
  if (from.getTime() >= to.getTime())
    throw validationFailed([{ path: '/from', message: 'must be before `to`', rule: 'window_order' }]);
  if (to.getTime() - from.getTime() > SUMMARY_MAX_DAYS * DAY_MS)
    throw validationFailed([
      { path: '/from', message: `the window may span at most ${SUMMARY_MAX_DAYS} days`, rule: 'window_length' },
    ]);
  return { from, to };
}

/** The period just before, of the same length. */
export function previousWindow(window: { from: Date; to: Date }): { from: Date; to: Date } {
  const length = window.to.getTime() - window.from.getTime();
  return { from: new Date(window.from.getTime() - length), to: window.from };
}

/** The canonical name of the request's zone (default UTC); 422 `timezone_unknown` for a name that is not one. */
export function seriesZone(tz: string | undefined): string {
  return tz === undefined ? 'UTC' : knownZone(tz, '/tz');
}

/**
 * 422 `series_too_long` when the series would pass SUMMARY_MAX_BUCKETS. Only hours can: the longest window holds
 * 367 days, 54 weeks or 13 months. The hours are counted from the start of `from`'s hour on the zone's clock.
 */
export function checkSeriesLength(window: { from: Date; to: Date }, unit: SummaryInterval, zone: string): void {
  if (unit !== 'hour') return;
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, minute: 'numeric', second: 'numeric' })
    .formatToParts(window.from)
    .reduce<Record<string, number>>((acc, p) => ({ ...acc, [p.type]: Number(p.value) }), {});
  const intoHour = ((parts.minute ?? 0) * 60 + (parts.second ?? 0)) * 1000 + window.from.getUTCMilliseconds();
  const buckets = Math.ceil((window.to.getTime() - window.from.getTime() + intoHour) / HOUR_MS);
  if (buckets > SUMMARY_MAX_BUCKETS)
    throw validationFailed([
      {
        path: '/interval',
        rule: 'series_too_long',
        message: `interval=hour makes ${buckets.toLocaleString('en')} buckets over this window; a series has at most ${SUMMARY_MAX_BUCKETS.toLocaleString('en')}: choose a longer interval or a shorter window.`,
      },
    ]);
}
