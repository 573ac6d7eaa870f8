// The user stays in control while Herald retries (docs/api.md "Posts"): a target waiting between automatic attempts
// shows its attempt count, its last error and when the next attempt runs; cancel stops it (and no job already queued
// publishes it), retry brings the attempt forward to now, and only a platform call in flight answers 409 with
// Retry-After. The post's status is derived again after a cancel.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { queuePublishJobs } from '../src/app/publish-queue.ts';
import { deriveStatus, type TargetOutcome } from '../src/features/publishing/post-status.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { pollFor } from './helpers/poll.ts';
import { publishingRequests, type Post } from './helpers/publishing.ts';

type Target = Omit<Post['targets'][number], 'attempts'> & {
  attempt_count: number;
  next_attempt_at: string | null;
  attempts: Array<{ started_at: string; finished_at: string | null; outcome: string | null }>;
  parts: Array<{ status: string; error: { code: string } | null }>;
};
type ControlledPost = Omit<Post, 'targets'> & { targets: Target[] };

let sandbox: RunningSandbox;
let t: TestApp;
let key: string;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  // A hung call stays in flight long enough to be seen from outside.
  t = await buildTestApp({
    sandboxUrl: sandbox.url,
    worker: true,
    env: { HERALD_PLATFORM_TIMEOUT_MS: '4000', HERALD_OVERDUE_AFTER_MS: '1500' },
  });
  key = await t.key();
});
after(async () => {
  await t.close();
  await sandbox.close();
});

const requests = publishingRequests(() => ({ t, key, sandbox }));
const create = async (body: Record<string, unknown>) => (await requests.create(body)) as unknown as ControlledPost;
const { held } = requests;

async function get(id: string): Promise<ControlledPost> {
  return (await t.inject({ url: `/v1/posts/${id}`, key })).json().data;
}

const target = (post: ControlledPost, platform: string) => post.targets.find((x) => x.platform === platform)!;

/** Whether the target waits for an attempt at least a second away (time enough to act on it). */
function waits(post: ControlledPost, platform: string): boolean {
  const next = target(post, platform).next_attempt_at;
  return target(post, platform).status === 'publishing' && next !== null && Date.parse(next) - Date.now() > 1000;
}

/** Polls the post until `ready` holds. */
function pollPost(id: string, label: string, ready: (post: ControlledPost) => boolean): Promise<ControlledPost> {
  return pollFor(label, async () => {
    const post = await get(id);
    return ready(post) ? post : undefined;
  });
}

async function eventTypes(postId: string): Promise<string[]> {
  const { rows } = await t.container.pool.query(`SELECT type FROM events WHERE data->>'id' = $1 ORDER BY id`, [postId]);
  return rows.map((r) => r.type);
}

