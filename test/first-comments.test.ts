// First comments (`platform_options.<p>.first_comment`) end to end through the public API, with a worker and the
// simulators: each platform that can takes the comment right after the post, as the target's last part — a reply to
// the last part on X, Bluesky, Mastodon and Threads, a comment on the post on Instagram, Facebook, LinkedIn and
// YouTube — with its platform id in `parts[]`. A comment that fails after the post went out is retried (or looked up
// after an unknown outcome) without the post being sent again; platforms whose API cannot comment, and comments
// over the platform's rules, are refused at creation with a 422 naming the rule.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PlatformName } from '../src/platforms/limits.ts';
import type { RunningSandbox } from '../src/sandbox/server.ts';
import { mediaRecord, uploadBytes, type MediaTestApp } from './helpers/media.ts';
import { mp4 } from './helpers/media-fixtures.ts';
import { jpeg } from './helpers/media-sources.ts';
import { pollFor } from './helpers/poll.ts';
import { startMediaPublishing, type MediaPublishing } from './helpers/media-publishing.ts';

let publishing: MediaPublishing;
let sandbox: RunningSandbox;
let t: MediaTestApp;
let key: string;

before(async () => {
  publishing = await startMediaPublishing({ rateLimitFactor: 1000 });
  ({ sandbox, t, key } = publishing);
});
afterEach(() => {
  for (const name of ['x', 'instagram', 'facebook', 'linkedin', 'youtube'] as const)
    sandbox.simulator(name).faults.clear();
});
after(() => publishing.close());

interface Part {
  index: number;
  kind: string;
  status: string;
  platform_post_id: string | null;
}
interface Target {
  platform: string;
  status: string;
  platform_post_id: string | null;
  attempts: unknown[];
  parts: Part[];
}
interface Post {
  id: string;
  status: string;
  targets: Target[];
}

async function create(payload: Record<string, unknown>) {
  return t.inject({ method: 'POST', url: '/v1/posts', key, payload });
}

async function publish(payload: Record<string, unknown>, label: string): Promise<Post> {
  const res = await create({ publish_now: true, ...payload });
  assert.equal(res.statusCode, 201, res.body);
  const id = res.json().data.post.id as string;
  return pollFor(
    label,
    async () => {
      const post = (await t.inject({ url: `/v1/posts/${id}`, key })).json().data as Post;
      return ['published', 'partially_published', 'failed'].includes(post.status) ? post : undefined;
    },
    60_000,
  );
}

const rulesOf = (body: string) =>
  (JSON.parse(body) as { error: { details: Array<{ platform: string; rule: string; path: string }> } }).error.details;

/** The comments a simulator holds with this text (each simulator keeps them as `comment` documents). */
async function commentsWith(platform: PlatformName, text: string) {
  const all = await sandbox.simulator(platform).kit.store.list<{ text?: string; message?: string }>('comment');
  return all.filter((c) => (c.text ?? c.message) === text);
}

/** The live posts a simulator holds with this text, and the replies to `parent`. */
async function postsWith(platform: PlatformName, text: string) {
  return (await sandbox.simulator(platform).posts()).filter((p) => p.text === text && !p.deleted);
}

async function media(bytes: Buffer, type: string, filename: string): Promise<string> {
  const { mediaId, put } = await uploadBytes(t, key, bytes, type, { filename });
  assert.ok(put.status < 300, `the upload answers ${put.status}`);
  await pollFor('the media is ready', async () => (await mediaRecord(t, key, mediaId)).status === 'ready', 60_000);
  return mediaId;
}

function assertTwoParts(target: Target) {
  assert.equal(target.status, 'published', `${target.platform}: ${JSON.stringify(target)}`);
  assert.deepEqual(
    target.parts.map((p) => [p.index, p.kind, p.status]),
    [
      [0, 'post', 'published'],
      [1, 'first_comment', 'published'],
    ],
    target.platform,
  );
  assert.equal(target.parts[0]!.platform_post_id, target.platform_post_id);
  assert.ok(target.parts[1]!.platform_post_id, `${target.platform}: the comment's platform id`);
  assert.notEqual(target.parts[1]!.platform_post_id, target.platform_post_id);
}

