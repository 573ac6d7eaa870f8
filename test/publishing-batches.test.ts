// Many posts due at the same instant: the publish jobs share their claims, part marks and settlements
// (src/lib/batcher.ts), and nothing of the per-target bookkeeping may be lost or mixed up on the way — each
// target published once with its own platform id, one attempt each, each post's events once and in order, one
// webhook delivery per event in the same order.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { pollFor } from './helpers/poll.ts';

let sandbox: RunningSandbox;
let t: TestApp;
let key: string;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({ sandboxUrl: sandbox.url, worker: true });
  key = await t.key();
});
after(async () => {
  await t.close();
  await sandbox.close();
});

const POSTS = 40;

test(`${POSTS} posts on two platforms due at the same instant: every target published once, its bookkeeping its own`, async () => {
  const hook = await t.inject({
    method: 'POST',
    url: '/v1/webhooks',
    key,
    payload: { url: 'https://93.184.216.34/batches', events: ['post.publishing', 'post.published'] },
  });
  assert.equal(hook.statusCode, 201, hook.body);
  const endpointId = hook.json().data.id as string;
  const at = new Date(Date.now() + 2500).toISOString();
  const tag = Date.now();
  const ids: string[] = [];
  for (let i = 0; i < POSTS; i++) {
    const res = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: `Batch ${tag} post ${i}`, platforms: ['mastodon', 'bluesky'], schedule_at: at },
    });
    assert.equal(res.statusCode, 201, res.body);
    ids.push(res.json().data.post.id);
  }
  await pollFor(
    `${POSTS * 2} targets due together, schedule to all published`,
    async () => {
      const { rows } = await t.container.pool.query(
        `SELECT count(*)::int AS n FROM posts WHERE id = ANY($1) AND status = 'published'`,
        [ids],
      );
      return rows[0].n === POSTS;
    },
    60_000,
  );

  const { rows: targets } = await t.container.pool.query(
    `SELECT t.id, t.post_id, t.platform, t.platform_post_id, t.attempt_count, p.content FROM post_targets t JOIN posts p ON p.id = t.post_id WHERE t.post_id = ANY($1)`,
    [ids],
  );
  assert.equal(targets.length, POSTS * 2);
  for (const target of targets) {
    const copies = (await sandbox.simulator(target.platform).posts()).filter(
      (p) => p.text === target.content && !p.deleted,
    );
    assert.equal(copies.length, 1, `${target.platform} holds "${target.content}" once`);
    assert.equal(copies[0]!.id, target.platform_post_id, 'each target carries its own platform id');
    assert.equal(target.attempt_count, 1);
  }
  const { rows: attempts } = await t.container.pool.query(
    `SELECT target_id, outcome, started_at FROM target_attempts WHERE target_id = ANY($1)`,
    [targets.map((r) => r.id)],
  );
  assert.equal(attempts.length, POSTS * 2);
  assert.ok(attempts.every((a) => a.outcome === 'published'));
  // Claims made together share a transaction (and so its start time): fewer transactions than targets.
  const claims = new Set(attempts.map((a) => a.started_at.getTime())).size;
  console.log(`# ${POSTS * 2} targets claimed in ${claims} transactions`);
  assert.ok(claims < POSTS * 2, 'claims were batched');

  const { rows: events } = await t.container.pool.query(
    `SELECT e.id, e.type, e.data->>'id' AS post_id, e.data->>'status' AS status FROM events e
      WHERE e.data->>'id' = ANY($1) AND e.type IN ('post.publishing', 'post.published') ORDER BY e.id`,
    [ids],
  );
  for (const id of ids) {
    const own = events.filter((e) => e.post_id === id);
    assert.deepEqual(
      own.map((e) => e.type),
      ['post.publishing', 'post.published'],
      id,
    );
    assert.deepEqual(
      own.map((e) => e.status),
      ['publishing', 'published'],
      'each event renders its own post',
    );
  }
  const { rows: deliveries } = await t.container.pool.query(
    `SELECT event_id, count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 GROUP BY event_id`,
    [endpointId],
  );
  const delivered = new Map(deliveries.map((d) => [d.event_id, d.n]));
  assert.equal(delivered.size, events.length, 'one delivery per event');
  assert.ok(events.every((e) => delivered.get(e.id) === 1));
});