describe('a target waiting between attempts', () => {
  test('shows attempt_count, next_attempt_at and its last error; cancel stops it, the job queued for it publishes nothing, and the part sent without an answer is `unknown`', async () => {
    const linkedin = sandbox.simulator('linkedin');
    linkedin.faults.add({ fault: 'server_error', operation: 'create_post', times: 100 });
    const text = `Waiting ${Date.now()}`;
    const post = await create({ content: text, platforms: ['linkedin'], publish_now: true });
    const waiting = target(
      await pollPost(post.id, 'LinkedIn target waiting after a 5xx', (p) => waits(p, 'linkedin')),
      'linkedin',
    );
    assert.ok(waiting.attempt_count >= 1);
    assert.equal(waiting.error!.code, 'PLATFORM_UNAVAILABLE');
    assert.ok(Date.parse(waiting.next_attempt_at!) > Date.now());
    assert.ok(
      waiting.attempts.every((a) => a.finished_at),
      'no attempt is running while it waits',
    );

    const res = await t.inject({ method: 'POST', url: `/v1/posts/${post.id}/cancel`, key });
    assert.equal(res.statusCode, 200, res.body);
    const cancelled: ControlledPost = res.json().data;
    // A 5xx may come from a gateway after LinkedIn made the post, and nothing will look it up again: the part says
    // so, and the post does not claim that nothing went out (docs/decisions.md "What a post's status says went out").
    assert.equal(cancelled.status, 'partially_published');
    assert.equal(cancelled.published_at, null, 'nothing is known to be out');
    const after = target(cancelled, 'linkedin');
    assert.equal(after.status, 'cancelled');
    assert.deepEqual(
      after.parts.map((p) => [p.status, p.error?.code]),
      [['unknown', 'PLATFORM_UNAVAILABLE']],
    );
    assert.equal(after.next_attempt_at, null);
    assert.equal(after.attempt_count, waiting.attempt_count);
    assert.deepEqual((await eventTypes(post.id)).slice(-2), ['post.partially_published', 'post.cancelled']);

    // A job that escaped the removal (already fetched by a worker) runs now, with the platform healthy again: the
    // claim refuses the cancelled target.
    linkedin.faults.clear();
    await queuePublishJobs(t.container.pool, [after.id], new Date(), null);
    await pollFor('the stray job ran and was done', async () => {
      const { rows } = await t.container.pool.query('SELECT 1 FROM graphile_worker.jobs WHERE key = $1', [
        `publish:${after.id}`,
      ]);
      return rows.length === 0;
    });
    const final = target(await get(post.id), 'linkedin');
    assert.equal(final.status, 'cancelled');
    assert.equal(final.attempt_count, waiting.attempt_count, 'no attempt was made');
    assert.equal((await held('linkedin', text)).length, 0, 'LinkedIn holds nothing');
  });

  test('cancel beside a published target: the post is partially_published, the published target untouched', async () => {
    sandbox.simulator('linkedin').faults.add({ fault: 'server_error', operation: 'create_post', times: 100 });
    const text = `Half out ${Date.now()}`;
    const post = await create({ content: text, platforms: ['x', 'linkedin'], publish_now: true });
    await pollPost(
      post.id,
      'X published and LinkedIn waiting',
      (p) => target(p, 'x').status === 'published' && waits(p, 'linkedin'),
    );
    const res = await t.inject({ method: 'POST', url: `/v1/posts/${post.id}/cancel`, key });
    assert.equal(res.statusCode, 200, res.body);
    const cancelled: ControlledPost = res.json().data;
    sandbox.simulator('linkedin').faults.clear();
    assert.equal(cancelled.status, 'partially_published');
    assert.ok(cancelled.published_at);
    assert.equal(target(cancelled, 'x').status, 'published');
    assert.equal(target(cancelled, 'linkedin').status, 'cancelled');
    assert.deepEqual((await eventTypes(post.id)).slice(-2), ['post.partially_published', 'post.cancelled']);
    assert.equal((await held('x', text)).length, 1);
  });

  test('retry brings the next attempt forward to now', async () => {
    sandbox.simulator('linkedin').faults.add({ fault: 'server_error', operation: 'create_post', times: 2 });
    const text = `Hurry ${Date.now()}`;
    const post = await create({ content: text, platforms: ['linkedin'], publish_now: true });
    const waiting = target(
      await pollPost(
        post.id,
        'LinkedIn waiting after its second 5xx',
        (p) => target(p, 'linkedin').attempt_count === 2 && waits(p, 'linkedin'),
      ),
      'linkedin',
    );
    const due = Date.parse(waiting.next_attempt_at!);

    const res = await t.inject({ method: 'POST', url: `/v1/posts/${post.id}/retry`, key });
    assert.equal(res.statusCode, 200, res.body);
    // The answer is rendered before the retry commits, so no worker can have claimed the target yet: null would
    // mean "in flight", which it is not.
    const answered = target(res.json().data, 'linkedin');
    assert.ok(answered.next_attempt_at, 'a waiting target always says when it runs');
    assert.ok(Date.parse(answered.next_attempt_at) <= Date.now(), 'the next attempt is due now');
    const done = await requests.settled(post.id, 'retried target published');
    assert.equal(done.status, 'published');
    const attempts = target(done as unknown as ControlledPost, 'linkedin').attempts;
    assert.equal(attempts.length, 3);
    assert.ok(Date.parse(attempts[2]!.started_at) < due, 'the third attempt started before its backoff ended');
    assert.equal((await held('linkedin', text)).length, 1);
  });

  test('while a platform call is in flight, cancel and retry answer 409 PUBLIC_API_PUBLISH_IN_FLIGHT with Retry-After; once the target waits, cancel stops it', async () => {
    sandbox.simulator('mastodon').faults.add({ fault: 'hang', operation: 'create_post' });
    const text = `In flight ${Date.now()}`;
    const post = await create({ content: text, platforms: ['mastodon'], publish_now: true });
    await pollPost(post.id, 'the Mastodon call is in flight', (p) => {
      const attempts = target(p, 'mastodon').attempts;
      return attempts.length === 1 && attempts[0]!.finished_at === null;
    });
    for (const action of ['cancel', 'retry']) {
      const res = await t.inject({ method: 'POST', url: `/v1/posts/${post.id}/${action}`, key });
      assert.equal(res.statusCode, 409, `${action}: ${res.body}`);
      assert.equal(res.json().error.code, 'PUBLIC_API_PUBLISH_IN_FLIGHT');
      assert.equal(res.json().error.retryable, true);
      assert.ok(Number(res.headers['retry-after']) >= 1, `${action} says when to ask again`);
      assert.deepEqual(
        res.json().error.details.map((d: { platform: string }) => d.platform),
        ['mastodon'],
      );
    }
    const unchanged = await get(post.id);
    assert.equal(unchanged.status, 'publishing');
    assert.equal(target(unchanged, 'mastodon').status, 'publishing');

    // The hung call times out, finds nothing on Mastodon, and the target waits for its next attempt.
    const waiting = target(
      await pollPost(
        post.id,
        'the target waits after the hung call',
        (p) => target(p, 'mastodon').attempts[0]?.finished_at !== null && !!target(p, 'mastodon').next_attempt_at,
      ),
      'mastodon',
    );
    assert.equal(waiting.status, 'publishing');
    const res = await t.inject({ method: 'POST', url: `/v1/posts/${post.id}/cancel`, key });
    assert.equal(res.statusCode, 200, res.body);
    // The hung call's outcome stays unknown to Herald (this simulator did not process it).
    assert.equal(res.json().data.status, 'partially_published');
    assert.deepEqual(
      target(res.json().data, 'mastodon').parts.map((p) => p.status),
      ['unknown'],
    );
    assert.equal((await held('mastodon', text)).length, 0);
  });

  test('a target held by a job that is not running waits, and says until when', async () => {
    sandbox.simulator('bluesky').faults.add({ fault: 'rate_limited', operation: 'create_post', retryAfterSeconds: 60 });
    const post = await create({
      content: `Held by a failed job ${Date.now()}`,
      platforms: ['bluesky'],
      publish_now: true,
    });
    const waiting = target(
      await pollPost(post.id, 'Bluesky waiting for its reset', (p) => waits(p, 'bluesky')),
      'bluesky',
    );
    // As a job that failed unexpectedly leaves it: claimed by that job, which waits for graphile's retry, unlocked.
    const { rows } = await t.container.pool.query<{ id: string; run_at: Date }>(
      'SELECT id, run_at FROM graphile_worker.jobs WHERE key = $1',
      [`publish:${waiting.id}`],
    );
    const job = rows[0]!;
    await t.container.pool.query('UPDATE post_targets SET claimed_by = $2 WHERE id = $1', [waiting.id, String(job.id)]);
    const held = target(await get(post.id), 'bluesky');
    assert.equal(held.status, 'publishing');
    assert.ok(held.next_attempt_at, 'not in flight: no job is running it');
    assert.ok(Date.parse(held.next_attempt_at) >= job.run_at.getTime(), 'not before that job runs again');
    const res = await t.inject({ method: 'POST', url: `/v1/posts/${post.id}/cancel`, key });
    assert.equal(res.statusCode, 200, res.body);
    await t.container.pool.query('UPDATE connections SET throttled_until = NULL');
  });

  test('nothing waiting, failed or in flight: retry and cancel are 409 PUBLIC_API_STATE_CONFLICT', async () => {
    const post = await create({ content: `Done ${Date.now()}`, platforms: ['bluesky'], publish_now: true });
    assert.equal((await requests.settled(post.id, 'published')).status, 'published');
    for (const action of ['cancel', 'retry']) {
      const res = await t.inject({ method: 'POST', url: `/v1/posts/${post.id}/${action}`, key });
      assert.equal(res.statusCode, 409);
      assert.equal(res.json().error.code, 'PUBLIC_API_STATE_CONFLICT');
      assert.equal(res.headers['retry-after'], undefined);
    }
  });
});