describe('a first comment is published right after the post, as its last part', () => {
  test('X, Bluesky, Mastodon and Threads: a reply to the post; LinkedIn and Facebook: a comment on it', async () => {
    const text = `First comments ${Date.now()}`;
    const comment = `More below ${Date.now()}`;
    const platforms = ['x', 'bluesky', 'mastodon', 'threads', 'linkedin', 'facebook'] as const;
    const post = await publish(
      {
        content: text,
        platforms,
        platform_options: Object.fromEntries(platforms.map((p) => [p, { first_comment: { text: comment } }])),
      },
      'the six targets settled',
    );
    assert.equal(post.status, 'published');
    for (const target of post.targets) {
      assertTwoParts(target);
      const platform = target.platform as PlatformName;
      assert.equal((await postsWith(platform, text)).length, 1, `${platform}: the post once`);
      if (['linkedin', 'facebook'].includes(platform)) {
        const made = await commentsWith(platform, comment);
        assert.equal(made.length, 1, `${platform}: the comment once`);
      } else {
        const replies = await postsWith(platform, comment);
        assert.equal(replies.length, 1, `${platform}: the reply once`);
        assert.equal(replies[0]!.id, target.parts[1]!.platform_post_id);
        assert.equal(replies[0]!.replyTo, target.platform_post_id, `${platform}: a reply to the post`);
      }
    }
  });

  test('Instagram (the earlier string form too) and YouTube: a comment on the new media', async () => {
    const image = await media(jpeg(64, 48), 'image/jpeg', 'photo.jpg');
    const video = await media(mp4({ durationMs: 6_000, width: 720, height: 1280 }), 'video/mp4', 'clip.mp4');
    const comment = `Link in bio ${Date.now()}`;
    const [instagram, youtube] = await Promise.all([
      publish(
        {
          content: `Photo ${Date.now()}`,
          platforms: ['instagram'],
          media_ids: [image],
          platform_options: { instagram: { first_comment: comment } },
        },
        'the Instagram post settled',
      ),
      publish(
        {
          content: `Video ${Date.now()}`,
          platforms: ['youtube'],
          media_ids: [video],
          platform_options: { youtube: { title: 'A clip', first_comment: { text: comment } } },
        },
        'the YouTube post settled',
      ),
    ]);
    for (const post of [instagram, youtube]) {
      const target = post.targets[0]!;
      assertTwoParts(target);
      const made = await commentsWith(target.platform as PlatformName, comment);
      assert.equal(made.length, 1, `${target.platform}: the comment once`);
    }
  });

  test('after a thread, the first comment replies to its last part', async () => {
    const text = `Thread ${Date.now()}`;
    const comment = `The comment ${Date.now()}`;
    const post = await publish(
      {
        content: text,
        platforms: ['x'],
        platform_options: { x: { thread: [`${text} (2)`], first_comment: { text: comment } } },
      },
      'the thread settled',
    );
    const target = post.targets[0]!;
    assert.deepEqual(
      target.parts.map((p) => [p.kind, p.status]),
      [
        ['post', 'published'],
        ['reply', 'published'],
        ['first_comment', 'published'],
      ],
    );
    const [reply] = await postsWith('x', comment);
    assert.equal(reply!.replyTo, target.parts[1]!.platform_post_id);
  });
});

