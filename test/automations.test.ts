// Content automations end to end: a scheduled library automation runs once per slot even with two workers; a
// feed served over local HTTP (through the SSRF guard's allow-list) posts each item once across worker restarts;
// preview writes nothing; auto-pause after N failures with its event; the endpoints' errors; tenant isolation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { scheduleDueAutomations } from '../src/features/automations/automations.scheduler.ts';
import { startWorker, type WorkerHandle } from '../src/jobs/worker.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { pollFor } from './helpers/poll.ts';
import { fakeDns } from './helpers/webhooks.ts';

let t: TestApp;
let key: string;
let feed: http.Server;
let port: number;
let entries: { guid: string; title: string }[] = [];
let feedDown = false;

function rss(): string {
  const items = entries
    .map(
      (e) =>
        `<item><guid>${e.guid}</guid><title>${e.title}</title><link>http://feeds.test:${port}/p/${e.guid}</link></item>`,
    )
    .join('');
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><link>http://feeds.test/</link>${items}</channel></rss>`;
}

before(async () => {
  feed = http.createServer((_req, res) => {
    if (feedDown) return void res.writeHead(500).end('down');
    res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(rss());
  });
  await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
  port = (feed.address() as AddressInfo).port;
  t = await buildTestApp({
    lookup: fakeDns({ 'feeds.test': ['127.0.0.1'], 'private.example': ['10.0.0.7'] }),
    env: { HERALD_OUTBOUND_ALLOWLIST: 'feeds.test', HERALD_AUTOMATION_PAUSE_AFTER_FAILURES: '2' },
  });
  key = await t.key();
});
after(async () => {
  await t.close();
  await new Promise<void>((resolve) => feed.close(() => resolve()));
});

const count = async (sql: string, params: unknown[] = []) =>
  Number((await t.container.pool.query(sql, params)).rows[0].n);