describe("a post's status after a cancel", () => {
  // A target as `status` or `status/out`: what of a failed or cancelled target is on the platform (`published`) or
  // may be (`unknown`).
  const cases: Array<[string[], string | undefined]> = [
    [['cancelled'], 'cancelled'],
    [['published', 'cancelled'], 'partially_published'],
    [['failed', 'cancelled'], 'failed'],
    [['published', 'failed', 'cancelled'], 'partially_published'],
    [['publishing', 'cancelled'], 'publishing'],
    [['published', 'published'], 'published'],
    [['published', 'failed'], 'partially_published'],
    [['pending', 'pending'], undefined],
    // Nothing of a post with a part out is `cancelled` or `failed`.
    [['cancelled/published'], 'partially_published'],
    [['cancelled/published', 'failed'], 'partially_published'],
    [['failed/published'], 'partially_published'],
    [['cancelled/unknown'], 'partially_published'],
    [['cancelled/unknown', 'failed'], 'partially_published'],
    [['publishing', 'cancelled/published'], 'publishing'],
  ];
  for (const [targets, status] of cases) {
    test(`targets ${targets.join(' + ')} → ${status ?? 'left as it is'}`, () => {
      const outcomes = targets.map((target): TargetOutcome => {
        const [of, out] = target.split('/');
        return out === 'published' || out === 'unknown' ? { status: of!, partsOut: out } : { status: of! };
      });
      assert.equal(deriveStatus(outcomes), status);
    });
  }
});
