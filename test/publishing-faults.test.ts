// Publishing end to end when platforms fail: partial failure with the precise error and POST /retry, rate limits,
// 5xx, hangs and lost responses retried or reconciled without duplicates, token refresh and a refused refresh.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
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
    assert.equal((await held('x', text)).length, 1);
    assert.equal((await held('mastodon', text)).length, 1, 'the published target was not sent again');
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
    // The target failed, but its first part is out: the post is not `failed` as if nothing had gone out.
    assert.equal(target.status, 'failed');
    assert.equal(done.status, 'partially_published');
    assert.equal(target.error!.code, 'PLATFORM_DUPLICATE');
    assert.match(target.error!.message, /^Part 2 of the thread/);
    assert.equal(target.platform_post_id, (await held('x', text))[0]!.id, 'the published first part is on the target');
    assert.equal((await t.inject({ method: 'POST', url: `/v1/posts/${done.id}/retry`, key })).statusCode, 200);
    const again = await settled(done.id, 'thread completed by retry');
    assert.equal(again.status, 'published');
    assert.equal((await held('x', text)).length, 1, 'the first part was not sent again');
    assert.equal((await held('x', `${text} / 2`))[0]!.replyTo, (await held('x', text))[0]!.id);
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
    assert.equal((await held('mastodon', text)).length, 1);
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
      const copies = await held(target.platform as 'x', text);
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
      const copies = await held(target.platform as 'x', text);
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
