// Insights through the API (docs/analytics.md "Insights"): POST runs the rules over seeded metrics and caches the
// generation, a regeneration updates findings in place and keeps their status, GET lists and filters them, PATCH
// records a status; a configured model may reword title and body, and an answer inventing a figure is refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../src/config.ts';
import { createBrand } from '../src/features/workspaces/workspaces.service.ts';
import type { ServiceContext } from '../src/app/context.ts';
import { createAiService } from '../src/features/ai/ai.service.ts';
import { createInsightsService } from '../src/features/analytics/insights.service.ts';
import type { GenerateInsightsBody } from '../src/features/analytics/analytics.schemas.ts';
import { Insight, InsightGeneration } from '../src/features/analytics/analytics.view.schemas.ts';
import { createMetrics } from '../src/lib/metrics.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { onePost, seedPublishedPost } from './helpers/analytics.ts';
import { startFakeLlm, type FakeLlm } from './helpers/fake-llm.ts';
import { assertSchema } from './helpers/webhooks-api.ts';

let t: TestApp;
let key: string;
let outlierPost: string;
const DAY = 86_400_000;

before(async () => {
  t = await buildTestApp();
  key = await t.key();
  const base = { workspaceId: t.owner.workspaceId, brandId: t.owner.brandId };
  // Ten posts of one account in the last month: nine ordinary ones and one far above the median (10.5).
  const values = [9, 9, 10, 10, 10, 11, 11, 12, 12, 100];
  for (const [i, likes] of values.entries()) {
    const seeded = await seedPublishedPost(
      t.container.pool,
      onePost(
        base,
        'x',
        new Date(Date.now() - (i + 2) * DAY),
        { likes, impressions: 1000 },
        {
          connectionId: t.connections.x,
        },
      ),
    );
    if (likes === 100) outlierPost = seeded.postId;
  }
});
after(() => t.close());

function generate(body: Record<string, unknown>, k = key, headers: Record<string, string> = {}) {
  return t.inject({ method: 'POST', url: '/v1/analytics/insights', key: k, payload: body, headers });
}

interface InsightView {
  id: string;
  kind: string;
  status: string;
  recommendation: { params: Record<string, unknown> };
  evidence: { value: number; baseline: number };
}

