// Publishing end to end to a Facebook Page: a link post and its duplicate, faults retried or reconciled, and an
// expired Page token.
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

const { create, settled } = publishingRequests(() => ({ t, key, sandbox }));

describe('publishing to a Facebook Page through the public API', () => {
  const onPage = async (text: string) =>
    (await sandbox.simulator('facebook').posts()).filter((p) => p.text === text && !p.deleted);

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
    assert.equal((await onPage(text)).length, 1);
    assert.equal((await onPage(text))[0]!.id, target.platform_post_id);
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
    assert.equal((await onPage(text)).length, 1);
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
    assert.equal((await onPage(text)).length, 1);
    assert.equal((await onPage(text))[0]!.id, done.targets[0]!.platform_post_id);
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