describe('a first comment that fails after the post went out', () => {
  test('a refused Instagram comment is retried on the next attempt; the post is not sent again', async () => {
    const image = await media(jpeg(64, 48), 'image/jpeg', 'retry.jpg');
    sandbox.simulator('instagram').faults.add({ fault: 'server_error', operation: 'create_comment' });
    const text = `Retried comment ${Date.now()}`;
    const comment = `Retried ${Date.now()}`;
    const post = await publish(
      {
        content: text,
        platforms: ['instagram'],
        media_ids: [image],
        platform_options: { instagram: { first_comment: { text: comment } } },
      },
      'the Instagram post settled after a retry',
    );
    const target = post.targets[0]!;
    assertTwoParts(target);
    assert.ok(target.attempts.length >= 2, `attempts: ${target.attempts.length}`);
    assert.deepEqual(sandbox.simulator('instagram').faults.fired(), { server_error: 1 });
    assert.equal((await postsWith('instagram', text)).length, 1, 'the post once');
    assert.equal((await commentsWith('instagram', comment)).length, 1, 'the comment once');
  });

  test('a Facebook comment whose answer was lost is found again, not made twice', async () => {
    sandbox.simulator('facebook').faults.add({ fault: 'lost_response', operation: 'create_comment' });
    const text = `Lost answer ${Date.now()}`;
    const comment = `Lost ${Date.now()}`;
    const post = await publish(
      { content: text, platforms: ['facebook'], platform_options: { facebook: { first_comment: { text: comment } } } },
      'the Facebook post settled',
    );
    assertTwoParts(post.targets[0]!);
    assert.deepEqual(sandbox.simulator('facebook').faults.fired(), { lost_response: 1 });
    const made = await commentsWith('facebook', comment);
    assert.equal(made.length, 1, 'the comment once');
    assert.equal((await postsWith('facebook', text)).length, 1, 'the post once');
  });

  test('LinkedIn and YouTube comments whose answers were lost are found again, not made twice', async () => {
    // LinkedIn's comments share the post's operation: the post goes through, the comment's answer is lost.
    sandbox.simulator('linkedin').faults.add({ fault: 'lost_response', operation: 'create_post', skip: 1 });
    sandbox.simulator('youtube').faults.add({ fault: 'lost_response', operation: 'create_comment' });
    const video = await media(mp4({ durationMs: 6_000, width: 720, height: 1280 }), 'video/mp4', 'lost.mp4');
    const comment = `Lost again ${Date.now()}`;
    const post = await publish(
      {
        content: `Lost answers ${Date.now()}`,
        platforms: ['linkedin', 'youtube'],
        media_ids: [video],
        platform_options: {
          linkedin: { first_comment: { text: comment } },
          youtube: { title: 'Lost', first_comment: { text: comment } },
        },
      },
      'the LinkedIn and YouTube posts settled',
    );
    for (const target of post.targets) {
      assertTwoParts(target);
      const platform = target.platform as PlatformName;
      assert.deepEqual(sandbox.simulator(platform).faults.fired(), { lost_response: 1 }, platform);
      assert.equal((await commentsWith(platform, comment)).length, 1, `${platform}: the comment once`);
    }
  });

  test('a comment the platform refuses fails the target with the post kept; a retry makes only the comment', async () => {
    sandbox.simulator('facebook').faults.add({ fault: 'item_deleted', operation: 'create_comment' });
    const text = `Refused comment ${Date.now()}`;
    const comment = `Refused ${Date.now()}`;
    const failed = await publish(
      { content: text, platforms: ['facebook'], platform_options: { facebook: { first_comment: { text: comment } } } },
      'the Facebook post settled with its comment refused',
    );
    assert.equal(failed.status, 'partially_published');
    const target = failed.targets[0]! as Target & { error: { message: string } };
    assert.equal(target.status, 'failed');
    assert.deepEqual(
      target.parts.map((p) => [p.kind, p.status]),
      [
        ['post', 'published'],
        ['first_comment', 'failed'],
      ],
    );
    assert.ok(target.platform_post_id, "the post's id is kept");
    assert.match(target.error.message, /^The first comment: /);
    const retried = await t.inject({ method: 'POST', url: `/v1/posts/${failed.id}/retry`, key });
    assert.equal(retried.statusCode, 200, retried.body);
    const done = await pollFor(
      'the retried comment settled',
      async () => {
        const post = (await t.inject({ url: `/v1/posts/${failed.id}`, key })).json().data as Post;
        return post.status === 'published' ? post : undefined;
      },
      60_000,
    );
    assertTwoParts(done.targets[0]!);
    assert.equal(done.targets[0]!.platform_post_id, target.platform_post_id);
    assert.equal((await postsWith('facebook', text)).length, 1, 'the post once');
    assert.equal((await commentsWith('facebook', comment)).length, 1, 'the comment once');
  });

  test('an X reply refused with a 5xx is sent again after the post, which stays one', async () => {
    // The post goes through; the next create (the first comment's reply) fails once.
    sandbox.simulator('x').faults.add({ fault: 'server_error', operation: 'create_post', skip: 1 });
    const text = `X retry ${Date.now()}`;
    const comment = `X comment ${Date.now()}`;
    const post = await publish(
      { content: text, platforms: ['x'], platform_options: { x: { first_comment: { text: comment } } } },
      'the X post settled',
    );
    assertTwoParts(post.targets[0]!);
    assert.deepEqual(sandbox.simulator('x').faults.fired(), { server_error: 1 });
    assert.equal((await postsWith('x', text)).length, 1, 'the post once');
    assert.equal((await postsWith('x', comment)).length, 1, 'the reply once');
  });
});

