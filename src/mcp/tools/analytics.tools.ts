// MCP tools over the analytics service: the same calls, scopes and schemas as /v1/analytics. Reading metrics and
// insights takes analytics:read; generating insights and recording what was done with one, analytics:write.
import type { AnalyticsService } from '../../features/analytics/analytics.service.ts';
import {
  GenerateInsightsBody,
  ListInsightsQuery,
  SummaryQuery,
  UpdateInsightBody,
} from '../../features/analytics/analytics.schemas.ts';
import type { PreparedGeneration } from '../../features/analytics/insights.service.ts';
import type { ServiceContext } from '../../app/context.ts';
import { tool, type ToolDefinition } from './tool.ts';

function ctxOf(service: ServiceContext | null): ServiceContext {
  if (!service) throw new Error('workspace tool without a workspace context');
  return service;
}

const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

interface TotalsView {
  posts: number;
  engagements: number | null;
  engagement_rate: number | null;
  metrics: Record<string, number | null>;
  unavailable: string[];
}

const pct = (rate: number | null) => (rate === null ? 'unknown' : `${Math.round(rate * 10_000) / 100} %`);
const count = (n: number | null) => (n === null ? 'unavailable' : n.toLocaleString('en'));

function totalsLine(t: TotalsView): string {
  const shown = ['impressions', 'reach', 'likes', 'comments', 'shares']
    .map((m) => `${m} ${count(t.metrics[m] ?? null)}`)
    .join(', ');
  return `${t.posts} posts · ${count(t.engagements)} engagements · rate ${pct(t.engagement_rate)} · ${shown}`;
}

interface InsightView {
  id: string;
  kind: string;
  severity: string;
  status: string;
  title: string;
  body: string;
  recommendation: { action: string };
}

const insightLine = (i: InsightView) =>
  `- [${i.severity}] ${i.title} (${i.kind}, ${i.status}, ${i.id})\n  ${i.body}\n  Suggested: ${i.recommendation.action}`;

export function analyticsTools(analytics: AnalyticsService): ToolDefinition[] {
  return [
    tool({
      name: 'get_post_analytics',
      title: "Get a post's metrics",
      scope: 'analytics:read',
      workspace: true,
      mutates: false,
      id: { argument: 'post_id', description: 'The post id (`post_…`), as create_post or list_posts return it.' },
      description:
        "Returns a published post's metrics per platform: the latest impressions, reach, likes, comments, shares, quotes, saves, clicks and video views, each `ok`, `unavailable` (the platform does not give it — never treat it as 0) or `pending` (not read yet); every reading as a series; and totals with engagements (likes + comments + shares + quotes + saves) and engagement rate (÷ reach, else impressions).",
      annotations: read,
      run: async ({ service }, input) => analytics.post(ctxOf(service), input.id!),
      summarize: (r) => {
        const targets = r.targets as Array<{ platform: string; status: string; engagements: number | null }>;
        const lines = targets.map((t) => `- ${t.platform}: ${t.status}, ${count(t.engagements)} engagements`);
        return `Post ${String(r.post_id)}: ${totalsLine(r.totals as TotalsView)}\n${lines.join('\n')}`;
      },
    }),
    tool({
      name: 'get_analytics_summary',
      title: 'Summarise analytics',
      scope: 'analytics:read',
      workspace: true,
      mutates: false,
      description:
        'Summarises the posts published in a window (default: the last 30 days; `from`/`to` as ISO 8601): totals, engagement rate, top posts, a per-platform breakdown, and deltas against the previous window of the same length. Filter by `brand_id`, `connection_id` (accounts) and `platform` (arrays). Metrics no platform reports are null and listed in `unavailable`. With `interval` (`hour`, `day`, `week`, `month`) and `tz` (IANA zone, default UTC) it adds `series`: the totals per calendar bucket in that zone.',
      input: { schema: SummaryQuery, part: 'querystring' },
      annotations: read,
      run: async ({ service }, input) => analytics.summary(ctxOf(service), input.body),
      summarize: (r) => {
        const period = r.period as { from: string; to: string };
        const deltas = r.deltas as { engagements: { percent: number | null } };
        const top = (r.top_posts as Array<{ post_id: string; excerpt: string; engagements: number }>)
          .map((p) => `- ${p.post_id} · ${p.engagements} engagements · "${p.excerpt}"`)
          .join('\n');
        const change = deltas.engagements.percent === null ? 'no comparison' : `${deltas.engagements.percent} %`;
        return `${period.from} to ${period.to}: ${totalsLine(r.totals as TotalsView)} (engagements vs previous period: ${change})${top ? `\nTop posts:\n${top}` : ''}`;
      },
    }),
    tool({
      name: 'list_insights',
      title: 'List insights',
      scope: 'analytics:read',
      workspace: true,
      mutates: false,
      description:
        'Lists the current insights, newest first: findings of the rules engine (best posting time, top posts, underperformers, posting frequency, media vs text, platform mix, how fast engagement decays), each with its evidence and a suggested action. Filter by `status`, `kind`, `severity` (arrays); page with `cursor`. generate_insights makes new ones.',
      input: { schema: ListInsightsQuery, part: 'querystring' },
      annotations: read,
      run: async ({ service }, input) => analytics.insights.list(ctxOf(service), input.body),
      summarize: (r) => {
        const items = r.items as InsightView[];
        if (items.length === 0) return 'No insights match. generate_insights runs the rules over recent posts.';
        const more = r.has_more ? `\n(more: cursor ${String(r.next_cursor)})` : '';
        return items.map(insightLine).join('\n') + more;
      },
    }),
    tool({
      name: 'generate_insights',
      title: 'Generate insights',
      scope: 'analytics:write',
      workspace: true,
      mutates: true,
      description:
        "Runs the rules engine over the brand's posts of the `period` (30d, 90d or 180d; default 90d), optionally only some `platforms`, and returns its insights. Answers the generation of the last 24 hours for the same brand, platforms and period unless `regenerate` is true. A rule needs a minimum number of posts before it says anything, so a young account may get none.",
      input: { schema: GenerateInsightsBody, part: 'body' },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      // The rules and a model's rewording run before the write's transaction; `run` only stores their result.
      prepare: async ({ service }, input) => analytics.insights.prepare(ctxOf(service), input.body),
      run: async ({ service }, _input, prepared) =>
        analytics.insights.store(ctxOf(service), prepared as PreparedGeneration),
      summarize: (r) => {
        const items = r.items as InsightView[];
        const from = r.cached ? ' (from the last generation)' : '';
        if (items.length === 0) return `No insights${from}: not enough posts with metrics in the period yet.`;
        return `${items.length} insight${items.length === 1 ? '' : 's'}${from}:\n${items.map(insightLine).join('\n')}`;
      },
    }),
    tool({
      name: 'update_insight',
      title: "Change an insight's status",
      scope: 'analytics:write',
      workspace: true,
      mutates: true,
      id: { argument: 'insight_id', description: 'The insight id (`ins_…`), as list_insights returns it.' },
      description:
        'Records what was done with an insight: `viewed`, `dismissed` (it will not come back as new), `acted_upon`, or `new`. Herald only records it; it does not carry out the recommendation.',
      input: { schema: UpdateInsightBody, part: 'body' },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ service }, input) => analytics.insights.update(ctxOf(service), input.id!, input.body),
      summarize: (r) => `Insight ${String(r.id)} is now ${String(r.status)}: ${String(r.title)}`,
    }),
  ];
}
