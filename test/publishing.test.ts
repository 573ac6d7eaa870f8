// Publishing end to end through the public API, with a worker running and the simulators standing in for
// the platforms: create → due → published with URLs on every target; threads; partial failure with the
// precise error; retries after rate limits, 5xx and unknown outcomes without duplicates; token refresh;
// POST /publish and /retry; events; health and metrics.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PLATFORM_NAMES } from '../src/platforms/limits.ts';
import { createPlatformRegistry } from '../src/platforms/registry.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { pollFor } from './helpers/poll.ts';

let sandbox: RunningSandbox;
let t: TestApp;
let key: string;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({
    sandboxUrl: sandbox.url,
    worker: true,
    env: { HERALD_PLATFORM_TIMEOUT_MS: '1500', HERALD_OVERDUE_AFTER_MS: '1500' },
  });
  key = await t.key();
});
after(async () => {
  await t.close();
  await sandbox.close();
});

type Post = {
  id: string;
  status: string;
  published_at: string | null;
  targets: Array<{
    id: string;
    platform: string;
    status: string;
    url: string | null;
    platform_post_id: string | null;
    attempts: Array<{ outcome: string | null; error_code: string | null }>;
    error: null | {
      code: string;
      message: string;
      category: string;
      retryable: boolean;
      platform_status: number | null;
      platform_response: string | null;
    };
  }>;
};

