// Insights (docs/analytics.md "Insights"): POST runs the rules engine over a brand's samples — or answers from
// the generation of the last 24 hours for the same platforms and period — and stores each finding under its
// fingerprint; GET lists and reads them; PATCH records what the client did with one.
import type { ServiceContext } from '../../app/context.ts';
import { decodeCursor, keysetPage } from '../../app/cursor.ts';
import { AppError, notFound } from '../../app/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { AiService } from '../ai/ai.service.ts';
import type { GeneratedBy } from '../ai/ai.types.ts';
import { brandContext } from '../brands/brands.service.ts';
import type { GenerateInsightsBody, InsightPeriod, ListInsightsQuery, UpdateInsightBody } from './analytics.schemas.ts';
import * as repo from './insights.repo.ts';
import { runRules } from './insights/engine.ts';
import { INSIGHT_KINDS, INSIGHT_SEVERITIES, type InsightDraft } from './insights/types.ts';
import { rewordInsightTask, wordingInputs } from './insights/wording.ts';
import { brandScope } from './scope.ts';

const HOUR_MS = 3_600_000;
/** A generation answers repeated requests (without `regenerate`) for this long. */
export const INSIGHTS_CACHE_HOURS = 24;
/** An insight drops out of GET lists this long after it was last generated: its evidence is stale by then. */
export const INSIGHT_TTL_DAYS = 30;
const PERIOD_DAYS: Record<InsightPeriod, number> = { '30d': 30, '90d': 90, '180d': 180 };
/** Model calls made at the same time when a provider rewords a generation's insights. */
const REWORD_CONCURRENCY = 4;
const RULES_ONLY: GeneratedBy = { engine: 'rules', provider: 'deterministic', model: null };

export function insightJson(row: repo.InsightRow) {
  return {
    id: row.id,
    object: 'insight' as const,
    brand_id: row.brand_id,
    kind: row.kind,
    severity: row.severity,
    title: row.title,
    body: row.body,
    evidence: row.evidence,
    recommendation: row.recommendation,
    status: row.status,
    fingerprint: row.fingerprint,
    generated_by: row.generated_by,
    period: { from: row.period_from.toISOString(), to: row.period_to.toISOString() },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
  };
}

/** Most severe first, then by kind as the engine lists them, then by id: the same order for the same insights. */
function bySeverity(a: repo.InsightRow, b: repo.InsightRow): number {
  return (
    INSIGHT_SEVERITIES.indexOf(a.severity) - INSIGHT_SEVERITIES.indexOf(b.severity) ||
    INSIGHT_KINDS.indexOf(a.kind) - INSIGHT_KINDS.indexOf(b.kind) ||
    a.id.localeCompare(b.id)
  );
}

/** What `prepare` hands to `store`: the generation answered from the cache, or the rules' findings and words. */
export type PreparedGeneration = {
  brandId: string;
  platforms: string[] | null;
  scopeKey: string;
  now: Date;
} & (
  | { cached: repo.InsightRun }
  | {
      cached: null;
      window: { from: Date; to: Date };
      drafts: ReturnType<typeof runRules>;
      words: Array<{ title: string; body: string; generatedBy: GeneratedBy }>;
    }
);

export interface InsightsDeps {
  ai: Pick<AiService, 'provider' | 'generate'>;
  clock: Clock;
}

