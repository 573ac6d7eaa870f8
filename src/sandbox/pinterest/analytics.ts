// Pin analytics as the simulator plays them (`GET /v5/pins/{id}/analytics`, docs/platforms/pinterest.md "Metrics and
// inbox"): the requested metric types per day, their sum over the dates asked (`summary_metrics`) and the lifetime
// comment and reaction counts, keyed by `all` (no split). The counts grow as the shared growth module makes them grow.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { growMetrics, type GrownMetrics } from '../framework/metrics-growth.ts';
import { gate } from './gate.ts';
import { KIND, type PinterestContext, type PinterestPin } from './state.ts';

const DAY = 86_400_000;
/** ⚠ unverified: how far back Pinterest answers Pin analytics (90 days, as its analytics pages say). */
const MAX_AGE_DAYS = 90;
const STANDARD = [
  'IMPRESSION',
  'OUTBOUND_CLICK',
  'PIN_CLICK',
  'SAVE',
  'SAVE_RATE',
  'TOTAL_COMMENTS',
  'TOTAL_REACTIONS',
];
const VIDEO = ['VIDEO_MRC_VIEW', 'VIDEO_10S_VIEW', 'VIDEO_START', 'QUARTILE_95_PERCENT_VIEW'];
const LIFETIME = new Set(['TOTAL_COMMENTS', 'TOTAL_REACTIONS']);

interface AnalyticsQuery {
  start_date?: string;
  end_date?: string;
  metric_types?: string;
}

/** One metric type from grown counts (the simulator's split of clicks: a third of Pin clicks go out to the link). */
function metric(name: string, m: GrownMetrics): number {
  switch (name) {
    case 'IMPRESSION':
      return m.impressions;
    case 'OUTBOUND_CLICK':
      return m.clicks;
    case 'PIN_CLICK':
      return m.clicks * 3;
    case 'SAVE':
      return m.saves;
    case 'SAVE_RATE':
      return m.impressions === 0 ? 0 : Math.round((m.saves / m.impressions) * 10_000) / 10_000;
    case 'TOTAL_COMMENTS':
      return m.comments;
    case 'TOTAL_REACTIONS':
      return m.likes;
    case 'VIDEO_MRC_VIEW':
      return m.video_views;
    case 'VIDEO_START':
      return Math.round(m.video_views * 1.3);
    case 'VIDEO_10S_VIEW':
      return Math.round(m.video_views * 0.4);
    default:
      return Math.round(m.video_views * 0.2);
  }
}

const dayStart = (date: string) => Date.parse(`${date}T00:00:00Z`);

export function registerPinAnalytics(app: FastifyInstance, ctx: PinterestContext): void {
  app.get<{ Params: { id: string }; Querystring: AnalyticsQuery }>('/v5/pins/:id/analytics', (request, reply) =>
    analytics(ctx, request, reply),
  );
}

async function analytics(
  ctx: PinterestContext,
  request: FastifyRequest<{ Params: { id: string }; Querystring: AnalyticsQuery }>,
  reply: FastifyReply,
) {
  const { kit } = ctx;
  const g = await gate(ctx, request, reply, 'metrics', 'org_analytics');
  if (!g) return reply;
  const pin = await kit.store.get<PinterestPin>(KIND.pin, request.params.id);
  if (!pin || pin.deleted) return ctx.errorReply(reply, 404, 'Pin not found.');
  if (pin.accountId !== g.account.id) return ctx.errorReply(reply, 403, 'Not authorized to access board or Pin.');
  const q = request.query;
  const invalid = () => ctx.errorReply(reply, 400, 'Invalid pins analytics parameters.');
  const date = /^\d{4}-\d{2}-\d{2}$/;
  if (!q.start_date || !q.end_date || !date.test(q.start_date) || !date.test(q.end_date)) return invalid();
  const start = dayStart(q.start_date);
  const end = dayStart(q.end_date);
  const today = Math.floor(kit.now() / DAY) * DAY;
  if (Number.isNaN(start) || Number.isNaN(end) || start > end || start < today - MAX_AGE_DAYS * DAY) return invalid();
  const types = (q.metric_types ?? '').split(',').filter(Boolean);
  const allowed = pin.mediaType === 'video' ? [...STANDARD, ...VIDEO] : STANDARD;
  if (types.length === 0 || types.some((t) => !allowed.includes(t))) return invalid();
  const grown = (at: number) =>
    growMetrics(pin.id, pin.createdAt, Math.min(at, kit.now()), {
      videoRate: pin.mediaType === 'video' ? 0.9 : 0,
      saveRate: 0.02,
    });
  const daily = [];
  const summary: Record<string, number> = {};
  for (let day = start; day <= Math.min(end, today); day += DAY) {
    const [from, to] = [grown(day), grown(day + DAY)];
    const metrics: Record<string, number> = {};
    for (const t of types.filter((t) => !LIFETIME.has(t) && t !== 'SAVE_RATE')) {
      metrics[t] = metric(t, to) - metric(t, from);
      summary[t] = (summary[t] ?? 0) + metrics[t];
    }
    daily.push({ date: new Date(day).toISOString().slice(0, 10), data_status: 'READY', metrics });
  }
  const now = grown(kit.now());
  if (types.includes('SAVE_RATE'))
    summary.SAVE_RATE = summary.IMPRESSION
      ? Math.round(((summary.SAVE ?? 0) / summary.IMPRESSION) * 10_000) / 10_000
      : 0;
  const lifetime = Object.fromEntries(types.filter((t) => LIFETIME.has(t)).map((t) => [t, metric(t, now)]));
  return { all: { daily_metrics: daily, summary_metrics: summary, lifetime_metrics: lifetime } };
}