async function create(body: Record<string, unknown>): Promise<Post> {
  const res = await t.inject({ method: 'POST', url: '/v1/posts', key, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.post;
}

async function get(id: string): Promise<Post> {
  return (await t.inject({ url: `/v1/posts/${id}`, key })).json().data;
}

const FINAL = ['published', 'partially_published', 'failed'];
function settled(id: string, label: string, ceilingMs = 30_000): Promise<Post> {
  return pollFor(
    label,
    async () => {
      const post = await get(id);
      return FINAL.includes(post.status) ? post : undefined;
    },
    ceilingMs,
  );
}

const held = (platform: 'x' | 'bluesky' | 'mastodon' | 'linkedin', text: string) =>
  sandbox
    .simulator(platform)
    .posts()
    .filter((p) => p.text === text && !p.deleted);

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
      const copies = held(target.platform as 'x', text);
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
      const first = sim.posts().find((p) => p.id === target.platform_post_id)!;
      assert.equal(first.text, text);
      const second = sim.posts().filter((p) => p.replyTo === first.id);
      assert.equal(second.length, 1, `${target.platform}: one reply to the first part`);
      assert.equal(sim.posts().filter((p) => p.replyTo === second[0]!.id && p.text === 'third part').length, 1);
    }
  });

  test('one target rejected: the post is partially_published and that target carries the precise error', async () => {
    sandbox.simulator('x').faults.add({ fault: 'duplicate', operation: 'create_post' });
    const text = `Partial ${Date.now()}`;
    const done = await settled(
      (await create({ content: text, platforms: ['x', 'mastodon'], publish_now: true })).id,
      'partial failure settled',
    );
    assert.equal(done.status, 'partially_published');
    const x = done.targets.find((target) => target.platform === 'x')!;
    assert.equal(x.status, 'failed');
    assert.equal(x.error!.code, 'PLATFORM_DUPLICATE');
    assert.equal(x.error!.category, 'content');
    assert.equal(x.error!.retryable, false);
    assert.equal(x.error!.platform_status, 403);
    assert.match(x.error!.platform_response!, /duplicate content/);
    assert.deepEqual(
      x.attempts.map((a) => [a.outcome, a.error_code]),
      [['failed', 'PLATFORM_DUPLICATE']],
    );
    assert.equal(done.targets.find((target) => target.platform === 'mastodon')!.status, 'published');

    const retried = await t.inject({ method: 'POST', url: `/v1/posts/${done.id}/retry`, key });
    assert.equal(retried.statusCode, 200, retried.body);
    assert.equal(retried.json().data.status, 'publishing');
    const again = await settled(done.id, 'retry of the failed target');
    assert.equal(again.status, 'published');
    assert.equal(held('x', text).length, 1);
    assert.equal(held('mastodon', text).length, 1, 'the published target was not sent again');
    assert.equal((await t.inject({ method: 'POST', url: `/v1/posts/${done.id}/retry`, key })).statusCode, 409);
  });

  test("a thread whose second part is refused fails with the first part's URL kept; a retry sends only the rest", async () => {
    const text = `Half a thread ${Date.now()}`;
    sandbox.simulator('x').faults.add({ fault: 'duplicate', operation: 'create_post', skip: 1 });
    const done = await settled(
      (
        await create({
          content: text,
          platforms: ['x'],
          publish_now: true,
          platform_options: { x: { thread: [`${text} / 2`] } },
        })
      ).id,
      'half-published thread settled',
    );
    const target = done.targets[0]!;
    assert.equal(done.status, 'failed');
    assert.equal(target.error!.code, 'PLATFORM_DUPLICATE');
    assert.match(target.error!.message, /^Part 2 of the thread/);
    assert.equal(target.platform_post_id, held('x', text)[0]!.id, 'the published first part is on the target');
    assert.equal((await t.inject({ method: 'POST', url: `/v1/posts/${done.id}/retry`, key })).statusCode, 200);
    const again = await settled(done.id, 'thread completed by retry');
    assert.equal(again.status, 'published');
    assert.equal(held('x', text).length, 1, 'the first part was not sent again');
    assert.equal(held('x', `${text} / 2`)[0]!.replyTo, held('x', text)[0]!.id);
  });

  test('a 429 holds the target until the reset, then it is published once', async () => {
    sandbox.simulator('mastodon').faults.add({ fault: 'rate_limited', operation: 'create_post', retryAfterSeconds: 1 });
    const text = `Limited ${Date.now()}`;
    const done = await settled(
      (await create({ content: text, platforms: ['mastodon'], publish_now: true })).id,
      'rate-limited post published after the reset',
    );
    assert.equal(done.status, 'published');
    assert.deepEqual(
      done.targets[0]!.attempts.map((a) => [a.outcome, a.error_code]),
      [
        ['retry', 'PLATFORM_RATE_LIMITED'],
        ['published', null],
      ],
    );
    assert.equal(held('mastodon', text).length, 1);
  });

  test('a 5xx and a hang are retried; a lost response is reconciled to the post the platform holds — never a duplicate', async () => {
    const text = `Faults ${Date.now()}`;
    sandbox.simulator('x').faults.add({ fault: 'server_error', operation: 'create_post' });
    sandbox.simulator('mastodon').faults.add({ fault: 'hang', operation: 'create_post' });
    sandbox.simulator('bluesky').faults.add({ fault: 'lost_response', operation: 'create_post' });
    const done = await settled(
      (await create({ content: text, platforms: ['x', 'bluesky', 'mastodon'], publish_now: true })).id,
      'faulty publish settled',
      60_000,
    );
    assert.equal(done.status, 'published');
    for (const target of done.targets) {
      const copies = held(target.platform as 'x', text);
      assert.equal(copies.length, 1, `${target.platform} holds exactly one copy`);
      assert.equal(copies[0]!.id, target.platform_post_id, `${target.platform}: the target has the platform's id`);
    }
    const bluesky = done.targets.find((target) => target.platform === 'bluesky')!;
    assert.deepEqual(
      bluesky.attempts.map((a) => a.outcome),
      ['published'],
      'the lost response was reconciled within the attempt',
    );
  });

  test('an expired token is refreshed once and the post goes out in the same attempt', async () => {
    const before = (
      await t.container.pool.query('SELECT credentials FROM connections WHERE id = $1', [t.connections.x])
    ).rows[0].credentials as Buffer;
    sandbox.simulator('x').faults.add({ fault: 'expired_token', operation: 'create_post' });
    const done = await settled(
      (await create({ content: `Refreshed ${Date.now()}`, platforms: ['x'], publish_now: true })).id,
      'publish after a token refresh',
    );
    assert.equal(done.status, 'published');
    assert.deepEqual(
      done.targets[0]!.attempts.map((a) => a.outcome),
      ['published'],
    );
    const after = (await t.container.pool.query('SELECT credentials FROM connections WHERE id = $1', [t.connections.x]))
      .rows[0].credentials as Buffer;
    assert.ok(!after.equals(before), 'the new tokens were stored');
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
    assert.equal(held('bluesky', text).length, 1);
  });

  test('/health/ready reports the live worker and no overdue post; /metrics counts publish outcomes', async () => {
    const ready = await t.inject({ url: '/health/ready' });
    assert.equal(ready.statusCode, 200, ready.body);
    assert.equal(ready.json().checks.worker.alive, true);
    assert.equal(ready.json().checks.publishing.overdue_targets, 0);
    const metrics = (await t.inject({ url: '/metrics' })).body;
    assert.match(metrics, /herald_publish_attempts_total\{platform="x",outcome="published"\} \d+/);
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
    assert.equal(held('linkedin', text).length, 1);
    const page = await fetch(target.url!);
    assert.match(await page.text(), /CONNECTIONS/);
  });

  test('all five text platforms in one post under injected faults: each holds exactly one copy, the lost LinkedIn and Facebook answers reconciled', async () => {
    const text = `Every platform ${Date.now()}`;
    sandbox.simulator('x').faults.add({ fault: 'server_error', operation: 'create_post' });
    sandbox.simulator('mastodon').faults.add({ fault: 'hang', operation: 'create_post' });
    sandbox.simulator('bluesky').faults.add({ fault: 'lost_response', operation: 'create_post' });
    sandbox.simulator('linkedin').faults.add({ fault: 'lost_response', operation: 'create_post' });
    sandbox.simulator('linkedin').faults.add({ fault: 'server_error', operation: 'lookup' });
    sandbox.simulator('facebook').faults.add({ fault: 'lost_response', operation: 'create_post' });
    sandbox.simulator('facebook').faults.add({ fault: 'server_error', operation: 'lookup' });
    const done = await settled(
      (
        await create({
          content: text,
          platforms: ['x', 'bluesky', 'mastodon', 'linkedin', 'facebook'],
          publish_now: true,
        })
      ).id,
      'five-platform faulty publish settled',
      60_000,
    );
    assert.equal(done.status, 'published', JSON.stringify(done.targets.map((target) => target.error)));
    for (const target of done.targets) {
      const copies = held(target.platform as 'x', text);
      assert.equal(copies.length, 1, `${target.platform} holds exactly one copy`);
      assert.equal(copies[0]!.id, target.platform_post_id, `${target.platform}: the target has the platform's id`);
    }
    const fired = sandbox.simulator('linkedin').faults.fired();
    assert.equal(fired.lost_response, 1, 'the LinkedIn post went out once with its answer lost');
    assert.equal(fired.server_error, 1, 'the first look-up failed and was tried again');
    assert.deepEqual(
      sandbox.simulator('facebook').faults.fired(),
      { lost_response: 1, server_error: 1 },
      'the Facebook post went out once; its first feed look-up failed',
    );
  });

  test('a refresh the platform refuses fails the target with PLATFORM_RECONNECT_REQUIRED and expires the connection', async () => {
    sandbox.simulator('x').faults.add({ fault: 'expired_token', operation: 'create_post' });
    sandbox.simulator('x').faults.add({ fault: 'expired_token', operation: 'token' });
    const done = await settled(
      (await create({ content: `Logged out ${Date.now()}`, platforms: ['x'], publish_now: true })).id,
      'refused refresh settled',
    );
    assert.equal(done.status, 'failed');
    assert.equal(done.targets[0]!.error!.code, 'PLATFORM_RECONNECT_REQUIRED');
    assert.equal(done.targets[0]!.error!.category, 'auth');
    const connection = (await t.inject({ url: `/v1/connections/${t.connections.x}`, key })).json().data;
    assert.equal(connection.status, 'expired');
    const next = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: 'again', platforms: ['x'], publish_now: true },
    });
    assert.equal(next.statusCode, 422);
    assert.equal(next.json().error.details[0].rule, 'connection_expired');
  });
});

