// Routes of the analytics API (docs/analytics.md "API"): schema, access and one service call each. Reading
// metrics and insights takes `analytics:read`; generating insights and changing their status, `analytics:write`.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Pool } from '../../db/pool.ts';
import { serviceContext, type RouteAccess } from '../../http/context.ts';
import { Envelope, ListOf } from '../../app/envelope.ts';
import { mutation } from '../../http/mutation.ts';
import { listQuery } from '../../http/query.ts';
import { typed } from '../../http/type-provider.ts';
import { type IdempotencyDeps } from '../../app/idempotency.ts';
import {
  ExportQuery,
  GenerateInsightsBody,
  InsightIdParams,
  ListInsightsQuery,
  PostAnalyticsParams,
  SUMMARY_MAX_BUCKETS,
  SummaryQuery,
  UpdateInsightBody,
} from './analytics.schemas.ts';
import type { AnalyticsService } from './analytics.service.ts';
import { AnalyticsSummary, Insight, InsightGeneration, PostAnalytics } from './analytics.view.schemas.ts';
import { EXPORT_COLUMNS, EXPORT_MAX_ROWS } from './export.ts';
import { INSIGHTS_CACHE_HOURS } from './insights.service.ts';

const read: RouteAccess = { scopes: ['analytics:read'], workspace: true, mutates: false };
const write: RouteAccess = { scopes: ['analytics:write'], workspace: true, mutates: true };

const CsvExample = `${EXPORT_COLUMNS.join(',')}\r\npost_01jdq4x1k9m2v7c3r5t8w0yz6b,Our winter release is out,tgt_01jdq4x1k9m2v7c3r5t8w0yz6c,x,conn_01jdq4x1k9m2v7c3r5t8w0yz6d,2026-11-12T09:00:00.000Z,2000,,40,7,5,1,,12,,53,,reach saves video_views,2026-11-13T09:00:00.000Z\r\n`;

export function registerAnalyticsRoutes(
  fastify: FastifyInstance,
  deps: IdempotencyDeps & { pool: Pool; analytics: AnalyticsService },
): void {
  const app = typed(fastify);
  const { analytics, pool } = deps;
  const tags = ['Analytics'];

  app.get(
    '/analytics/posts/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getPostAnalytics',
        tags,
        summary: "Get a post's metrics",
        description:
          "Each target's latest value of every metric (`ok`, `unavailable` when the platform does not give it, `pending` before the first reading — never a made-up 0), every reading as a series, and the post's totals over its targets. Engagements are likes + comments + shares + quotes + saves; the engagement rate divides them by reach, else impressions.",
        params: PostAnalyticsParams,
        response: { 200: Envelope(PostAnalytics) },
      },
    },
    async (request) => analytics.post(serviceContext(request, pool), request.params.id),
  );

  app.get(
    '/analytics/summary',
    {
      config: { access: read },
      schema: {
        operationId: 'getAnalyticsSummary',
        tags,
        summary: 'Summarise analytics over a window',
        description: `Totals, engagement rate, top posts and the per-platform breakdown of the posts published in the window (default: the last 30 days), with deltas against the previous window of the same length. Filters: brand, accounts (\`connection_id\`), platforms. A metric no target reports is \`null\` and listed in \`unavailable\`. With \`interval\` (\`hour\`, \`day\`, \`week\`, \`month\`) the answer adds \`series\`, the totals per calendar bucket in \`tz\` (IANA, default UTC) across daylight-saving changes, empty buckets included; more than ${SUMMARY_MAX_BUCKETS.toLocaleString('en')} buckets, or an unknown zone, is a 422.`,
        querystring: SummaryQuery,
        response: { 200: Envelope(AnalyticsSummary) },
      },
      preValidation: [listQuery('connection_id'), listQuery('platform')],
    },
    async (request) => analytics.summary(serviceContext(request, pool), request.query),
  );

  app.get(
    '/analytics/export',
    {
      config: { access: read },
      schema: {
        operationId: 'exportAnalytics',
        tags,
        summary: 'Export analytics as CSV',
        description: `The summary's window as CSV (RFC 4180), one row per published target (with the first 280 characters of its post), with the summary's filters. A metric the platform does not give is an empty cell and named in the \`unavailable\` column. Text cells that a spreadsheet would run as a formula (starting with \`=\`, \`+\`, \`-\`, \`@\`) are prefixed with \`'\`. At most ${EXPORT_MAX_ROWS.toLocaleString('en')} rows: a larger window answers 422.`,
        querystring: ExportQuery,
        response: {
          200: {
            description: 'The CSV file.',
            content: { 'text/csv': { schema: Type.String(), example: CsvExample } },
          },
        },
      },
      preValidation: [listQuery('connection_id'), listQuery('platform')],
    },
    async (request, reply) => {
      const file = await analytics.export(serviceContext(request, pool), request.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .send(file.csv);
    },
  );

  app.get(
    '/analytics/insights',
    {
      config: { access: read },
      schema: {
        operationId: 'listInsights',
        tags,
        summary: 'List insights',
        description:
          "The workspace's current insights (not expired), newest first, paginated by an opaque cursor, filtered by status, kind, severity and brand. Generate them with `POST /v1/analytics/insights`.",
        querystring: ListInsightsQuery,
        response: { 200: Envelope(ListOf(Insight)) },
      },
      preValidation: [listQuery('status'), listQuery('kind'), listQuery('severity')],
    },
    async (request) => analytics.insights.list(serviceContext(request, pool), request.query),
  );

  app.get(
    '/analytics/insights/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getInsight',
        tags,
        summary: 'Get an insight',
        description: 'One insight with its evidence, recommendation and status.',
        params: InsightIdParams,
        response: { 200: Envelope(Insight) },
      },
    },
    async (request) => analytics.insights.get(serviceContext(request, pool), request.params.id),
  );

  app.post(
    '/analytics/insights',
    {
      config: { access: write },
      schema: {
        operationId: 'generateInsights',
        tags,
        summary: 'Generate insights',
        description: `Runs the rules engine over the brand's posts of the period (the \`x-herald-brand-id\` brand, else the default one) and answers its insights. Within ${INSIGHTS_CACHE_HOURS} hours of a generation for the same brand, platforms and period, answers that one (\`cached: true\`) unless \`regenerate\` is true. A finding already stored is updated in place and keeps its status.`,
        body: GenerateInsightsBody,
        response: { 200: Envelope(InsightGeneration) },
      },
    },
    async (request, reply) => {
      // The rules and a model's rewording run before the write's transaction opens; only the writes run in it.
      const ready = await analytics.insights.prepare(serviceContext(request, pool), request.body);
      const write = mutation(deps, async (req: typeof request, tx) => ({
        status: 200,
        data: await analytics.insights.store(serviceContext(req, tx), ready),
      }));
      return write(request, reply);
    },
  );

  app.patch(
    '/analytics/insights/:id',
    {
      config: { access: write },
      schema: {
        operationId: 'updateInsight',
        tags,
        summary: "Change an insight's status",
        description:
          'Records what you did with the insight: `viewed`, `dismissed`, `acted_upon` (or `new` again). Herald does not carry out the recommendation.',
        params: InsightIdParams,
        body: UpdateInsightBody,
        response: { 200: Envelope(Insight) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await analytics.insights.update(serviceContext(request, tx), request.params.id, request.body),
    })),
  );
}