export function createInsightsService(deps: InsightsDeps) {
  const { ai, clock } = deps;

  /** The rule's own words, or a configured model's rewording of them (checked against the evidence). */
  async function word(ctx: ServiceContext, brandId: string, drafts: InsightDraft[]) {
    if (ai.provider === 'deterministic' || drafts.length === 0)
      return drafts.map((d) => ({ title: d.title, body: d.body, generatedBy: RULES_ONLY }));
    const brand = await brandContext(ctx, brandId);
    const worded: Array<{ title: string; body: string; generatedBy: GeneratedBy }> = [];
    // A few calls at a time; the request waits for all of them (before its write transaction opens).
    let next = 0;
    const lanes = Array.from({ length: Math.min(REWORD_CONCURRENCY, drafts.length) }, async () => {
      for (let i = next++; i < drafts.length; i = next++) {
        const answer = await ai.generate<{ title: string; body: string }>({
          task: rewordInsightTask,
          brand,
          inputs: wordingInputs(drafts[i]!),
          workspaceId: ctx.workspaceId,
          onLimit: 'deterministic',
        });
        worded[i] = { ...answer.output, generatedBy: answer.generated_by };
      }
    });
    await Promise.all(lanes);
    return worded;
  }

  function generationJson(
    run: { period_from: Date; period_to: Date; generated_at: Date },
    platforms: readonly string[] | null,
    rows: repo.InsightRow[],
    cached: boolean,
  ) {
    return {
      object: 'insight_generation' as const,
      cached,
      generated_at: run.generated_at.toISOString(),
      period: { from: run.period_from.toISOString(), to: run.period_to.toISOString() },
      platforms: platforms ? [...platforms] : null,
      items: [...rows].sort(bySeverity).map(insightJson),
    };
  }

  return {
    /**
     * The slow half of POST /v1/analytics/insights, run outside the write's transaction: the cache lookup, the
     * samples, the rules and the model's rewording (minutes at worst). `store` then writes the result in a short
     * transaction, so no database transaction stays open while a model answers.
     */
    async prepare(ctx: ServiceContext, body: GenerateInsightsBody): Promise<PreparedGeneration> {
      const brandId = ctx.brandId;
      if (brandId === null)
        throw new AppError(
          'PUBLIC_API_VALIDATION_FAILED',
          'Insights are generated for one brand: name it with the x-herald-brand-id header.',
          { details: [{ path: '/x-herald-brand-id', message: 'is required for this key', rule: 'brand_required' }] },
        );
      const period = body.period ?? '90d';
      const platforms = body.platforms ? [...new Set(body.platforms)].sort() : null;
      const scopeKey = `${platforms?.join(',') ?? '*'}|${period}`;
      const now = clock.now();
      const base = { brandId, platforms, scopeKey, now };
      if (!body.regenerate) {
        const run = await repo.freshRun(ctx.db, ctx.workspaceId, brandId, scopeKey, now);
        if (run) return { ...base, cached: run };
      }
      const window = { from: new Date(now.getTime() - PERIOD_DAYS[period] * 24 * HOUR_MS), to: now };
      const samples = await repo.insightSamples(ctx.db, ctx.workspaceId, { brandId, ...window, platforms });
      const drafts = runRules({ brandId, period: window, samples, now });
      const words = await word(ctx, brandId, drafts);
      return { ...base, cached: null, window, drafts, words };
    },

    /** Writes what `prepare` found (in the caller's transaction) and answers the generation. */
    async store(ctx: ServiceContext, ready: PreparedGeneration) {
      const { brandId, platforms, scopeKey, now } = ready;
      if (ready.cached) {
        const rows = await repo.insightsByIds(ctx.db, ctx.workspaceId, ready.cached.insight_ids);
        return generationJson(ready.cached, platforms, rows, true);
      }
      const { window, drafts, words } = ready;
      const expiresAt = new Date(now.getTime() + INSIGHT_TTL_DAYS * 24 * HOUR_MS);
      const rows: repo.InsightRow[] = [];
      for (const [i, d] of drafts.entries()) {
        rows.push(
          await repo.upsertInsight(ctx.db, ctx.workspaceId, {
            id: newId('ins'),
            brandId,
            kind: d.kind,
            severity: d.severity,
            title: words[i]!.title,
            body: words[i]!.body,
            evidence: d.evidence,
            recommendation: d.recommendation,
            fingerprint: d.fingerprint,
            generatedBy: words[i]!.generatedBy,
            periodFrom: window.from,
            periodTo: window.to,
            now,
            expiresAt,
          }),
        );
      }
      const run = {
        period_from: window.from,
        period_to: window.to,
        generated_at: now,
        insight_ids: rows.map((r) => r.id),
      };
      await repo.saveRun(ctx.db, ctx.workspaceId, {
        ...run,
        brandId,
        scopeKey,
        expiresAt: new Date(now.getTime() + INSIGHTS_CACHE_HOURS * HOUR_MS),
      });
      return generationJson(run, platforms, rows, false);
    },

    async list(ctx: ServiceContext, query: ListInsightsQuery) {
      const limit = query.limit ?? 20;
      const filters: repo.InsightFilters = {
        brandIds: brandScope(ctx, query.brand_id),
        currentAt: clock.now(),
        statuses: query.status ? [...new Set(query.status)].sort() : undefined,
        kinds: query.kind ? [...new Set(query.kind)].sort() : undefined,
        severities: query.severity ? [...new Set(query.severity)].sort() : undefined,
      };
      const binding = { list: 'insights', ...filters, currentAt: undefined };
      const after = query.cursor ? decodeCursor(query.cursor, binding) : undefined;
      const rows = await repo.listInsights(ctx.db, ctx.workspaceId, filters, after, limit + 1);
      const { page, ...more } = keysetPage(rows, limit, binding, (row) => row.created_at);
      return { items: page.map(insightJson), ...more };
    },

    async get(ctx: ServiceContext, id: string) {
      const row = await repo.findInsight(ctx.db, ctx.workspaceId, id);
      if (!row || (ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(row.brand_id))) throw notFound('insight');
      return insightJson(row);
    },

    async update(ctx: ServiceContext, id: string, body: UpdateInsightBody) {
      const found = await repo.findInsight(ctx.db, ctx.workspaceId, id);
      if (!found || (ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(found.brand_id))) throw notFound('insight');
      const row = await repo.setInsightStatus(ctx.db, ctx.workspaceId, id, body.status, clock.now());
      return insightJson(row!);
    },
  };
}

export type InsightsService = ReturnType<typeof createInsightsService>;
