// Instagram and Threads end to end through the public API, with a worker and the simulators: media uploaded to
// Herald are fetched by the Meta simulators from Herald's own signed GET (as Meta fetches them), published with
// a first comment and a Threads reply chain; then one post to every platform Herald publishes to, under injected
// faults on each (5xx, an answer lost after the post was made, Instagram's "blocked" while live), is published
// exactly once everywhere.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningSandbox } from '../src/sandbox/server.ts';
import { uploadBytes, type MediaTestApp } from './helpers/media.ts';
import { jpeg } from './helpers/media-sources.ts';
import { pollFor } from './helpers/poll.ts';
import { startMediaPublishing, type MediaPublishing } from './helpers/media-publishing.ts';

let publishing: MediaPublishing;
let sandbox: RunningSandbox;
let t: MediaTestApp;
let key: string;

before(async () => {
  publishing = await startMediaPublishing();
  ({ sandbox, t, key } = publishing);
});
after(() => publishing.close());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API bodies, read field by field in assertions
async function settle(id: string, label: string, ceilingMs = 60_000): Promise<any> {
  return pollFor(
    label,
    async () => {
      const p = (await t.inject({ url: `/v1/posts/${id}`, key })).json().data;
      return ['published', 'partially_published', 'failed'].includes(p.status) ? p : undefined;
    },
    ceilingMs,
  );
}

async function image(): Promise<string> {
  const { mediaId, put } = await uploadBytes(t, key, jpeg(64, 48), 'image/jpeg', { filename: 'photo.jpg' });
  assert.equal(put.status, 200, put.body.toString());
  return mediaId;
}

test("an uploaded image reaches Instagram (with its first comment) and Threads (with a reply chain) through Herald's signed URL", async () => {
  const mediaId = await image();
  const text = `Meta end to end ${Date.now()}`;
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: {
      content: text,
      platforms: ['instagram', 'threads'],
      media_ids: [mediaId],
      publish_now: true,
      platform_options: {
        instagram: { first_comment: 'first!', alt_texts: ['a tiny photo'] },
        threads: { thread: ['second part'], reply_control: 'followers_only' },
      },
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  const post = await settle(res.json().data.post.id, 'Instagram and Threads post published');
  assert.equal(post.status, 'published', JSON.stringify(post.targets.map((x: { error: unknown }) => x.error)));
  for (const target of post.targets) {
    assert.match(target.url, /^http/);
    const held = (await sandbox.simulator(target.platform).posts()).filter((p) => p.text === text && !p.deleted);
    assert.equal(held.length, 1, target.platform);
    assert.equal(held[0]!.id, target.platform_post_id);
    assert.equal(held[0]!.media, 1, `${target.platform} fetched the image`);
  }
  const instagram = post.targets.find((x: { platform: string }) => x.platform === 'instagram');
  const page = await fetch(instagram.url);
  assert.match(await page.text(), /first!/, 'the first comment is on the post');
  const threads = post.targets.find((x: { platform: string }) => x.platform === 'threads');
  assert.match(await (await fetch(threads.url)).text(), new RegExp(text), 'the Threads URL shows the post');
  const threadsFirst = threads.platform_post_id;
  assert.equal(
    (await sandbox.simulator('threads').posts()).filter((p) => p.replyTo === threadsFirst && p.text === 'second part')
      .length,
    1,
  );
});

test('one post to every platform, each under injected faults: published exactly once everywhere', async () => {
  // Every platform that takes an image (the post's one media item), whatever they are.
  const platforms = t.container.platforms
    .available()
    .filter((p) => t.container.platforms.get(p)!.limits.media.kinds.image !== undefined);
  assert.ok(platforms.includes('instagram') && platforms.includes('threads'));
  // Options a platform needs, from what its connection offers (a board to pin to), never by the platform's name.
  const platformOptions: Record<string, unknown> = {};
  const connections = (await t.inject({ url: '/v1/connections?limit=100', key })).json().data.items as Array<{
    platform: string;
    options?: { boards?: Array<{ id: string }> };
  }>;
  for (const c of connections) {
    const board = c.options?.boards?.[0];
    if (board && platforms.includes(c.platform as never)) platformOptions[c.platform] = { board_id: board.id };
  }
  for (const platform of platforms) {
    const faults = sandbox.simulator(platform).faults;
    faults.add({ fault: 'server_error', operation: 'create_post' });
    faults.add({ fault: 'lost_response', operation: 'create_post' });
  }
  sandbox.simulator('instagram').faults.clear();
  sandbox.simulator('instagram').faults.add({ fault: 'published_but_blocked', operation: 'create_post' });
  sandbox.simulator('threads').faults.add({ fault: 'hang', operation: 'create_post' });
  const mediaId = await image();
  const text = `Every platform ${Date.now()}`;
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: { content: text, platforms, media_ids: [mediaId], publish_now: true, platform_options: platformOptions },
  });
  assert.equal(res.statusCode, 201, res.body);
  const post = await settle(res.json().data.post.id, 'every platform published under faults', 120_000);
  assert.equal(
    post.status,
    'published',
    JSON.stringify(post.targets.map((x: { platform: string; error: unknown }) => [x.platform, x.error])),
  );
  for (const target of post.targets) {
    const held = (await sandbox.simulator(target.platform).posts()).filter((p) => p.text === text && !p.deleted);
    assert.equal(held.length, 1, `${target.platform} holds the post exactly once`);
    assert.equal(held[0]!.id, target.platform_post_id, `${target.platform}: the target has the platform's id`);
    const fired = sandbox.simulator(target.platform).faults.fired();
    assert.ok(
      Object.values(fired).reduce((a, b) => a + b, 0) >= 1,
      `${target.platform}: the injected faults fired (${JSON.stringify(fired)})`,
    );
  }
  assert.equal(sandbox.simulator('instagram').faults.fired().published_but_blocked, 1);
});

test('an Instagram story with two media items is refused at creation with a 422 naming the rule', async () => {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: {
      content: 'story',
      platforms: ['instagram'],
      media_ids: [await image(), await image()],
      platform_options: { instagram: { type: 'story' } },
    },
  });
  assert.equal(res.statusCode, 422, res.body);
  const detail = res.json().error.details.find((d: { rule: string }) => d.rule === 'story_single_media');
  assert.equal(detail.path, '/platform_options/instagram');
});
