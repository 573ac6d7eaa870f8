// Publishing end to end through the public API, with a worker and the simulators standing in for the platforms:
// published with URLs on every target, scheduled, threads, POST /publish, the overdue sweeper, health and metrics.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PLATFORM_NAMES } from '../src/platforms/limits.ts';
import { createPlatformRegistry } from '../src/platforms/registry.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { PUBLISHING_ENV, publishingRequests } from './helpers/publishing.ts';

let sandbox: RunningSandbox;
let t: TestApp;
let key: string;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({ sandboxUrl: sandbox.url, worker: true, env: PUBLISHING_ENV });
  key = await t.key();
});
after(async () => {
  await t.close();
  await sandbox.close();
});

const { create, settled, held } = publishingRequests(() => ({ t, key, sandbox }));

describe('publishing through the public API', () => {
  test('publish_now on X, Bluesky and Mastodon at once: published, with URL and platform id on every target', async () => {
    const text = `Hello everywhere ${Date.now()}`;
    const post = await create({ content: text, platforms: ['x', 'bluesky', 'mastodon'], publish_now: true });
    assert.equal(post.status, 'publishing');
    const done = await settled(post.id, 'publish_now on three platforms, request to published');
    assert.equal(done.status, 'published');
    assert.ok(done.published_at);
    for (const target of done.targets) {
      assert.equal(target.status, 'published', target.platform);
      assert.match(target.url!, /^http/);
      assert.deepEqual(
        target.attempts.map((a) => a.outcome),
        ['published'],
      );
      const copies = await held(target.platform as 'x', text);
      assert.equal(copies.length, 1, `${target.platform} holds the post once`);
      assert.equal(copies[0]!.id, target.platform_post_id);
    }
    const { rows } = await t.container.pool.query(`SELECT type FROM events WHERE data->>'id' = $1 ORDER BY id`, [
      post.id,
    ]);
    assert.deepEqual(
      rows.map((r) => r.type),
      ['post.created', 'post.publishing', 'post.published'],
    );
  });

  test('a scheduled post starts at schedule_at and is published', async () => {
    const text = `Scheduled ${Date.now()}`;
    const at = new Date(Date.now() + 1500);
    const post = await create({ content: text, platforms: ['mastodon'], schedule_at: at.toISOString() });
    assert.equal(post.status, 'scheduled');
    const done = await settled(post.id, 'scheduled post, creation to published');
    assert.equal(done.status, 'published');
    const { rows } = await t.container.pool.query('SELECT started_at FROM target_attempts WHERE target_id = $1', [
      done.targets[0]!.id,
    ]);
    console.log(`# scheduled post started ${rows[0].started_at.getTime() - at.getTime()} ms after schedule_at`);
    assert.ok(rows[0].started_at.getTime() >= at.getTime() - 5, 'never before its time');
  });

  test('threads are reply chains on every platform, each part once', async () => {
    const text = `Thread ${Date.now()}`;
    const thread = ['second part', 'third part'];
    const post = await create({
      content: text,
      platforms: ['x', 'bluesky', 'mastodon', 'threads'],
      publish_now: true,
      platform_options: {
        x: { thread },
        bluesky: { thread },
        mastodon: { thread, visibility: 'unlisted' },
        threads: { thread },
      },
    });
    const done = await settled(post.id, 'three-part threads on four platforms');
    assert.equal(done.status, 'published');
    for (const target of done.targets) {
      const sim = sandbox.simulator(target.platform as 'x');
      const first = (await sim.posts()).find((p) => p.id === target.platform_post_id)!;
      assert.equal(first.text, text);
      const second = (await sim.posts()).filter((p) => p.replyTo === first.id);
      assert.equal(second.length, 1, `${target.platform}: one reply to the first part`);
      assert.equal((await sim.posts()).filter((p) => p.replyTo === second[0]!.id && p.text === 'third part').length, 1);
    }
  });

  test('alt texts are checked against the media count (media end to end: publishing-media.test.ts)', async () => {
    const bad = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: 'no media', platforms: ['x'], platform_options: { x: { alt_texts: ['orphan'] } } },
    });
    assert.equal(bad.statusCode, 422);
    assert.equal(bad.json().error.details[0].rule, 'alt_text_without_media');
  });

  test('POST /publish sends a draft now; other states are a 409', async () => {
    const draft = await create({ content: `Draft now ${Date.now()}`, platforms: ['bluesky'] });
    assert.equal(draft.status, 'draft');
    const res = await t.inject({ method: 'POST', url: `/v1/posts/${draft.id}/publish`, key });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.status, 'publishing');
    assert.equal((await settled(draft.id, 'draft published on request')).status, 'published');
    assert.equal((await t.inject({ method: 'POST', url: `/v1/posts/${draft.id}/publish`, key })).statusCode, 409);
  });

  // Any platform Herald has no adapter for yet (none once every platform has one).
  const unavailable = PLATFORM_NAMES.find((p) => !createPlatformRegistry().get(p));
  test(
    'a platform without a connection is a 422 naming platform and rule when the post would publish',
    { skip: !unavailable && 'every platform has an adapter' },
    async () => {
      const res = await t.inject({
        method: 'POST',
        url: '/v1/posts',
        key,
        payload: { content: 'needs an account', platforms: [unavailable], publish_now: true },
      });
      assert.equal(res.statusCode, 422);
      assert.deepEqual(
        res
          .json()
          .error.details.filter((d: { rule: string }) => d.rule === 'platform_unavailable')
          .map((d: { platform: string; rule: string }) => [d.platform, d.rule]),
        [[unavailable, 'platform_unavailable']],
      );
    },
  );

  test('a scheduled post whose job was lost is found overdue by the sweeper and published', async () => {
    const text = `Lost job ${Date.now()}`;
    const post = await create({
      content: text,
      platforms: ['bluesky'],
      schedule_at: new Date(Date.now() + 500).toISOString(),
    });
    await t.container.pool.query(`SELECT graphile_worker.remove_job('publish:' || $1)`, [post.targets[0]!.id]);
    const done = await settled(post.id, 'lost job recovered by the sweeper (overdue threshold 1.5 s)');
    assert.equal(done.status, 'published');
    assert.equal((await held('bluesky', text)).length, 1);
  });

  test('/health/publishing reports the live worker and no overdue post; /metrics counts publish outcomes', async () => {
    const ready = await t.inject({ url: '/health/ready' });
    assert.equal(ready.statusCode, 200, ready.body);
    const publishing = await t.inject({ url: '/health/publishing' });
    assert.equal(publishing.statusCode, 200, publishing.body);
    assert.equal(publishing.json().workers.alive, 1);
    assert.equal(publishing.json().overdue.targets, 0);
    const metrics = (await t.inject({ url: '/metrics' })).body;
    assert.match(metrics, /herald_publish_attempts_total\{platform="x",outcome="published",code=""\} \d+/);
    assert.match(metrics, /herald_publish_lateness_seconds_bucket/);
  });

  test('LinkedIn: published with the post URN from x-restli-id and its URL, the options applied, the reserved characters intact', async () => {
    const text = `LinkedIn (e2e) #${Date.now()} [a] <b> @c *d* _e_ ~f~ {g} | \\`;
    const done = await settled(
      (
        await create({
          content: text,
          platforms: ['linkedin'],
          publish_now: true,
          platform_options: { linkedin: { visibility: 'CONNECTIONS' } },
        })
      ).id,
      'LinkedIn post published',
    );
    assert.equal(done.status, 'published', JSON.stringify(done.targets[0]!.error));
    const target = done.targets[0]!;
    assert.match(target.platform_post_id!, /^urn:li:share:\d+$/);
    assert.equal(target.url, `${sandbox.baseUrl('linkedin')}/web/feed/update/${target.platform_post_id}`);
    assert.equal((await held('linkedin', text)).length, 1);
    const page = await fetch(target.url!);
    assert.match(await page.text(), /CONNECTIONS/);
  });
});
