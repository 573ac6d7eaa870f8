// Which brands and which window an analytics read covers, decided the way GET /v1/posts decides it: the query's
// brand_id, else the header's brand, else every brand the key reaches; a window by publication time.
import type { ServiceContext } from '../../app/context.ts';
import { AppError, validationFailed } from '../../app/errors.ts';
import { SUMMARY_DEFAULT_DAYS, SUMMARY_MAX_DAYS } from './analytics.schemas.ts';

const DAY_MS = 86_400_000;

/** The brands to read; null: every brand of the workspace. */
export function brandScope(ctx: ServiceContext, brandId: string | undefined): readonly string[] | null {
  if (ctx.brandFromHeader && brandId !== undefined && brandId !== ctx.brandId) {
    throw new AppError(
      'PUBLIC_API_QUERY_INVALID',
      `brand_id ${brandId} differs from the x-herald-brand-id header ${ctx.brandId}.`,
      { details: [{ path: '/brand_id', message: 'differs from the x-herald-brand-id header' }] },
    );
  }
  const brand = brandId ?? (ctx.brandFromHeader && ctx.brandId !== null ? ctx.brandId : undefined);
  if (brand !== undefined && ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(brand))
    throw new AppError('PUBLIC_API_BRAND_FORBIDDEN', 'That brand is not reachable by this key.');
  return brand !== undefined ? [brand] : ctx.allowedBrandIds;
}

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