describe('first comments refused at creation', () => {
  test('GET /v1/platforms says which platforms take a first comment', async () => {
    const items = (await t.inject({ url: '/v1/platforms' })).json().data.items as Array<{
      id: string;
      capabilities: { first_comment: boolean };
    }>;
    assert.deepEqual(
      items.filter((p) => p.capabilities.first_comment).map((p) => p.id),
      ['x', 'linkedin', 'instagram', 'facebook', 'threads', 'bluesky', 'mastodon', 'youtube'],
    );
  });

  test('Pinterest, TikTok and Google Business Profile cannot comment: 422 first_comment_unsupported', async () => {
    const res = await create({
      content: 'Nothing to comment on',
      platforms: ['pinterest', 'tiktok', 'googlebusiness'],
      platform_options: {
        pinterest: { first_comment: { text: 'hi' } },
        tiktok: { first_comment: { text: 'hi' } },
        googlebusiness: { first_comment: { text: 'hi' } },
      },
    });
    assert.equal(res.statusCode, 422, res.body);
    const unsupported = rulesOf(res.body).filter((d) => d.rule === 'first_comment_unsupported');
    assert.deepEqual(unsupported.map((d) => d.platform).sort(), ['googlebusiness', 'pinterest', 'tiktok']);
    assert.ok(unsupported.every((d) => d.path === `/platform_options/${d.platform}/first_comment`));
  });

  test("a comment over the platform's limit, an empty one and an X reply over 280 are refused, naming the rule", async () => {
    const res = await create({
      content: 'Rules',
      platforms: ['linkedin', 'facebook', 'x'],
      platform_options: {
        linkedin: { first_comment: { text: 'a'.repeat(1251) } },
        facebook: { first_comment: { text: '   ' } },
        x: { first_comment: { text: 'b'.repeat(281) } },
      },
    });
    assert.equal(res.statusCode, 422, res.body);
    const rules = Object.fromEntries(rulesOf(res.body).map((d) => [d.platform, d.rule]));
    assert.equal(rules.linkedin, 'first_comment_too_long');
    assert.equal(rules.facebook, 'first_comment_empty');
    assert.equal(rules.x, 'text_too_long');
  });

  test('a story takes no comment, and a comment without text is a 400 from the schema', async () => {
    const image = await media(jpeg(64, 48), 'image/jpeg', 'story.jpg');
    const story = await create({
      content: '',
      platforms: ['instagram'],
      media_ids: [image],
      platform_options: { instagram: { type: 'story', first_comment: { text: 'hi' } } },
    });
    assert.equal(story.statusCode, 422, story.body);
    assert.ok(rulesOf(story.body).some((d) => d.rule === 'first_comment_on_story'));
    for (const first_comment of [{}, { text: '' }, { text: 'hi', extra: true }]) {
      const res = await create({ content: 'x', platforms: ['x'], platform_options: { x: { first_comment } } });
      assert.equal(res.statusCode, 400, `${JSON.stringify(first_comment)}: ${res.body}`);
    }
  });
});