async function create(body: Record<string, unknown>, k = key) {
  const res = await t.inject({ method: 'POST', url: '/v1/automations', key: k, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { id: string; next_run_at: string | null; status: string };
}

async function runsOf(id: string) {
  const res = await t.inject({ url: `/v1/automations/${id}/runs`, key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data.items as { status: string; posts_created: string[]; items_new: number; error: unknown }[];
}

async function finishedRuns(id: string, n: number) {
  return pollFor(`${n} finished runs of ${id}`, async () => {
    const runs = await runsOf(id);
    return runs.filter((r) => !['queued', 'running'].includes(r.status)).length >= n ? runs : undefined;
  });
}

const scheduler = () =>
  scheduleDueAutomations({ pool: t.container.pool, clock: t.container.clock, batchSize: 100, rssPollMinutes: 15 });
const makeDue = (id: string) =>
  t.container.pool.query(`UPDATE automations SET next_run_at = now() - interval '1 minute' WHERE id = $1`, [id]);

describe('a scheduled library automation', () => {
  test('each slot runs exactly once with two workers and two schedulers, as drafts made by the automation', async () => {
    const a = await create({
      name: 'Tips',
      source: { type: 'schedule', rrule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0', timezone: 'Europe/Paris' },
      generator: { type: 'library', items: ['Tip one: plan ahead.', 'Tip two: reuse your best posts.'] },
      destinations: [{ platform: 'linkedin' }],
    });
    assert.ok(a.next_run_at);
    const workers: WorkerHandle[] = [await startWorker(t.container), await startWorker(t.container)];
    try {
      await makeDue(a.id);
      const [q1, q2] = await Promise.all([scheduler(), scheduler()]);
      assert.equal(q1 + q2, 1, 'one slot claimed once');
      const runs = await finishedRuns(a.id, 1);
      assert.equal(runs.length, 1);
      assert.equal(runs[0]!.status, 'completed', JSON.stringify(runs[0]));
      assert.equal(runs[0]!.posts_created.length, 1);
      const post = (
        await t.container.pool.query('SELECT content, created_via, status FROM posts WHERE id = $1', [
          runs[0]!.posts_created[0],
        ])
      ).rows[0];
      assert.deepEqual(post, { content: 'Tip one: plan ahead.', created_via: 'automation', status: 'draft' });
      const after = (await t.inject({ url: `/v1/automations/${a.id}`, key })).json().data;
      assert.ok(new Date(after.next_run_at).getTime() > Date.now(), 'next_run_at moved to the next slot');
    } finally {
      for (const w of workers) await w.stop();
    }
  });

  test('preview renders the next posts and writes nothing', async () => {
    const a = await create({
      name: 'Preview me',
      source: { type: 'schedule', rrule: 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0', timezone: 'America/New_York' },
      generator: { type: 'template', template: 'Monday on {{brand.name}}: {{date}}' },
      destinations: [{ platform: 'linkedin' }],
      output: { mode: 'schedule', schedule_expr: 'PT2H' },
    });
    const tables = ['posts', 'automation_runs', 'automation_seen_items', 'events', 'graphile_worker._private_jobs'];
    const before = await Promise.all(tables.map((x) => count(`SELECT count(*) AS n FROM ${x}`)));
    const res = await t.inject({ method: 'POST', url: `/v1/automations/${a.id}/preview`, key, idem: false });
    assert.equal(res.statusCode, 200, res.body);
    const preview = res.json().data;
    assert.equal(preview.posts.length, 1);
    assert.match(preview.posts[0].content, /^Monday on .+: \d{4}-\d{2}-\d{2}$/);
    assert.equal(preview.posts[0].valid, true, JSON.stringify(preview.posts[0].issues));
    assert.ok(preview.posts[0].schedule_at);
    const afterCounts = await Promise.all(tables.map((x) => count(`SELECT count(*) AS n FROM ${x}`)));
    assert.deepEqual(afterCounts, before);
  });
});

describe('an rss automation', () => {
  test('posts each item once across worker restarts; the first poll without backfill only marks the feed seen', async () => {
    entries = [
      { guid: 'a1', title: 'Old news' },
      { guid: 'a2', title: 'Older news' },
    ];
    const a = await create({
      name: 'Blog',
      source: { type: 'rss', feed_url: `http://feeds.test:${port}/feed.xml` },
      generator: { type: 'template' },
      destinations: [{ platform: 'linkedin' }],
      options: { utm: { campaign: 'blog' } },
    });
    let worker = await startWorker(t.container);
    try {
      await scheduler();
      let runs = await finishedRuns(a.id, 1);
      assert.equal(runs[0]!.status, 'completed');
      assert.equal(runs[0]!.posts_created.length, 0, 'no backfill');
      await worker.stop();
      entries = [{ guid: 'b1', title: 'Fresh news' }, ...entries];
      worker = await startWorker(t.container); // a restart: only the table remembers what was seen
      await makeDue(a.id);
      await scheduler();
      runs = await finishedRuns(a.id, 2);
      assert.equal(runs[0]!.posts_created.length, 1);
      const content = (
        await t.container.pool.query('SELECT content FROM posts WHERE id = $1', [runs[0]!.posts_created[0]])
      ).rows[0].content;
      assert.match(
        content,
        /^Fresh news\n\nhttp:\/\/feeds\.test:\d+\/p\/b1\?utm_source=linkedin&utm_medium=social&utm_campaign=blog$/,
      );
      await worker.stop();
      worker = await startWorker(t.container);
      await makeDue(a.id);
      await scheduler();
      runs = await finishedRuns(a.id, 3);
      assert.equal(runs[0]!.posts_created.length, 0, 'the same feed again posts nothing');
      assert.equal(await count('SELECT count(*) AS n FROM automation_seen_items WHERE automation_id = $1', [a.id]), 3);
    } finally {
      await worker.stop();
    }
  });

  test('pauses itself after 2 failed runs in a row, with automation.paused', async () => {
    entries = [{ guid: 'c1', title: 'x' }];
    const a = await create({
      name: 'Flaky',
      source: { type: 'rss', feed_url: `http://feeds.test:${port}/flaky.xml` },
      generator: { type: 'template' },
      destinations: [{ platform: 'linkedin' }],
    });
    feedDown = true;
    const worker = await startWorker(t.container);
    try {
      await scheduler();
      await finishedRuns(a.id, 1);
      await makeDue(a.id);
      await scheduler();
      const runs = await finishedRuns(a.id, 2);
      assert.deepEqual(
        runs.map((r) => r.status),
        ['failed', 'failed'],
      );
      const got = (await t.inject({ url: `/v1/automations/${a.id}`, key })).json().data;
      assert.equal(got.status, 'paused');
      assert.equal(got.last_error.code, 'feed_unreachable');
      assert.equal(got.next_run_at, null);
      assert.equal(
        await count(`SELECT count(*) AS n FROM events WHERE type = 'automation.paused' AND data->>'id' = $1`, [a.id]),
        1,
      );
      const resumed = await t.inject({ method: 'POST', url: `/v1/automations/${a.id}/resume`, key });
      assert.equal(resumed.json().data.status, 'active');
      assert.equal(resumed.json().data.consecutive_failures, 0);
    } finally {
      feedDown = false;
      await worker.stop();
    }
  });
});

describe('the endpoints', () => {
  const base = {
    name: 'x',
    source: { type: 'schedule', rrule: 'FREQ=DAILY', timezone: 'UTC' },
    generator: { type: 'library', items: ['hello'] },
    destinations: [{ platform: 'linkedin' }],
  };
  const rules = async (body: Record<string, unknown>) => {
    const res = await t.inject({ method: 'POST', url: '/v1/automations', key, payload: body });
    assert.equal(res.statusCode, 422, res.body);
    return res.json().error.details.map((d: { rule: string }) => d.rule);
  };

  test('rule violations are 422s naming the rule', async () => {
    assert.deepEqual(await rules({ ...base, generator: { type: 'llm_topic', topic: 'spring' } }), [
      'llm_topic_offline',
    ]);
    assert.deepEqual(await rules({ ...base, source: { type: 'schedule', rrule: 'BYDAY=MO', timezone: 'UTC' } }), [
      'rrule_invalid',
    ]);
    assert.deepEqual(
      await rules({ ...base, source: { type: 'schedule', rrule: 'FREQ=DAILY', timezone: 'Nowhere/X' } }),
      ['timezone_unknown'],
    );
    assert.deepEqual(
      (await rules({ ...base, source: { type: 'rss', feed_url: 'https://private.example/feed' } })).sort(),
      ['generator_source_mismatch', 'url_address_blocked'],
    );
    assert.deepEqual(await rules({ ...base, destinations: [{}] }), ['destination_target_required']);
    assert.deepEqual(await rules({ ...base, destinations: [{ connection_id: 'conn_nope' }] }), [
      'connection_not_found',
    ]);
    // Options on a schedule source: the schema fills backfill: false in, which is not a request for a backfill.
    const withOptions = await t.inject({
      method: 'POST',
      url: '/v1/automations',
      key,
      payload: { ...base, name: 'With options', options: { hashtags: ['#daily'] } },
    });
    assert.equal(withOptions.statusCode, 201, withOptions.body);
    assert.equal(withOptions.json().data.options.backfill, false);
    assert.deepEqual(await rules({ ...base, options: { backfill: true } }), ['option_needs_feed']);
  });

  test('a library llm_topic is accepted offline; trigger is idempotent within the minute; archive then 409', async () => {
    const a = await create({ ...base, generator: { type: 'llm_topic', topic: 'spring', items: ['Spring is here.'] } });
    const first = await t.inject({ method: 'POST', url: `/v1/automations/${a.id}/trigger`, key });
    const second = await t.inject({ method: 'POST', url: `/v1/automations/${a.id}/trigger`, key });
    assert.equal(first.statusCode, 202, first.body);
    assert.equal(second.json().data.id, first.json().data.id);
    const del = await t.inject({ method: 'DELETE', url: `/v1/automations/${a.id}`, key });
    assert.equal(del.json().data.status, 'archived');
    for (const path of ['trigger', 'pause', 'resume']) {
      const res = await t.inject({ method: 'POST', url: `/v1/automations/${a.id}/${path}`, key });
      assert.equal(res.statusCode, 409, `${path}: ${res.body}`);
    }
    const patch = await t.inject({ method: 'PATCH', url: `/v1/automations/${a.id}`, key, payload: { name: 'y' } });
    assert.equal(patch.statusCode, 409);
  });

  test('another workspace sees none of it (404), and a read key cannot write (403)', async () => {
    const a = await create(base);
    const other = await t.workspace();
    const foreign = await t.key({ workspaceIds: [other.workspaceId] });
    for (const [method, url] of [
      ['GET', `/v1/automations/${a.id}`],
      ['GET', `/v1/automations/${a.id}/runs`],
      ['POST', `/v1/automations/${a.id}/trigger`],
      ['POST', `/v1/automations/${a.id}/preview`],
      ['DELETE', `/v1/automations/${a.id}`],
    ] as const) {
      const res = await t.inject({ method, url, key: foreign });
      assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
    }
    const list = await t.inject({ url: '/v1/automations', key: foreign });
    assert.equal(list.json().data.items.length, 0);
    const reader = await t.key({ scopes: ['automations:read'] });
    const res = await t.inject({ method: 'POST', url: `/v1/automations/${a.id}/trigger`, key: reader });
    assert.equal(res.statusCode, 403);
  });
});