describe('POST /v1/analytics/insights', () => {
  test('runs the rules over the brand’s posts and answers the findings with their evidence', async () => {
    const res = await generate({ period: '30d' });
    assert.equal(res.statusCode, 200, res.body);
    const data = res.json().data;
    assertSchema(InsightGeneration, data);
    assert.equal(data.cached, false);
    const top = (data.items as InsightView[]).find((i) => i.kind === 'top_post');
    assert.ok(top, JSON.stringify(data.items));
    assert.equal(top.recommendation.params.post_id, outlierPost);
    assert.deepEqual([top.evidence.value, top.evidence.baseline], [100, 10.5]);
    assert.equal(top.status, 'new');
  });

  test('answers from the cache within 24 hours, unless regenerate; a finding keeps its id and its status', async () => {
    const first = (await generate({ period: '30d' })).json().data;
    assert.equal(first.cached, true);
    const top = (first.items as InsightView[]).find((i) => i.kind === 'top_post')!;
    const patched = await t.inject({
      method: 'PATCH',
      url: `/v1/analytics/insights/${top.id}`,
      key,
      payload: { status: 'dismissed' },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assertSchema(Insight, patched.json().data);
    assert.equal(patched.json().data.status, 'dismissed');

    const again = (await generate({ period: '30d', regenerate: true })).json().data;
    assert.equal(again.cached, false);
    const same = (again.items as InsightView[]).find((i) => i.kind === 'top_post')!;
    assert.equal(same.id, top.id, 'one row per finding across regenerations');
    assert.equal(same.status, 'dismissed', 'a dismissed insight does not come back as new');
    const { rows } = await t.container.pool.query(`SELECT count(*)::int AS n FROM insights WHERE kind = 'top_post'`);
    assert.equal(rows[0].n, 1);
  });

  test('too few posts on a platform: no insight about it', async () => {
    const data = (await generate({ platforms: ['linkedin'], period: '30d' })).json().data;
    assert.deepEqual(data.items, []);
    assert.deepEqual(data.platforms, ['linkedin']);
  });

  test('a key limited to other brands must name one; insights of other brands stay out of its lists', async () => {
    const other = await createBrand(t.container.pool, t.owner.workspaceId, 'Other brand');
    const limited = await t.key({ brandIds: [other.id] });
    const without = await generate({ period: '30d' }, limited);
    assert.equal(without.statusCode, 422, without.body);
    assert.equal(without.json().error.code, 'PUBLIC_API_VALIDATION_FAILED');
    const named = await generate({ period: '30d' }, limited, { 'x-herald-brand-id': other.id });
    assert.equal(named.statusCode, 200, named.body);
    assert.deepEqual(named.json().data.items, [], 'the other brand has no posts');
    const listed = await t.inject({ url: '/v1/analytics/insights?limit=100', key: limited });
    assert.deepEqual(listed.json().data.items, [], "the default brand's insights are not this key's");
    const foreign = await t.inject({ url: '/v1/analytics/insights?limit=1', key });
    const id = foreign.json().data.items[0].id;
    const read = await t.inject({ url: `/v1/analytics/insights/${id}`, key: limited });
    assert.equal(read.statusCode, 404);
  });

  test('an unknown period or status is 400 in the envelope', async () => {
    const bad = await generate({ period: '7y' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.code, 'PUBLIC_API_BODY_INVALID');
    const list = await t.inject({ url: '/v1/analytics/insights', key });
    const id = list.json().data.items[0].id;
    const patch = await t.inject({
      method: 'PATCH',
      url: `/v1/analytics/insights/${id}`,
      key,
      payload: { status: 'done' },
    });
    assert.equal(patch.statusCode, 400);
  });
});

describe('GET /v1/analytics/insights', () => {
  test('lists, filters by status and kind, and reads one; an unknown id is 404', async () => {
    const all = await t.inject({ url: '/v1/analytics/insights?limit=100', key });
    assert.equal(all.statusCode, 200, all.body);
    const items = all.json().data.items as InsightView[];
    assert.ok(items.length >= 1);
    const dismissed = (await t.inject({ url: '/v1/analytics/insights?status=dismissed', key })).json().data.items;
    assert.deepEqual(
      dismissed.map((i: InsightView) => i.kind),
      ['top_post'],
    );
    const byKind = (await t.inject({ url: '/v1/analytics/insights?kind=best_time,decay', key })).json().data.items;
    assert.ok(byKind.every((i: InsightView) => ['best_time', 'decay'].includes(i.kind)));
    const one = await t.inject({ url: `/v1/analytics/insights/${items[0]!.id}`, key });
    assert.equal(one.statusCode, 200);
    assert.deepEqual(one.json().data, items[0]);
    const missing = await t.inject({ url: '/v1/analytics/insights/ins_missing', key });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error.code, 'PUBLIC_API_NOT_FOUND');
  });
});

describe('rewording by a configured model', () => {
  let fake: FakeLlm;
  let ctx: ServiceContext;
  const service = () => {
    const config = loadConfig({
      HERALD_AI_PROVIDER: 'openai_compatible',
      HERALD_AI_BASE_URL: fake.baseUrl,
      HERALD_AI_MODEL: 'fake-model',
    }).ai;
    const ai = createAiService({
      config,
      pool: t.container.pool,
      clock: t.container.clock,
      logger: t.container.logger,
      metrics: createMetrics(),
    });
    return createInsightsService({ ai, clock: t.container.clock });
  };
  /** As POST does it: the rules and the model's answers first, then the writes. */
  const generate = async (body: GenerateInsightsBody) => {
    const insights = service();
    return insights.store(ctx, await insights.prepare(ctx, body));
  };

  before(async () => {
    fake = await startFakeLlm();
    ctx = {
      db: t.container.pool,
      workspaceId: t.owner.workspaceId,
      workspaceMode: 'test',
      brandId: t.owner.brandId,
      brandFromHeader: false,
      allowedBrandIds: null,
      userId: t.owner.userId,
      via: 'api',
    };
  });
  after(() => fake.close());

  test('title and body come from the model when it only rewords the evidence', async () => {
    fake.answer((request) => {
      const inputs = request.body.messages.at(-1)!.content;
      const value = /"value":\s*(\d+)/.exec(inputs)?.[1] ?? '0';
      return { json: { title: 'A standout post', body: `This post reached ${value} engagements.` } };
    });
    const data = await generate({ period: '30d', regenerate: true });
    const top = data.items.find((i) => i.kind === 'top_post')!;
    assert.equal(top.title, 'A standout post');
    assert.equal(top.body, 'This post reached 100 engagements.');
    assert.equal(top.generated_by.engine, 'llm');
    assert.deepEqual([top.evidence.value, top.evidence.baseline], [100, 10.5], 'the evidence is the rules’ own');
  });

  test('an answer stating a figure the evidence does not is refused, and the rule’s words stay', async () => {
    fake.answer(() => ({ json: { title: 'Huge win', body: 'This post got 5000 engagements, 47× your usual.' } }));
    const data = await generate({ period: '30d', regenerate: true });
    const top = data.items.find((i) => i.kind === 'top_post')!;
    assert.match(top.body, /^Post post_\w+ earned 100 engagements on x/);
    assert.equal(top.generated_by.engine, 'rules');
    assert.equal(top.generated_by.fallback_reason, 'invalid_output');
  });
});
