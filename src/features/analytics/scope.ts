// Which brands and which window an analytics read covers, decided the way GET /v1/posts decides it: the query's
// brand_id, else the header's brand, else every brand the key reaches; a window by publication time.
import { validationFailed } from '../../app/errors.ts';
import { SUMMARY_DEFAULT_DAYS, SUMMARY_MAX_DAYS } from './analytics.schemas.ts';

const DAY_MS = 86_400_000;

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
