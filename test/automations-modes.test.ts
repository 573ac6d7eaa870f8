// Content automations beyond drafts (docs/automations.md): the approval and publish_now output modes, an event
// source with the repurpose generator, a run retried after it finished (a restart) doing nothing, PATCH checked
// as a whole, bad input answered in the envelope, and the MCP tools. Runs are executed by calling the
// `run_automation` task directly, so no worker timing is involved.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { scheduleDueAutomations } from '../src/features/automations/automations.scheduler.ts';
import { taskList } from '../src/jobs/worker.ts';
import { listenTestApp, type ListeningApp } from './helpers/oauth.ts';

let t: ListeningApp;
let key: string;

before(async () => {
  t = await listenTestApp({});
  key = await t.key();
});
after(() => t.close());

const base = {
  name: 'Modes',
  source: { type: 'schedule', rrule: 'FREQ=DAILY', timezone: 'UTC' },
  generator: { type: 'library', items: ['First tip.', 'Second tip.'] },
  destinations: [{ platform: 'x' }],
};

async function create(body: Record<string, unknown>) {
  const res = await t.inject({ method: 'POST', url: '/v1/automations', key, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { id: string; next_run_at: string | null; source: { rrule: string } };
}

type Run = { id: string; status: string; posts_created: string[]; approval_batch_id: string | null; error: unknown };

/** Executes a run as the worker would (attempt 1 of 3). */
async function execute(automationId: string, runId: string): Promise<void> {
  const task = taskList(t.container).run_automation as (payload: unknown, helpers: unknown) => Promise<void>;
  await task(
    { workspace_id: t.owner.workspaceId, automation_id: automationId, run_id: runId },
    { job: { attempts: 1, max_attempts: 3 } },
  );
}

async function triggerAndRun(automationId: string): Promise<Run> {
  const res = await t.inject({ method: 'POST', url: `/v1/automations/${automationId}/trigger`, key });
  assert.equal(res.statusCode, 202, res.body);
  await execute(automationId, res.json().data.id);
  const runs = await t.inject({ url: `/v1/automations/${automationId}/runs`, key });
  return runs.json().data.items[0] as Run;
}

const postRow = async (id: string) =>
  (await t.container.pool.query('SELECT status, publish_now, created_via, content FROM posts WHERE id = $1', [id]))
    .rows[0];

describe('output modes', () => {
  test('approval: the run’s posts are held for review in one approval batch', async () => {
    const a = await create({ ...base, generator: { ...base.generator, count: 2 }, output: { mode: 'approval' } });
    const run = await triggerAndRun(a.id);
    assert.equal(run.status, 'completed', JSON.stringify(run));
    assert.equal(run.posts_created.length, 2);
    assert.ok(run.approval_batch_id, 'one approval batch per run');
    for (const id of run.posts_created) assert.equal((await postRow(id)).status, 'pending_approval');
  });

  test('publish_now: the post goes out at once, not as a draft', async () => {
    const a = await create({ ...base, output: { mode: 'publish_now' } });
    const run = await triggerAndRun(a.id);
    assert.equal(run.status, 'completed', JSON.stringify(run));
    const post = await postRow(run.posts_created[0]!);
    assert.equal(post.created_via, 'automation');
    assert.notEqual(post.status, 'draft');
    assert.notEqual(post.status, 'pending_approval');
  });

  test('a run retried after it finished (a worker restarted before its job was marked done) does nothing', async () => {
    const a = await create(base);
    const run = await triggerAndRun(a.id);
    assert.equal(run.posts_created.length, 1);
    await execute(a.id, run.id);
    const posts = await t.container.pool.query(`SELECT count(*)::int AS n FROM posts WHERE metadata::text LIKE $1`, [
      `%${a.id}%`,
    ]);
    const runs = (await t.inject({ url: `/v1/automations/${a.id}/runs`, key })).json().data.items as Run[];
    assert.equal(runs.length, 1);
    assert.deepEqual(runs[0]!.posts_created, run.posts_created, 'the same posts, no second set');
    assert.ok(posts.rows[0].n <= 1);
  });
});

describe('an event source with the repurpose generator', () => {
  test('post.scheduled starts one run that repurposes the post; the automation’s own posts start nothing', async () => {
    const a = await create({
      name: 'Echo',
      source: { type: 'event', event: 'post.scheduled' },
      generator: { type: 'repurpose', format: 'post' },
      destinations: [{ platform: 'linkedin' }],
    });
    assert.equal(a.next_run_at, null);
    const made = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: {
        content: 'We open a second office in Lyon this spring. It has room for the whole support team.',
        platforms: ['x'],
        schedule_at: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    assert.equal(made.statusCode, 201, made.body);
    // The scheduler reads events once they are settled: its clock is a minute ahead.
    const later = { now: () => new Date(Date.now() + 60_000) };
    const deps = { pool: t.container.pool, clock: later, batchSize: 100, rssPollMinutes: 15 };
    assert.equal(await scheduleDueAutomations(deps), 1);
    assert.equal(await scheduleDueAutomations(deps), 0, 'the event is not read twice');
    const runs = (await t.inject({ url: `/v1/automations/${a.id}/runs`, key })).json().data.items as Run[];
    assert.equal(runs.length, 1);
    await execute(a.id, runs[0]!.id);
    const run = (await t.inject({ url: `/v1/automations/${a.id}/runs`, key })).json().data.items[0] as Run;
    assert.equal(run.status, 'completed', JSON.stringify(run));
    assert.equal(run.posts_created.length, 1);
    const post = await postRow(run.posts_created[0]!);
    assert.match(post.content, /Lyon/);
    assert.equal(post.created_via, 'automation');
  });
});

describe('changes and bad input', () => {
  test('PATCH is checked as a whole: a bad rule is a 422 naming it and changes nothing', async () => {
    const a = await create(base);
    const bad = await t.inject({
      method: 'PATCH',
      url: `/v1/automations/${a.id}`,
      key,
      payload: { source: { type: 'schedule', rrule: 'FREQ=DAILY', timezone: 'Mars/Olympus' } },
    });
    assert.equal(bad.statusCode, 422, bad.body);
    assert.deepEqual(
      bad.json().error.details.map((d: { rule: string }) => d.rule),
      ['timezone_unknown'],
    );
    const mismatch = await t.inject({
      method: 'PATCH',
      url: `/v1/automations/${a.id}`,
      key,
      payload: { generator: { type: 'repurpose', format: 'post' } },
    });
    assert.equal(mismatch.statusCode, 422, mismatch.body);
    assert.deepEqual(
      mismatch.json().error.details.map((d: { rule: string }) => d.rule),
      ['generator_source_mismatch'],
    );
    const got = (await t.inject({ url: `/v1/automations/${a.id}`, key })).json().data;
    assert.equal(got.source.timezone, 'UTC');
    assert.equal(got.generator.type, 'library');
    const renamed = await t.inject({
      method: 'PATCH',
      url: `/v1/automations/${a.id}`,
      key,
      payload: { source: { type: 'schedule', rrule: 'FREQ=WEEKLY;BYDAY=FR', timezone: 'Asia/Tokyo' } },
    });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(renamed.json().data.source.timezone, 'Asia/Tokyo');
    assert.notEqual(renamed.json().data.next_run_at, a.next_run_at);
  });

  test('every bad input is an envelope error, never a 500', async () => {
    const cases: Array<[string, string, unknown, number]> = [
      ['POST', '/v1/automations', { ...base, source: { type: 'cron' } }, 400],
      ['POST', '/v1/automations', { ...base, name: '' }, 400],
      ['POST', '/v1/automations', { ...base, surprise: true }, 400],
      ['POST', '/v1/automations', { ...base, destinations: [] }, 400],
      ['POST', '/v1/automations', { ...base, output: { mode: 'draft', schedule_expr: 'PT1H' } }, 422],
      [
        'POST',
        '/v1/automations',
        { ...base, source: { type: 'schedule', rrule: 'FREQ=SECONDLY', timezone: 'UTC' } },
        422,
      ],
      ['POST', '/v1/automations', { ...base, source: { type: 'rss', feed_url: 'file:///etc/passwd' } }, 422],
      ['POST', '/v1/automations', { ...base, source: { type: 'rss', feed_url: 'http://127.0.0.1:1/feed' } }, 422],
      ['PATCH', '/v1/automations/auto_missing', { name: 'x' }, 404],
      ['GET', '/v1/automations?status=sleeping', undefined, 400],
      ['GET', '/v1/automations/auto_missing/runs?limit=0', undefined, 400],
      ['POST', '/v1/automations/auto_missing/preview', undefined, 404],
    ];
    for (const [method, url, payload, status] of cases) {
      const res = await t.inject({ method: method as 'POST', url, key, payload: payload as object });
      assert.equal(res.statusCode, status, `${method} ${url} ${JSON.stringify(payload)}: ${res.body}`);
      assert.equal(typeof res.json().error?.code, 'string', res.body);
      assert.equal(typeof res.json().error?.message, 'string', res.body);
    }
  });
});

describe('MCP tools', () => {
  test('create, trigger and preview an automation over MCP as over REST; a read key cannot create', async () => {
    const connect = async (k: string) => {
      const c = new Client({ name: 'herald-test', version: '1.0.0' });
      await c.connect(
        new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${k}` } },
        }),
      );
      return c;
    };
    const c = await connect(await t.key({ scopes: ['automations:read', 'automations:write'] }));
    try {
      const made = await c.callTool({
        name: 'create_automation',
        arguments: { ...base, name: 'Over MCP', idempotency_key: 'mcp-automation-1' },
      });
      assert.equal(made.isError, undefined, JSON.stringify(made.structuredContent ?? made.content));
      const id = (made.structuredContent as { id: string }).id;
      const got = await c.callTool({ name: 'get_automation', arguments: { automation_id: id } });
      assert.deepEqual(got.structuredContent, (await t.inject({ url: `/v1/automations/${id}`, key })).json().data);
      const preview = await c.callTool({ name: 'preview_automation', arguments: { automation_id: id } });
      assert.equal(preview.isError, undefined, JSON.stringify(preview.content));
      assert.equal((preview.structuredContent as { posts: unknown[] }).posts.length, 1);
      const run = await c.callTool({
        name: 'trigger_automation',
        arguments: { automation_id: id, idempotency_key: 'mcp-trigger-1' },
      });
      assert.equal(run.isError, undefined, JSON.stringify(run.content));
      assert.equal((run.structuredContent as { status: string }).status, 'queued');
      const list = await c.callTool({ name: 'list_automations', arguments: {} });
      assert.ok((list.structuredContent as { items: { id: string }[] }).items.some((x) => x.id === id));
      const invalid = await c.callTool({
        name: 'create_automation',
        arguments: { ...base, generator: { type: 'llm_topic', topic: 'spring' }, idempotency_key: 'mcp-automation-2' },
      });
      assert.equal(invalid.isError, true);
      assert.match(JSON.stringify(invalid.content), /llm_topic_offline/);
    } finally {
      await c.close();
    }
    const reader = await connect(await t.key({ scopes: ['automations:read'] }));
    try {
      const refused = await reader
        .callTool({ name: 'create_automation', arguments: { ...base, idempotency_key: 'mcp-automation-3' } })
        .then(
          (r) => r.isError === true,
          () => true,
        );
      assert.ok(refused, 'a read key cannot create');
    } finally {
      await reader.close();
    }
  });
});
