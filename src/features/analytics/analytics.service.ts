// The analytics feature's service as the container builds it (docs/analytics.md): the reads of metrics (a post,
// a summary, an export) and the insights. The metrics sync that fills the tables is sync.ts, run by the worker.
import type { ServiceContext } from '../../app/context.ts';
import type { ExportQuery, SummaryQuery } from './analytics.schemas.ts';
import { analyticsExport } from './export.ts';
import { createInsightsService, type InsightsDeps } from './insights.service.ts';
import { postAnalytics } from './post-analytics.ts';
import { analyticsSummary } from './summary.ts';

export function createAnalyticsService(deps: InsightsDeps) {
  return {
    post: (ctx: ServiceContext, postId: string) => postAnalytics(ctx, postId),
    summary: (ctx: ServiceContext, query: SummaryQuery) => analyticsSummary(ctx, query, deps.clock),
    export: (ctx: ServiceContext, query: ExportQuery) => analyticsExport(ctx, query, deps.clock),
    insights: createInsightsService(deps),
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