describe('publishing to a Facebook Page through the public API', () => {
  const onPage = (text: string) =>
    sandbox
      .simulator('facebook')
      .posts()
      .filter((p) => p.text === text && !p.deleted);

  test('a link post goes out once with the Page post URL; the same message again is 506 → PLATFORM_DUPLICATE', async () => {
    const text = `Facebook link post ${Date.now()}`;
    const done = await settled(
      (
        await create({
          content: text,
          platforms: ['facebook'],
          publish_now: true,
          platform_options: { facebook: { link: 'https://herald.example/news' } },
        })
      ).id,
      'Facebook link post published',
    );
    assert.equal(done.status, 'published');
    const target = done.targets[0]!;
    assert.equal(onPage(text).length, 1);
    assert.equal(onPage(text)[0]!.id, target.platform_post_id);
    assert.match(target.url!, /\/web\/\d+\/posts\/\d+$/);
    const again = await settled(
      (
        await create({
          content: text,
          platforms: ['facebook'],
          publish_now: true,
          platform_options: { facebook: { link: 'https://herald.example/news' } },
        })
      ).id,
      'Facebook duplicate settled',
    );
    assert.equal(again.status, 'failed');
    assert.equal(again.targets[0]!.error!.code, 'PLATFORM_DUPLICATE');
    assert.match(again.targets[0]!.error!.platform_response!, /"code":506/);
    assert.equal(onPage(text).length, 1);
  });

  test('a 5xx, a throttle and a lost response are retried or reconciled: the Page holds the post once', async () => {
    const faults = sandbox.simulator('facebook').faults;
    faults.add({ fault: 'server_error', operation: 'create_post' });
    faults.add({ fault: 'rate_limited', operation: 'create_post', retryAfterSeconds: 1 });
    faults.add({ fault: 'lost_response', operation: 'create_post' });
    const text = `Facebook under faults ${Date.now()}`;
    const done = await settled(
      (await create({ content: text, platforms: ['facebook'], publish_now: true })).id,
      'Facebook post through three faults',
    );
    assert.equal(done.status, 'published');
    assert.equal(onPage(text).length, 1);
    assert.equal(onPage(text)[0]!.id, done.targets[0]!.platform_post_id);
    assert.deepEqual(done.targets[0]!.attempts.map((a) => a.error_code).slice(0, 2), [
      'PLATFORM_UNAVAILABLE',
      'PLATFORM_RATE_LIMITED',
    ]);
  });

  test('an expired Page token cannot be refreshed: the target fails PLATFORM_RECONNECT_REQUIRED', async () => {
    sandbox.simulator('facebook').faults.add({ fault: 'expired_token', operation: 'create_post' });
    const done = await settled(
      (await create({ content: `Facebook logged out ${Date.now()}`, platforms: ['facebook'], publish_now: true })).id,
      'Facebook expired token settled',
    );
    assert.equal(done.status, 'failed');
    assert.equal(done.targets[0]!.error!.code, 'PLATFORM_RECONNECT_REQUIRED');
  });
});
