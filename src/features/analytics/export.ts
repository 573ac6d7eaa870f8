// GET /v1/analytics/export (docs/analytics.md "API"): the summary's window as CSV, one row per published target
// (RFC 4180: comma-separated, CRLF line ends, fields quoted when they hold a comma, quote or line break). A metric
// the platform does not give is an empty cell and is named in the `unavailable` column, never written as 0.
import type { ServiceContext } from '../../app/context.ts';
import { validationFailed } from '../../app/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { METRIC_NAMES } from '../../platforms/types.ts';
import type { ExportQuery } from './analytics.schemas.ts';
import { engagementsOf, rate, rateBaseOf } from './metrics.ts';
import { summaryFilters } from './summary.ts';
import { exportRows } from './summary.repo.ts';

/** Rows one export may hold; a larger window is refused with 422 (ask for a shorter one). */
export const EXPORT_MAX_ROWS = 50_000;

export const EXPORT_COLUMNS = [
  'post_id',
  'content',
  'target_id',
  'platform',
  'connection_id',
  'published_at',
  ...METRIC_NAMES,
  'engagements',
  'engagement_rate',
  'unavailable',
  'last_synced_at',
] as const;

/**
 * One CSV field. A text starting with `=`, `+`, `-`, `@`, a tab or a carriage return is what spreadsheets run as
 * a formula (CSV injection, OWASP): it gets a leading `'` so it is shown as text. Numbers are written as they are.
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(fields: ReadonlyArray<string | number | null>): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

export async function analyticsExport(
  ctx: ServiceContext,
  query: ExportQuery,
  clock: Clock,
): Promise<{ filename: string; csv: string }> {
  const filters = summaryFilters(ctx, query, clock);
  const rows = await exportRows(ctx.db, ctx.workspaceId, filters, EXPORT_MAX_ROWS + 1);
  if (rows.length > EXPORT_MAX_ROWS)
    throw validationFailed([
      {
        path: '/from',
        message: `the window holds more than ${EXPORT_MAX_ROWS.toLocaleString('en')} published targets; export a shorter one`,
        rule: 'export_too_large',
      },
    ]);
  let csv = csvLine(EXPORT_COLUMNS);
  for (const r of rows) {
    const engagements = engagementsOf(r.latest);
    csv += csvLine([
      r.post_id,
      r.content,
      r.target_id,
      r.platform,
      r.connection_id,
      r.published_at.toISOString(),
      ...METRIC_NAMES.map((m) => (typeof r.latest[m] === 'number' ? r.latest[m] : null)),
      engagements,
      rate(engagements, rateBaseOf(r.latest)),
      r.unavailable.join(' '),
      r.last_captured_at ? r.last_captured_at.toISOString() : null,
    ]);
  }
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return { filename: `herald-analytics-${day(filters.from)}-to-${day(filters.to)}.csv`, csv };
}
